/// What `validate()` sees while it builds: the instances built (a registration in the container that holds the
/// instance), the dependency edges between them and how each was asked for, the services asked for but not
/// registered, the factories' own build times, and the failures property wrappers kept instead of trapping.
///
/// The resolution engine reports to it only under the validation overlay, so ordinary resolves pay nothing. Factories
/// may hand a resolver to other threads, so it locks.
final class ValidationRecorder: @unchecked Sendable {
    // @unchecked: `state` is only touched through its lock.

    /// One instance validation built: a registration, in the container whose dependencies it resolved from (its
    /// home), which is also the container that holds it for every caching scope but `.singleton`-like ones, which
    /// live in their registration's container.
    ///
    /// An argument registration built with different `Hashable` argument values is one node per value (see
    /// ``argumentKey(_:)``), as the run-time cycle check tells its builds apart: a factory that resolves its own
    /// registration with another value (a menu and its submenus) is recursion, not a cycle.
    struct Node: Hashable {
        let entry: ObjectIdentifier
        let home: ObjectIdentifier
        var argument: Int = 0

        /// The identities mixed into one word. Every edge of every build is looked up by its ends, so each key feeds
        /// the hasher once rather than once per field and enum tag.
        var mixed: UInt {
            (UInt(bitPattern: entry) &* 0x9E37_79B9_7F4A_7C15) ^ UInt(bitPattern: home)
                ^ (UInt(bitPattern: argument) &* 0xBF58_476D_1CE4_E5B9)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(mixed)
        }
    }

    /// What tells the builds of an argument registration apart in ``Node``: the argument's hash when it is
    /// `Hashable` (never 0), else 0, as for no argument (the builds are then one node, as the graph shows them).
    static func argumentKey(_ argument: ArgumentBox?) -> Int {
        guard let argument, let hashable = argument.value as? AnyHashable else { return 0 }
        return hashable.hashValue | 1
    }

    /// Where an edge leads: an instance, or a service nothing is registered for.
    enum Target: Hashable {
        case node(Node)
        case missing(String)

        func hash(into hasher: inout Hasher) {
            switch self {
            case .node(let node): hasher.combine(node.mixed)
            case .missing(let service): hasher.combine(service)
            }
        }
    }

    /// Who asked: an instance's factory or `resolveProperties`, or a root of `validate(building:)`.
    enum Source: Hashable {
        case node(Node)
        case root(Int)

        /// One word for the hasher (a root and a node may share it; equality tells them apart).
        var mixed: UInt {
            switch self {
            case .node(let node): node.mixed
            case .root(let index): UInt(bitPattern: index)
            }
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(mixed)
        }
    }

    /// How a dependency was asked for, strongest first.
    enum EdgeKind: Int, Comparable {
        /// By the factory, or a wrapper initialised while it ran: needed before the instance exists.
        case factory
        /// By `resolveProperties`, after the factory returned: the instance exists and can be handed back.
        case properties
        /// By `@LazyInjected`: on first read, never while the holder is built; held strongly from then on.
        case lazy
        /// By `@WeakInjected`: on first read, and held weakly, so the holder never keeps the instance alive.
        case weak

        /// Whether the dependency is asked for on first read, after the holder is built (`@LazyInjected`,
        /// `@WeakInjected`): such an edge cannot close a cycle.
        var isOnFirstRead: Bool { self >= .lazy }

        static func < (lhs: EdgeKind, rhs: EdgeKind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    struct Edge {
        let to: Target
        var kind: EdgeKind
    }

    /// An edge's ends, for ``State/edgeIndex``.
    struct EdgeKey: Hashable {
        let source: Source
        let target: Target

        func hash(into hasher: inout Hasher) {
            switch target {
            case .node(let node): hasher.combine(source.mixed &* 0xBF58_476D_1CE4_E5B9 ^ node.mixed)
            case .missing(let service):
                hasher.combine(source.mixed)
                hasher.combine(service)
            }
        }
    }

    /// A lazy wrapper's first read made inside a build: if `warmUp()` runs that build, the read, and what it builds,
    /// may come before an async service they read synchronously is built, and a lazy read can neither wait nor fail
    /// the build for `warmUp()` to try it again.
    struct LazyReadInBuild {
        /// The registration whose build made the read.
        let reader: EntryBase
        /// "factory" or "resolveProperties closure".
        let closure: String
        let site: PropertySite
        /// What it read.
        let read: Node
        /// The async registrations the reader's own code had read (and got) or awaited before: built by then at run
        /// time too.
        let readBefore: Set<ObjectIdentifier>
    }

    /// A dependency a lazy wrapper will resolve on first read: validation resolves it after the build that made
    /// the wrapper, as a resolve of its own.
    struct LazyCheck {
        let source: Source?
        let site: PropertySite
        /// The build that made the property's holder, as an error names it ("Screen's factory, registered at ..."),
        /// or `nil` outside any build.
        let initialisedBy: String?
        let container: DIContainer
        let resolve: @Sendable (DIContainer) throws -> Void
    }

    struct State {
        /// Every registration seen, in the order first seen.
        var entries: [EntryBase] = []
        var seenEntries: Set<ObjectIdentifier> = []
        /// The containers instances were built in, kept alive so that their identities stay unique.
        var containers: [ObjectIdentifier: DIContainer] = [:]
        /// Dependencies by who asked, in the order first asked.
        var dependencies: [Source: [Edge]] = [:]
        /// Who asked, in the order each first asked.
        var sources: [Source] = []
        /// Where each edge is in its source's ``dependencies``: one lookup finds whether it was recorded.
        var edgeIndex: [EdgeKey: Int] = [:]
        /// The longest time each registration's own factory took, in nanoseconds.
        var buildNanoseconds: [ObjectIdentifier: UInt64] = [:]
        /// Services asked for but not registered, in the order first asked.
        var missing: [String] = []
        /// The roots of `validate(building:)`, by index: the type each built, once it returned.
        var roots: [String] = []
        /// Failures recorded instead of thrown, so that validation goes on: property wrappers' (each naming the
        /// property), and synchronous reads of async registrations that nothing builds first.
        var keptFailures: [ResolutionError] = []
        /// Kept failures of a synchronous read of an async registration that is not `.eager()`, by index, with the
        /// instance read: dropped from the report when `warmUp()` builds and keeps that instance (an eager build
        /// awaits it), which validation knows only once everything is built.
        var keptUnlessBuiltByWarmUp: [Int: Node] = [:]
        /// Lazy wrappers' first reads made inside builds, judged against what `warmUp()` builds.
        var lazyReadsInBuilds: [LazyReadInBuild] = []
        /// The requests an async resolve awaited (`resolveAsync`): the only ones that build an async registration.
        var awaitedEdges: Set<EdgeKey> = []
        /// The requests for an async registration whose first was a synchronous read: awaited later or not, that
        /// read came first, and needs the instance built before.
        var readFirstEdges: Set<EdgeKey> = []
        /// The requests a property wrapper made itself (a lazy one's first read too): their failures do not throw
        /// into the build that made the wrapper.
        var wrapperEdges: Set<EdgeKey> = []
        /// Synchronous reads of async registrations that throw when they fail, by the build whose own code made
        /// them: the async registration's identity, by the reading build.
        var readsThatThrow: [Node: Set<ObjectIdentifier>] = [:]
        /// `.weak` registrations whose factory made a value type, with that type.
        var weakValueTypes: [(entry: EntryBase, type: Any.Type)] = []
        /// `resolveAll` calls that found registrations of their type, all taking an argument: an empty list. By the
        /// type asked for, with the registration whose factory asked (`nil` outside any) and those left out.
        var resolveAllsOfArgumentsOnly: [(type: String, asker: EntryBase?, leftOut: [EntryBase])] = []
        /// Lazy wrappers' dependencies not checked yet.
        var lazyChecks: [LazyCheck] = []
        var lazyCheckKeys: Set<String> = []
        /// The first line of each problem found so far, for a trap that ends validation before its report.
        var problemsFound: [String] = []

        /// The entries seen, by identity, as the nodes name them.
        var entriesByID: [ObjectIdentifier: EntryBase] {
            Dictionary(entries.map { (ObjectIdentifier($0), $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    private let state = Locked(State())
    /// Whether this validation runs async factories (`validateAsync()`).
    let buildsAsync: Bool
    /// The container `validate()` was called on, so that a missing service can be told apart from one registered
    /// there but out of reach of the request (through `DIContainer.shared`, or from a parent's singleton).
    let validated: DIContainer?

    /// - Parameters:
    ///   - buildsAsync: Whether the validation runs async factories.
    ///   - registrations: How many registrations it will build, to size the tables once.
    ///   - validated: The container `validate()` was called on.
    init(buildsAsync: Bool, registrations: Int = 0, validated: DIContainer? = nil) {
        self.buildsAsync = buildsAsync
        self.validated = validated
        state.withLock { state in
            state.entries.reserveCapacity(registrations)
            state.seenEntries.reserveCapacity(registrations)
            state.dependencies.reserveCapacity(registrations)
            state.sources.reserveCapacity(registrations)
            state.edgeIndex.reserveCapacity(registrations * 4)
            state.buildNanoseconds.reserveCapacity(registrations)
        }
    }

    /// `source` (or a top-level request, when `nil`) asked for `entry`, which was then built in `home`.
    ///
    /// - Parameter argument: The runtime argument `entry` was asked with, which tells its builds apart.
    func record(
        from source: Source?,
        to entry: EntryBase,
        home: DIContainer,
        argument: ArgumentBox?,
        kind: EdgeKind,
        awaited: Bool = false,
        byWrapper: Bool = false
    ) {
        let node = Node(
            entry: ObjectIdentifier(entry),
            home: ObjectIdentifier(home),
            argument: Self.argumentKey(argument)
        )
        state.withLock { state in
            state.see(entry, home)
            if let source {
                let key = EdgeKey(source: source, target: .node(node))
                if !awaited, entry.isAsync, state.edgeIndex[key] == nil {
                    state.readFirstEdges.insert(key)
                }
                state.add(Edge(to: .node(node), kind: kind), from: source)
                if awaited {
                    state.awaitedEdges.insert(key)
                }
                if byWrapper {
                    state.wrapperEdges.insert(key)
                }
            }
        }
    }

    /// `source` asked for `service`, which is not registered.
    func recordMissing(from source: Source?, service: String, kind: EdgeKind) {
        state.withLock { state in
            if !state.missing.contains(service) {
                state.missing.append(service)
            }
            if let source {
                state.add(Edge(to: .missing(service), kind: kind), from: source)
            }
        }
    }

    /// `entry`'s own factory took `nanoseconds`, not counting the registrations it asked for.
    func recordBuild(of entry: EntryBase, home: DIContainer, nanoseconds: UInt64?) {
        state.withLock { state in
            state.see(entry, home)
            // A forward of `implements` builds nothing of its own: the registration it forwards to is timed.
            guard let nanoseconds, !entry.isForward else { return }
            let key = ObjectIdentifier(entry)
            state.buildNanoseconds[key] = max(state.buildNanoseconds[key] ?? 0, nanoseconds)
        }
    }

    /// A `.weak` registration's factory made a value of `type`, which is not a class.
    func recordWeakValueType(_ entry: EntryBase, _ type: Any.Type) {
        state.withLock { state in
            if !state.weakValueTypes.contains(where: { $0.entry === entry }) {
                state.weakValueTypes.append((entry, type))
            }
        }
    }

    /// A `resolveAll` of `type` found only registrations that take an argument, and returned none of them.
    func recordResolveAllOfArgumentsOnly(_ type: String, asker: EntryBase?, leftOut: [EntryBase]) {
        state.withLock { state in
            if !state.resolveAllsOfArgumentsOnly.contains(where: { $0.type == type && $0.asker === asker }) {
                state.resolveAllsOfArgumentsOnly.append((type, asker, leftOut))
            }
        }
    }

    /// A failure kept instead of thrown, so that validation goes on: a property wrapper that could not resolve its
    /// service, or a synchronous read of an async registration that nothing builds first.
    ///
    /// - Parameter read: For a read of an async registration that is not eager, the instance read: the failure is
    ///   dropped if `warmUp()` turns out to build and keep it (see ``State/keptUnlessBuiltByWarmUp``).
    func recordFailure(_ error: ResolutionError, unlessWarmUpBuilds read: Node? = nil) {
        state.withLock { state in
            if let read {
                state.keptUnlessBuiltByWarmUp[state.keptFailures.count] = read
            }
            state.keptFailures.append(error)
        }
    }

    /// The async registrations `node`'s build awaited, directly or through builds it awaited, as recorded so far:
    /// built once it is (a build validation made earlier, and that a later await only reads, still awaited them).
    func awaitedThrough(_ node: Node) -> [ObjectIdentifier] {
        state.withLock { state in
            var found: [ObjectIdentifier] = []
            var pending: [Node] = [node]
            var visited: Set<Node> = [node]
            while let current = pending.popLast() {
                for edge in state.dependencies[.node(current)] ?? [] {
                    guard case .node(let target) = edge.to,
                        state.awaitedEdges.contains(EdgeKey(source: .node(current), target: edge.to)),
                        visited.insert(target).inserted
                    else { continue }
                    found.append(target.entry)
                    pending.append(target)
                }
            }
            return found
        }
    }

    /// `reader`'s own code read the async registration `entry` synchronously, in a way that throws if it fails.
    func recordReadThatThrows(of entry: EntryBase, by reader: Node) {
        state.withLock { _ = $0.readsThatThrow[reader, default: []].insert(ObjectIdentifier(entry)) }
    }

    /// The async registrations read, in a way that throws, by the builds `reader` asked for before its request for
    /// `current` (not through a property wrapper, whose failure does not throw into it), and by what those asked
    /// for: built before that request at run time, or the build failed first. It finds them in builds that
    /// validation made earlier and that `reader` only read again.
    func readsThatThrow(inBuildsBefore current: Node, by reader: Node) -> Set<ObjectIdentifier> {
        state.withLock { state in
            var found: Set<ObjectIdentifier> = []
            var pending: [Node] = []
            var visited: Set<Node> = [reader]
            for edge in state.dependencies[.node(reader)] ?? [] where !edge.kind.isOnFirstRead {
                guard case .node(let target) = edge.to, target != current,
                    !state.wrapperEdges.contains(EdgeKey(source: .node(reader), target: edge.to)),
                    visited.insert(target).inserted
                else { continue }
                pending.append(target)
            }
            while let node = pending.popLast() {
                found.formUnion(state.readsThatThrow[node] ?? [])
                for edge in state.dependencies[.node(node)] ?? [] where !edge.kind.isOnFirstRead {
                    guard case .node(let target) = edge.to,
                        !state.wrapperEdges.contains(EdgeKey(source: .node(node), target: edge.to)),
                        visited.insert(target).inserted
                    else { continue }
                    pending.append(target)
                }
            }
            return found
        }
    }

    /// A lazy wrapper's first read inside a build.
    func recordLazyRead(_ read: LazyReadInBuild) {
        state.withLock { $0.lazyReadsInBuilds.append(read) }
    }

    /// Whether something builds `node`'s instance before a synchronous read that comes after `warmUp()`: `warmUp()`
    /// (see ``State/warmUpBuilds(validated:holder:)``); or, for a lazy read by `holder`, `holder`'s own build
    /// awaited it, so it was built before `holder` existed.
    func isBuiltBeforeLaterReads(_ node: Node, lazyHolder holder: Source? = nil) -> Bool {
        state.withLock { $0.warmUpBuilds(validated: validated, holder: holder).keeps(node) }
    }

    /// How many failures were kept so far.
    var keptFailureCount: Int {
        state.withLock { $0.keptFailures.count }
    }

    /// Names `site` as the asker of the failures kept since there were `count`: a lazy wrapper's check, whose
    /// resolve kept them rather than throwing (an async registration read before anything builds it).
    func attributeKeptFailures(since count: Int, to site: PropertySite) {
        state.withLock { state in
            for index in count..<state.keptFailures.count where state.keptFailures[index].registration == nil {
                state.keptFailures[index] = state.keptFailures[index].asked(by: site, atDepth: 0)
            }
        }
    }

    /// Notes a problem the validation found, for ``stopNote(trapping:)``.
    func noteProblem(_ problem: ValidationProblem) {
        let firstLine = problem.description.prefix { $0 != "\n" }
        state.withLock { $0.problemsFound.append(String(firstLine)) }
    }

    /// What to add to a trap that ends this validation before it could report (a property read although it could
    /// not be resolved, a `DIContainer` resolve that failed inside a factory): that the rest was not checked, and
    /// what was found before, so that the report is not lost with the process.
    ///
    /// - Parameter error: The error the trap is for, left out of the list.
    func stopNote(trapping error: String) -> String {
        let (found, kept) = state.withLock { ($0.problemsFound, $0.keptFailures) }
        let keptLines = kept.filter { !error.hasPrefix($0.description) }.map { kept in
            kept.registration.map { "\($0): \(kept.headline)" } ?? kept.headline
        }
        let before = found + keptLines
        var lines = [
            "  validate() stops here: the code that needs this value cannot go on without it, so the registrations "
                + "after this one are not checked."
        ]
        if before.isEmpty {
            lines.append("  found before it stopped: nothing else.")
        } else {
            lines.append("  found before it stopped (\(before.count)):")
            lines += before.map { "    \($0)" }
        }
        lines.append("  then: fix this, and run validate() again for the rest.")
        return lines.joined(separator: "\n")
    }

    /// Whether building `entry` needs `other`, as the edges recorded so far show: its factory asked for `other`, or
    /// for a registration whose build (factory or `resolveProperties`) needs it, in any container. A lazy wrapper's
    /// request is made after the build, so it is not followed.
    func build(of entry: EntryBase, needs other: EntryBase) -> Bool {
        state.withLock { state in
            let target = ObjectIdentifier(other)
            var edges: [ObjectIdentifier: [(to: ObjectIdentifier, kind: EdgeKind)]] = [:]
            for (source, dependencies) in state.dependencies {
                guard case .node(let node) = source else { continue }
                for edge in dependencies where !edge.kind.isOnFirstRead {
                    if case .node(let to) = edge.to {
                        edges[node.entry, default: []].append((to.entry, edge.kind))
                    }
                }
            }
            // Its own first step must be its factory's: once the factory has returned, the instance exists.
            var pending = (edges[ObjectIdentifier(entry)] ?? []).filter { $0.kind == .factory }.map(\.to)
            var seen: Set<ObjectIdentifier> = [ObjectIdentifier(entry)]
            while let next = pending.popLast() {
                if next == target { return true }
                if seen.insert(next).inserted {
                    pending += (edges[next] ?? []).map(\.to)
                }
            }
            return false
        }
    }

    /// A lazy wrapper was made: check its dependency once the current build is done.
    func recordLazyCheck(_ check: LazyCheck) {
        state.withLock { state in
            // The declaration, what it asks for (a generic holder's `@LazyInjected var dep: S` asks for a type per
            // specialisation, and a wrapper made in an `init` may take its name from an argument) and where.
            let site = check.site
            let service = "\(ObjectIdentifier(site.service)):\(site.name?.id ?? 0)"
            let key = "\(site.location):\(service):\(ObjectIdentifier(check.container))"
            if state.lazyCheckKeys.insert(key).inserted {
                state.lazyChecks.append(check)
            }
        }
    }

    /// Takes the lazy checks recorded so far.
    func takeLazyChecks() -> [LazyCheck] {
        state.withLock { state in
            defer { state.lazyChecks.removeAll() }
            return state.lazyChecks
        }
    }

    /// Starts a root of `validate(building:)`; returns its index.
    func addRoot() -> Int {
        state.withLock { state in
            state.roots.append("root \(state.roots.count + 1)")
            return state.roots.count - 1
        }
    }

    /// Names a root after the type of what it built.
    func nameRoot(_ index: Int, _ label: String) {
        state.withLock { $0.roots[index] = label }
    }

    /// Everything recorded so far.
    var snapshot: State {
        state.withLock { $0 }
    }
}

extension ValidationRecorder.State {
    fileprivate mutating func see(_ entry: EntryBase, _ home: DIContainer) {
        if seenEntries.insert(ObjectIdentifier(entry)).inserted {
            entries.append(entry)
        }
        containers[ObjectIdentifier(home)] = home
    }

    fileprivate mutating func add(_ edge: ValidationRecorder.Edge, from source: ValidationRecorder.Source) {
        // Every edge of every build passes here: each dictionary is looked up once.
        let key = ValidationRecorder.EdgeKey(source: source, target: edge.to)
        let known = edgeIndex[key]
        let sourceCount = dependencies.count
        var position = 0
        update(&dependencies[source, default: []]) { edges in
            if let known {
                edges[known].kind = min(edges[known].kind, edge.kind)
            } else {
                position = edges.count
                edges.append(edge)
            }
        }
        guard known == nil else { return }
        if dependencies.count != sourceCount {
            sources.append(source)
        }
        edgeIndex[key] = position
    }
}

/// Runs `body` on `value` in place: with a dictionary's `subscript(_:default:)`, one lookup reads and writes.
private func update<Value>(_ value: inout Value, _ body: (inout Value) -> Void) {
    body(&value)
}
