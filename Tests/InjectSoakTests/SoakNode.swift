import Inject

/// How many resets of one scope a container has started and finished: a resolve that saw the same counts before and
/// after, with no reset under way, ran entirely between two resets.
struct ResetCount: Equatable, Sendable {
    var started = 0
    var finished = 0

    var isQuiet: Bool { started == finished }
}

/// One container of the churning tree, with what the soak knows about it.
final class SoakNode: Sendable, CustomStringConvertible {
    let id: Int
    let container: DIContainer
    let parent: SoakNode?
    let depth: Int
    /// Whether workers may register into it: not the root nor a node to be sealed, since registering into a sealed
    /// container traps.
    let takesRegistrations: Bool

    private struct State {
        /// Keys claimed by a worker that registers them (each key is registered at most once per container).
        var claimed: Set<SoakKey> = []
        /// Keys whose `register(...).scope(...)` has returned.
        var done: Set<SoakKey> = []
        var resets: [Scope: ResetCount] = [:]
    }

    private let state = Guarded(State())

    init(id: Int, container: DIContainer, parent: SoakNode?, takesRegistrations: Bool) {
        self.id = id
        self.container = container
        self.parent = parent
        self.depth = parent.map { $0.depth + 1 } ?? 0
        self.takesRegistrations = takesRegistrations
    }

    /// This node, its parent, and so on to the root.
    var lineage: [SoakNode] {
        Array(sequence(first: self, next: \.parent))
    }

    /// Whether `ancestor` is this node or one of its parents.
    func isOrDescends(from ancestor: SoakNode) -> Bool {
        lineage.contains { $0 === ancestor }
    }

    /// Claims `key` for registration; `false` when it was claimed before.
    func claim(_ key: SoakKey) -> Bool {
        state.withLock { $0.claimed.insert(key).inserted }
    }

    /// Records that `key` is fully registered here.
    func markDone(_ key: SoakKey) {
        state.withLock { _ = $0.done.insert(key) }
    }

    /// Whether `key` is fully registered here or in a parent, so that a resolve through this node must succeed.
    func seesDone(_ key: SoakKey) -> Bool {
        lineage.contains { node in node.state.withLock { $0.done.contains(key) } }
    }

    /// The reset counts of `scope` here.
    func resets(of scope: Scope) -> ResetCount {
        state.withLock { $0.resets[scope, default: ResetCount()] }
    }

    /// Calls `reset(scope)` on the container, counting it as started before and finished after.
    func reset(_ scope: Scope) {
        state.withLock { $0.resets[scope, default: ResetCount()].started += 1 }
        container.reset(scope)
        state.withLock { $0.resets[scope, default: ResetCount()].finished += 1 }
    }

    var description: String {
        "node \(id) (depth \(depth)\(parent.map { ", child of node \($0.id)" } ?? ""))"
    }
}
