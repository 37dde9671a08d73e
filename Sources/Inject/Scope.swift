/// How long a registered service's instances live, and who shares them.
///
/// | scope | instances | released |
/// |---|---|---|
/// | ``transient`` (``unique``) | a new one every resolve | by whoever holds it |
/// | ``graph`` (the default) | one per top-level resolve call, shared by everything that call builds | when the call returns |
/// | ``singleton`` (``application``) | one per registering container | with the container |
/// | ``cached`` | one per registering container | by `reset(.cached)`, or with the container |
/// | ``weak`` (``shared``) | one while anyone holds it; class types only | when the last holder lets go |
/// | ``scoped`` | one per container that resolves it: each child scope gets its own | with that container |
/// | ``custom(_:)`` | one per registering container | by `reset(.custom(name))`, or with the container |
///
/// Set a scope on a registration with ``Registration/scope(_:file:line:)``. Define your own resettable scopes as
/// statics:
///
/// ```swift
/// extension Scope {
///     static let session = Scope.custom("session")
/// }
/// ```
///
/// > Important: Every caching scope builds an instance exactly once, even when many threads ask at once, and
/// > never holds a container-wide lock while the factory runs. See `Docs/ThreadSafety.md`.
public struct Scope: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case transient
        case graph
        case singleton
        case cached
        case weak
        case scoped
        case custom(String)
    }

    let kind: Kind
    /// The scope as one integer: ``Code`` for the built-in scopes, ``Code/firstCustom`` plus the interned name for a
    /// custom scope. Equal scopes have equal codes; a registration keeps its scope as a code in an atomic cell.
    let code: Int

    /// The codes of the built-in scopes.
    enum Code {
        static let transient = 1
        static let graph = 2
        static let singleton = 3
        static let cached = 4
        static let weak = 5
        static let scoped = 6
        static let firstCustom = 7
    }

    private init(_ kind: Kind, code: Int) {
        self.kind = kind
        self.code = code
    }

    /// The scope whose ``code`` is `code`.
    init(code: Int) {
        switch code {
        case Code.transient: self = .transient
        case Code.graph: self = .graph
        case Code.singleton: self = .singleton
        case Code.cached: self = .cached
        case Code.weak: self = .weak
        case Code.scoped: self = .scoped
        default: self.init(.custom(NameTable.string(for: code - Code.firstCustom + 1)), code: code)
        }
    }

    /// Whether two scopes are the same scope: the same built-in scope, or custom scopes with the same name.
    public static func == (lhs: Scope, rhs: Scope) -> Bool {
        lhs.code == rhs.code
    }

    /// Hashes the scope's interned code, which equal scopes share.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }

    /// A new instance on every resolve.
    public static let transient = Scope(.transient, code: Code.transient)
    /// Resolver's name for ``transient``.
    public static let unique = transient
    /// One instance per top-level resolve call, shared by every service that call builds. The default.
    public static let graph = Scope(.graph, code: Code.graph)
    /// One instance per registering container, built lazily on first resolve, exactly once.
    ///
    /// The instance resolves its dependencies from the container that holds its registration, never from a child,
    /// so a singleton never captures a child's service.
    public static let singleton = Scope(.singleton, code: Code.singleton)
    /// Resolver's name for ``singleton``.
    public static let application = singleton
    /// Like ``singleton``, but ``DIContainer/reset(_:file:line:)`` with `.cached` drops the instance.
    public static let cached = Scope(.cached, code: Code.cached)
    /// Shared while anyone holds a strong reference to it; built again after the last one lets go.
    /// Class types only.
    public static let weak = Scope(.weak, code: Code.weak)
    /// Resolver's name for ``weak``.
    public static let shared = weak
    /// One instance per container that resolves it: each child scope gets its own, released with that child.
    public static let scoped = Scope(.scoped, code: Code.scoped)

    /// A named cache that ``DIContainer/reset(_:file:line:)`` drops on demand, for lifetimes such as a user session.
    ///
    /// - Parameter name: The scope's name. Two custom scopes are the same scope when their names are equal.
    public static func custom(_ name: String) -> Scope {
        Scope(.custom(name), code: Code.firstCustom + NameTable.intern(name) - 1)
    }

    /// The scope as it is written in code, such as `.singleton` or `.custom("session")`.
    public var description: String {
        switch kind {
        case .transient: ".transient"
        case .graph: ".graph"
        case .singleton: ".singleton"
        case .cached: ".cached"
        case .weak: ".weak"
        case .scoped: ".scoped"
        case .custom(let name): ".custom(\"\(name)\")"
        }
    }
}

extension Scope {
    /// Where a scope keeps the instances it shares.
    enum Storage {
        /// Nowhere: every resolve builds.
        case none
        /// In the resolution context of one top-level resolve call.
        case graph
        /// In a slot of the registration's own (one per registering container).
        case registration
        /// In a slot of the container that resolves it.
        case resolvingContainer
    }

    var storage: Storage { Self.storage(ofCode: code) }

    /// ``storage`` from a code alone: what the hot path reads.
    @inline(__always)
    static func storage(ofCode code: Int) -> Storage {
        switch code {
        case Code.transient: .none
        case Code.graph: .graph
        case Code.scoped: .resolvingContainer
        default: .registration
        }
    }

    /// Whether instances of the scope whose code is `code` resolve their dependencies from the registering container
    /// rather than from the container resolved through.
    @inline(__always)
    static func resolvesFromOwner(_ code: Int) -> Bool {
        storage(ofCode: code) == .registration
    }

    /// Whether ``DIContainer/reset(_:file:line:)`` drops instances of this scope.
    var isResettable: Bool {
        switch kind {
        case .cached, .weak, .scoped, .custom: true
        case .transient, .graph, .singleton: false
        }
    }

    /// Whether an instance's lifetime is ended explicitly (by `reset` or with a child scope): what the captive
    /// dependency check looks for.
    var endsExplicitly: Bool {
        switch kind {
        case .cached, .scoped, .custom: true
        case .transient, .graph, .singleton, .weak: false
        }
    }
}
