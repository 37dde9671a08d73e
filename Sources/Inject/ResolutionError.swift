/// Why a service could not be resolved, in words that say how to fix it.
///
/// ``DIContainer/resolveThrowing(_:name:)`` and ``DIResolver`` throw it. ``DIContainer/resolve(_:name:file:line:)`` and the
/// property wrappers, which cannot throw, trap with its ``description``. Every description names the type and name
/// asked for, the path that led there, the `file:line` of the registration whose factory asked, and a fix:
///
/// ```text
/// Inject: nothing is registered for NetworkClient named "live".
///   path: ProfileViewModel -> APIClient -> NetworkClient["live"]
///   asked by: APIClient, registered at App/Composition.swift:42
///   registered under other names: NetworkClient at App/Composition.swift:12
///   fix: register NetworkClient named "live" in this container or a parent, or ask for a name above.
/// ```
public struct ResolutionError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public enum Kind: Hashable, Sendable {
        /// Nothing is registered under the type and name asked for, in the container or its parents.
        case notRegistered
        /// A factory asked, directly or through others, for the registration it is building; or two threads'
        /// first builds wait for each other.
        case cycle
        /// A factory or `resolveProperties` closure threw an error of its own: see ``underlying``.
        case factoryThrew
        /// A runtime argument is missing, of the wrong type, or given to a registration that takes none.
        case argumentMismatch
        /// A `mainActorFactory` registration was resolved off the main actor.
        case notOnMainActor
        /// No longer thrown: a `.weak` registration of a value type acts as `.transient`, and `validate()` warns
        /// about it. Kept so that code that switches over the kinds keeps compiling.
        case notAClass
        /// A registration forwarded with `implements(P.self)` made an instance that is not a `P`.
        case notConforming
        /// The resolution went deeper than any real graph does: runaway recursion that is not a cycle.
        case tooDeep
        /// An async registration was resolved synchronously before an async resolution built it (or, for a scope
        /// that does not cache, at all): resolve it with `resolveAsync`, or mark it `.eager()` and call `warmUp()`.
        case notBuiltYet
        /// A registration's options contradict each other: `.eager()` on a scope that does not cache, or on a
        /// registration that takes a runtime argument.
        case invalidRegistration
    }

    /// What went wrong.
    public let kind: Kind
    /// The resolution path, outermost first, ending with the service that failed:
    /// `["ProfileViewModel", "APIClient", "NetworkClient"]`. A named service reads `Store["live"]`.
    public let path: [String]
    /// The type and name asked for, as in ``path``.
    public let service: String
    /// The `file:line` of the registration whose factory asked for ``service`` (for ``Kind/factoryThrew``, of the
    /// registration whose factory threw), or `nil` when the request came from outside any factory.
    public let registration: String?
    /// The error a factory threw, for ``Kind/factoryThrew``.
    public let underlying: (any Error)?
    /// The whole message: what failed, the path, where it was registered, and what to do.
    public let description: String
    /// The first line of the message, without the "Inject: " prefix, for validation reports.
    let headline: String
    /// The lines between the path and the fix, such as who asked, without indentation.
    let details: [String]
    /// What to do, without the "fix: " prefix.
    let fix: String
    /// For nothing registered, asked for outside any factory through ``DIContainer/shared``, when nothing else
    /// explains it: the fix that names that container (`register X in DIContainer.shared`), for
    /// ``asked(by:atDepth:)`` to use when a property wrapper made the request; `nil` otherwise.
    let fixThroughShared: String?
    /// Whether the request fails whoever resolves, from whatever thread: for `validate()`, which reports such a
    /// ``Kind/notOnMainActor`` failure as an error rather than as a registration it could not build.
    let failsFromEveryCaller: Bool
    /// For ``Kind/notBuiltYet``: whether the async service that was not built is built now, so that the failure no
    /// longer holds. A resolve that waited for a build that failed so builds again instead of taking the failure:
    /// that build began before the service was built. `nil` when it cannot tell.
    let builtSince: (@Sendable () -> Bool)?

    /// The lines after the headline (path, details, fix), without indentation, for validation reports.
    var detailLines: [String] {
        ["path: \(path.joined(separator: " -> "))"] + details + ["fix: \(fix)"]
    }

    init(
        kind: Kind,
        service: String,
        path: [String],
        registration: String?,
        underlying: (any Error)? = nil,
        headline: String,
        details: [String] = [],
        fix: String,
        fixThroughShared: String? = nil,
        failsFromEveryCaller: Bool = false,
        builtSince: (@Sendable () -> Bool)? = nil
    ) {
        self.kind = kind
        self.service = service
        self.path = path
        self.registration = registration
        self.underlying = underlying
        self.headline = headline
        self.details = details
        self.fix = fix
        self.fixThroughShared = fixThroughShared
        self.failsFromEveryCaller = failsFromEveryCaller
        self.builtSince = builtSince
        self.description =
            (["Inject: \(headline)", "  path: \(path.joined(separator: " -> "))"] + details.map { "  \($0)" } + [
                "  fix: \(fix)"
            ]).joined(separator: "\n")
    }

    /// The same error, asked for by a property wrapper: when the wrapper's own request failed (`depth` is the
    /// length of the path before it), the property replaces whoever was named as asking and its declaration becomes
    /// ``registration``; when something the wrapper's service needed failed, a line says which property led there.
    ///
    /// When nothing is registered and the wrapper's own request went through ``DIContainer/shared`` from outside any
    /// factory (see ``fixThroughShared``), a line says so, and the fix names that container and `container:`.
    ///
    /// - Parameter initialisedBy: What built the object that holds the property, when the request is not made while
    ///   it is built (a lazy property's first read): named as if it were.
    func asked(by site: PropertySite, atDepth depth: Int, initialisedBy: String? = nil) -> ResolutionError {
        let property = site.description
        var details = self.details
        var registration = self.registration
        var fix = self.fix
        if path.count == depth + 1 {
            let caller = details.firstIndex { $0.hasPrefix("asked by: ") }
            let inside = caller.map { details[$0].dropFirst("asked by: ".count) }
            let line =
                inside.flatMap {
                    $0.hasPrefix("a resolve call outside") ? nil : "asked by: \(property), initialised by \($0)"
                }
                ?? initialisedBy.map { "asked by: \(property), initialised by \($0)" }
                ?? "asked by: \(property)"
            if let caller {
                details[caller] = line
            } else {
                details.insert(line, at: 0)
            }
            registration = site.location
            if kind == .notRegistered, site.name == nil,
                details.contains(where: { $0.hasPrefix("registered under other names: ") })
            {
                // `_store = Injected(name: "live")` in an init: the declaration's own wrapper, unnamed, came first.
                details.append(
                    """
                    a property wrapper resolves where its property is declared, before any init body runs: an init \
                    that assigns _property = \("\(site.wrapper)".dropFirst())(name: ...) comes too late to name it; declare \
                    it \(site.wrapper)(name: ...) instead.
                    """
                )
            }
            if let fixThroughShared {
                details.insert(
                    """
                    resolved through: DIContainer.shared, where a property wrapper without container: resolves when \
                    it is initialised outside any factory.
                    """,
                    at: (caller ?? 0) + 1
                )
                details.append(
                    """
                    a property wrapper resolves where its property is declared, before any init body runs: an init \
                    that assigns _property = \("\(site.wrapper)".dropFirst())(container: ...) comes too late; for a \
                    container the init is given, set a plain property from container.resolve() in the init instead.
                    """
                )
                fix = """
                    \(fixThroughShared); or, if the app's container is another one, pass it to the wrapper, \
                    \(site.wrapper)(container: appContainer), or make this object in a factory of that container, \
                    whose wrappers resolve through it.
                    """
            }
        } else {
            details.append("reached from: \(property)")
        }
        let lazy = "\(site.wrapper)" == "@LazyInjected" || "\(site.wrapper)" == "@WeakInjected"
        if kind == .cycle, lazy, depth > 0 {
            // The property is lazy already: what closes the cycle is its read inside a build it depends on.
            fix = """
                read \(property) after the object that holds it is built (in a method, not in its init, its \
                factory, or anything they call): its first read resolves \(Describe.service(site.service, site.name)), \
                which needs the build that is still running.
                """
        }
        return ResolutionError(
            kind: kind,
            service: service,
            path: path,
            registration: registration,
            underlying: underlying,
            headline: headline,
            details: details,
            fix: fix,
            failsFromEveryCaller: failsFromEveryCaller,
            builtSince: builtSince
        )
    }
}

extension ResolutionError {
    /// Whether this is a "not built yet" failure whose async service is built now (see ``builtSince``).
    var isNoLongerTrue: Bool {
        builtSince?() == true
    }

    /// The same error, able to tell whether its async service is built since (see ``builtSince``).
    func checking(builtSince check: @escaping @Sendable () -> Bool) -> ResolutionError {
        copy(builtSince: check)
    }

    /// The same error with one more line between the path and the fix.
    func adding(detail: String) -> ResolutionError {
        copy(details: details + [detail])
    }

    /// The same error with other details, or another check of ``builtSince``.
    private func copy(
        details newDetails: [String]? = nil,
        builtSince check: (@Sendable () -> Bool)? = nil
    )
        -> ResolutionError
    {
        ResolutionError(
            kind: kind,
            service: service,
            path: path,
            registration: registration,
            underlying: underlying,
            headline: headline,
            details: newDetails ?? details,
            fix: fix,
            fixThroughShared: fixThroughShared,
            failsFromEveryCaller: failsFromEveryCaller,
            builtSince: check ?? builtSince
        )
    }
}
