/// What one `warmUp()` learns while its eager builds run: every build with its own time and when it ended, and who
/// asked for what, from which the report's critical path is found.
final class StartupRecorder: @unchecked Sendable {
    // @unchecked: `state` is only touched under its lock; `started` is a `let`.

    /// A registration built in a container.
    struct Node: Hashable {
        let entry: ObjectIdentifier
        let home: ObjectIdentifier
    }

    struct Build {
        let node: Node
        let event: BuildEvent
        let start: UInt64
        let end: UInt64
        /// The container it was built in, kept alive so that its identity in ``node`` stays unique.
        let home: DIContainer
    }

    private struct State {
        var builds: [Build] = []
        /// Who asked for what. Every container an edge names is the home of a build, or one of the containers
        /// `warmUp()` resolves through, all alive while it runs.
        var edges: [Node: Set<Node>] = [:]
        /// When the last build that threw ended: part of the wall time, though no build remains of it.
        var lastFailureEnd: UInt64 = 0
    }

    /// When `warmUp()` started, in nanoseconds.
    let started: UInt64
    private let state = Locked(State())

    init(started: UInt64) {
        self.started = started
    }

    func recordBuild(_ event: BuildEvent, entry: EntryBase, home: DIContainer, start: UInt64, end: UInt64) {
        let node = Node(entry: ObjectIdentifier(entry), home: ObjectIdentifier(home))
        state.withLock { $0.builds.append(Build(node: node, event: event, start: start, end: end, home: home)) }
    }

    func recordEdge(from source: (entry: EntryBase, home: DIContainer)?, to entry: EntryBase, home: DIContainer) {
        guard let source else { return }
        let from = Node(entry: ObjectIdentifier(source.entry), home: ObjectIdentifier(source.home))
        let to = Node(entry: ObjectIdentifier(entry), home: ObjectIdentifier(home))
        state.withLock { _ = $0.edges[from, default: []].insert(to) }
    }

    /// The report: the builds slowest first, wall and serial time, and the critical path.
    /// Records that an eager build threw, at `end`.
    func recordFailure(end: UInt64) {
        state.withLock { $0.lastFailureEnd = max($0.lastFailureEnd, end) }
    }

    func report(failures: [ResolutionError]) -> StartupReport {
        let (builds, edges, lastFailureEnd) = state.withLock { ($0.builds, $0.edges, $0.lastFailureEnd) }
        let lastEnd = max(builds.map(\.end).max() ?? started, lastFailureEnd)
        return StartupReport(
            builds: builds.map(\.event).sorted { $0.seconds > $1.seconds },
            wallSeconds: Double(lastEnd &- started) / 1_000_000_000,
            serialSeconds: builds.reduce(0) { $0 + $1.event.seconds },
            criticalPath: Self.criticalPath(builds, edges),
            failures: failures
        )
    }

    /// The chain of dependent builds that ended last: from the build that ended last, step to the build it asked
    /// for (built here or waited for) that ended last before it, and so on; outermost dependency first.
    private static func criticalPath(_ builds: [Build], _ edges: [Node: Set<Node>]) -> [String] {
        guard var current = builds.max(by: { $0.end < $1.end }) else { return [] }
        var latestByNode: [Node: [Build]] = [:]
        for build in builds {
            latestByNode[build.node, default: []].append(build)
        }
        var path = [current]
        var visited: Set<Node> = [current.node]
        while let next = (edges[current.node] ?? [])
            .filter({ !visited.contains($0) })
            .compactMap({ node in latestByNode[node]?.filter { $0.end <= current.end }.max { $0.end < $1.end } })
            .max(by: { $0.end < $1.end })
        {
            path.append(next)
            visited.insert(next.node)
            current = next
        }
        return path.reversed().map(\.event.service)
    }
}
