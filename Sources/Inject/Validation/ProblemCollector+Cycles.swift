extension ProblemCollector {
    /// Cycles that only some entry points hit: those whose steps mix factory and `resolveProperties` requests.
    ///
    /// While a factory runs, its instance does not exist yet; once it returns, `resolveProperties` runs and a request
    /// that comes back to the instance gets it. So a cycle is closed when it comes back through a `resolveProperties`
    /// step, and fails when it comes back to an instance whose factory is still running. Which one happens depends
    /// on where the cycle is entered: resolving the source of any factory step first fails, because everything
    /// after that step runs inside its factory. A cycle made only of `resolveProperties` steps works from anywhere; a
    /// cycle made only of factory steps fails from anywhere, and the builds themselves report it.
    ///
    /// Validation builds each registration once per run, so which of these it hits depends on the order it builds
    /// them in. Instead, the edges it recorded are analysed: every strongly connected group of instances (Tarjan's
    /// algorithm, linear in the edges) whose edges mix both kinds is one error, naming an entry point that fails.
    mutating func addCyclesByEntryPoint(in seen: ValidationRecorder.State) {
        let graph = InstanceGraph(seen)
        for component in graph.stronglyConnectedComponents() {
            let members = Set(component)
            var factorySources: [Int] = []
            var hasPropertiesStep = false
            for node in component {
                for edge in graph.edges[node] where members.contains(edge.to) {
                    if edge.kind == .factory {
                        // A forward's step to its registration is no factory of its own: coming back to the
                        // forward comes back to that registration, whose own step decides.
                        if !graph.entries[node].isForward {
                            factorySources.append(node)
                        }
                    } else {
                        hasPropertiesStep = true
                    }
                }
            }
            guard hasPropertiesStep, !factorySources.isEmpty else { continue }
            addCycle(in: graph, members: members, failingEntries: factorySources)
        }
    }

    private mutating func addCycle(in graph: InstanceGraph, members: Set<Int>, failingEntries: [Int]) {
        let byLocation = { (node: Int) in (graph.entries[node].file.description, graph.entries[node].line) }
        let failing = Array(Set(failingEntries)).sorted { byLocation($0) < byLocation($1) }
        let entry = failing[0]
        guard let firstStep = graph.edges[entry].first(where: { $0.kind == .factory && members.contains($0.to) }),
            let back = graph.shortestPath(from: firstStep.to, to: entry, within: members)
        else { return }
        let cycle = [entry] + back
        let labels = cycle.map { graph.entries[$0].label }
        let closers = zip(cycle, cycle.dropFirst()).compactMap { from, to in
            graph.kind(from: from, to: to) == .properties ? "\(graph.entries[from].label).resolveProperties" : nil
        }
        let entryLabel = labels[0]
        let steps = labels.joined(separator: " -> ")
        // A forward of `implements` resolved first resolves its registration first: it fails when that one does.
        let failingSet = Set(failing)
        let failingForwards = members.filter { node in
            var current = node
            var steps = 0
            while graph.entries[current].isForward, steps < members.count,
                let target = graph.edges[current].first(where: { members.contains($0.to) })?.to
            {
                current = target
                steps += 1
            }
            return current != node && failingSet.contains(current)
        }
        let working = members.subtracting(failing).subtracting(failingForwards).map { graph.entries[$0].label }.sorted()
        let alsoFailing =
            failing.dropFirst().map { graph.entries[$0].label }
            + failingForwards.map { graph.entries[$0].label }.sorted()
        var details = [
            "path: \(steps)",
            """
            \(entryLabel)'s factory asks for \(labels[1]), and the cycle comes back to \(entryLabel) before that \
            factory has returned, so there is no \(entryLabel) to hand back yet.
            """,
        ]
        if !working.isEmpty {
            details.append(
                "resolving \(working.joined(separator: " or ")) first works, which is why this can pass in use."
            )
        }
        if !alsoFailing.isEmpty {
            details.append("also fails when resolved first: \(alsoFailing.joined(separator: ", ")).")
        }
        let registered = Set(cycle).sorted { byLocation($0) < byLocation($1) }.map {
            "\(graph.entries[$0].label) at \(graph.entries[$0].location)"
        }
        details.append("registered: \(registered.joined(separator: "; "))")
        // resolveProperties runs synchronously: it cannot build an async registration, so it closes no cycle that
        // has one.
        if let asyncMember = cycle.lazy.map({ graph.entries[$0] }).first(where: \.isAsync) {
            details.append(
                """
                fix: \(Describe.lazyCycleFix). resolveProperties cannot close this one: it runs synchronously, and \
                \(asyncMember.label) has an async factory, which only an async resolve builds.
                """
            )
        } else {
            details.append(
                """
                fix: make every step of the cycle a resolveProperties step (here: get \(labels[1]) in \(entryLabel)'s \
                resolveProperties instead of its factory), or \(Describe.lazyCycleFix).
                """
            )
        }
        let closedBy = closers.isEmpty ? "" : " (\(closers.joined(separator: ", ")))"
        add(
            ValidationProblem(
                severity: .error,
                kind: .cycle,
                service: entryLabel,
                location: graph.entries[entry].location,
                message: "dependency cycle, resolving \(entryLabel) first: \(steps)\(closedBy).",
                details: details
            ),
            key: Self.cycleKey(labels),
            pathLength: -1
        )
    }
}

extension ProblemCollector {
    /// Lazy wrappers that close a cycle back to a holder that does not cache: `A` (`.graph` or `.transient`) holds
    /// `@LazyInjected var b: B`, and `B`'s build asks for an `A`. The lazy read is a resolution of its own, so it
    /// builds a `B` that holds another `A`, never the one that read it: a warning, since nothing fails but the
    /// instance is not the one the cycle meant. A caching holder (`.singleton`, `.cached`, `.scoped`, `.weak`, a
    /// custom scope) is found again by that resolution. (A `.graph` `B` read by a caching `A` is one `B` for that `A`,
    /// as a shared service holds one of many: by design, not flagged.)
    mutating func addLazyCyclesThatDoNotCloseOnTheirInstances(in seen: ValidationRecorder.State) {
        var graph: InstanceGraph?
        let entriesByID = seen.entriesByID
        let buildsEveryTime = { (entry: EntryBase) in entry.scope == .graph || entry.scope == .transient }
        for case .node(let holderNode) in seen.sources {
            guard let holder = entriesByID[holderNode.entry] else { continue }
            for edge in seen.dependencies[.node(holderNode)] ?? [] where edge.kind.isOnFirstRead {
                guard buildsEveryTime(holder), case .node(let readNode) = edge.to,
                    let read = entriesByID[readNode.entry]
                else { continue }
                // Built once, and only for a holder that does not cache, which few are.
                if graph == nil {
                    graph = InstanceGraph(seen)
                }
                guard let graph, let from = graph.numbers[readNode], let to = graph.numbers[holderNode],
                    let back = graph.shortestPath(from: from, to: to, within: nil)
                else { continue }
                let wrapper = edge.kind == .weak ? "@WeakInjected" : "@LazyInjected"
                let route = back.map { graph.entries[$0].label }.joined(separator: " -> ")
                let message = """
                    \(holder.label)'s \(wrapper) property of \(read.label) gets a \(read.label) that holds another \
                    \(holder.label), not the one that read it: \(holder.label) is \(holder.scope), and a lazy read is a \
                    resolution of its own, in which \(route) builds a new \(holder.label).
                    """
                add(
                    ValidationProblem(
                        severity: .warning,
                        kind: .cycle,
                        service: holder.label,
                        location: holder.location,
                        message: message,
                        details: [
                            "path: \(holder.label) -> \(route) (the first step on first read)",
                            Self.lazyCycleFix(holder: holder, read: read),
                        ]
                    )
                )
            }
        }
    }
}

extension ProblemCollector {
    /// The fix for a lazy wrapper of `read` that closes a cycle back to `holder`, which does not cache.
    fileprivate static func lazyCycleFix(holder: EntryBase, read: EntryBase) -> String {
        guard read.scope == .graph || read.scope == .transient else {
            // One `read` for every holder: it can hold only one of them, whatever builds it.
            return """
                fix: give \(holder.label) a caching scope that lives as long as \(read.label)'s \(read.scope) (one \
                \(holder.label) for each \(read.label)): one \(read.label) serves every \(holder.label), so it can hold \
                only one of them, never each one that reads it.
                """
        }
        return """
            fix: give \(holder.label) a caching scope (.singleton, .cached or .scoped), so that the lazy read finds \
            this one, or get \(read.label) in \(holder.label)'s resolveProperties instead (one resolution, in which \
            \(read.label) gets this \(holder.label)).
            """
    }
}

/// The instances a validation built and the edges between them (factory and `resolveProperties` requests; lazy
/// reads are not part of any build), numbered for graph algorithms.
private struct InstanceGraph {
    struct Edge {
        let to: Int
        let kind: ValidationRecorder.EdgeKind
    }

    var entries: [EntryBase] = []
    var edges: [[Edge]] = []
    /// Each instance's number.
    private(set) var numbers: [ValidationRecorder.Node: Int] = [:]

    init(_ seen: ValidationRecorder.State) {
        let entriesByID = seen.entriesByID
        func number(_ node: ValidationRecorder.Node) -> Int? {
            if let number = numbers[node] { return number }
            guard let entry = entriesByID[node.entry] else { return nil }
            numbers[node] = entries.count
            entries.append(entry)
            edges.append([])
            return entries.count - 1
        }
        for case .node(let source) in seen.sources {
            guard let from = number(source) else { continue }
            for edge in seen.dependencies[.node(source)] ?? [] where !edge.kind.isOnFirstRead {
                if case .node(let target) = edge.to, let to = number(target) {
                    edges[from].append(Edge(to: to, kind: edge.kind))
                }
            }
        }
    }

    /// The kind of the edge from `from` to `to`.
    func kind(from: Int, to: Int) -> ValidationRecorder.EdgeKind? {
        edges[from].first { $0.to == to }?.kind
    }

    /// Tarjan's strongly connected components, iteratively; only those that hold a cycle (two or more nodes, or a
    /// node with an edge to itself).
    func stronglyConnectedComponents() -> [[Int]] {
        var index = [Int](repeating: -1, count: entries.count)
        var lowLink = [Int](repeating: 0, count: entries.count)
        var onStack = [Bool](repeating: false, count: entries.count)
        var stack: [Int] = []
        var components: [[Int]] = []
        var counter = 0
        for start in entries.indices where index[start] < 0 {
            var work: [(node: Int, next: Int)] = [(start, 0)]
            index[start] = counter
            lowLink[start] = counter
            counter += 1
            stack.append(start)
            onStack[start] = true
            while let (node, next) = work.last {
                if next < edges[node].count {
                    work[work.count - 1].next += 1
                    let to = edges[node][next].to
                    if index[to] < 0 {
                        index[to] = counter
                        lowLink[to] = counter
                        counter += 1
                        stack.append(to)
                        onStack[to] = true
                        work.append((to, 0))
                    } else if onStack[to] {
                        lowLink[node] = min(lowLink[node], index[to])
                    }
                    continue
                }
                work.removeLast()
                if let parent = work.last?.node {
                    lowLink[parent] = min(lowLink[parent], lowLink[node])
                }
                guard lowLink[node] == index[node] else { continue }
                var component: [Int] = []
                while let member = stack.popLast() {
                    onStack[member] = false
                    component.append(member)
                    if member == node { break }
                }
                if component.count > 1 || edges[node].contains(where: { $0.to == node }) {
                    components.append(component.reversed())
                }
            }
        }
        return components
    }

    /// The shortest path from `start` to `goal` through `members` (every instance when `nil`), both included.
    func shortestPath(from start: Int, to goal: Int, within members: Set<Int>?) -> [Int]? {
        if start == goal { return [goal] }
        var previous: [Int: Int] = [start: start]
        var queue = [start]
        var head = 0
        while head < queue.count {
            let node = queue[head]
            head += 1
            for edge in edges[node] where members?.contains(edge.to) ?? true && previous[edge.to] == nil {
                previous[edge.to] = node
                if edge.to == goal {
                    var path = [goal]
                    var current = node
                    while current != start {
                        path.append(current)
                        current = previous[current]!
                    }
                    path.append(start)
                    return path.reversed()
                }
                queue.append(edge.to)
            }
        }
        return nil
    }
}
