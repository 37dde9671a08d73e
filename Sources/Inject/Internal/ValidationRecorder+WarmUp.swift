/// What `warmUp()` would build, judged from what a validation recorded: which synchronous reads of async services
/// find them built at run time, and which reads may come before they are.
struct WarmUpBuilds {
    /// The registrations whose builds `warmUp()` runs, whatever their scope.
    var run: Set<ObjectIdentifier> = []
    /// The registrations whose instance `warmUp()` builds and keeps for later reads: one per registration.
    var kept: Set<ObjectIdentifier> = []
    /// The `.scoped` instances it builds and keeps, each in its container: one per registration and container.
    var keptScoped: Set<ValidationRecorder.Node> = []

    /// Whether `node`'s instance is built and kept, for a read that comes after `warmUp()`.
    func keeps(_ node: ValidationRecorder.Node) -> Bool {
        kept.contains(node.entry) || keptScoped.contains(node)
    }
}

extension ValidationRecorder.State {
    /// What `warmUp()` on `validated` builds: its eager registrations and those of its parents (a `.scoped` one only
    /// when `validated` is a child: a root's `warmUp()` leaves those to its children), and what their builds ask
    /// for, through every request but lazy reads, in the order they asked. A synchronous read of an async
    /// registration builds nothing: it fails the build that made it, and what that build would have asked for next,
    /// unless the registration is built by then; `warmUp()` tries such builds again, in waves, as long as a wave
    /// builds more. With `holder`, that build too.
    func warmUpBuilds(validated: DIContainer?, holder: ValidationRecorder.Source? = nil) -> WarmUpBuilds {
        var simulation = WarmUpSimulation(self)
        let validatedID = validated.map(ObjectIdentifier.init)
        let validatedIsChild = validated?.parent != nil
        // Every eager registration, asked for by anything or not; a .scoped one in the validated child.
        func builtByWarmUp(_ node: ValidationRecorder.Node, _ entry: EntryBase) -> Bool {
            entry.isEager && (entry.scope != .scoped || (validatedIsChild && node.home == validatedID))
        }
        var seeds: [ValidationRecorder.Source] = []
        var seeded: Set<ObjectIdentifier> = []
        for case .node(let node) in sources {
            if let entry = simulation.entriesByID[node.entry], builtByWarmUp(node, entry) {
                seeds.append(.node(node))
                seeded.insert(node.entry)
            }
        }
        if let holder {
            seeds.append(holder)
        }
        // An eager registration that asked for nothing is built at once.
        for entry in entries where entry.isEager && !seeded.contains(ObjectIdentifier(entry)) {
            let node = ValidationRecorder.Node(
                entry: ObjectIdentifier(entry),
                home: validatedID ?? ObjectIdentifier(entry)
            )
            if builtByWarmUp(node, entry) {
                simulation.builds.run.insert(node.entry)
                _ = simulation.builds.keep(node, simulation.entriesByID)
            }
        }
        simulation.run(seeds)
        return simulation.builds
    }
}

/// `warmUp()`'s builds replayed on what a validation recorded: see ``ValidationRecorder/State/warmUpBuilds(validated:holder:)``.
private struct WarmUpSimulation {
    let state: ValidationRecorder.State
    let entriesByID: [ObjectIdentifier: EntryBase]
    var builds = WarmUpBuilds()
    /// Whether each build of the wave under way got through: set before its requests, so that a cycle closed by
    /// `resolveProperties` comes back to a build that goes on.
    private var wave: [ValidationRecorder.Source: Bool] = [:]
    private var grew = false

    init(_ state: ValidationRecorder.State) {
        self.state = state
        entriesByID = state.entriesByID
    }

    /// Builds `seeds`, wave after wave, until a wave builds nothing more.
    mutating func run(_ seeds: [ValidationRecorder.Source]) {
        repeat {
            grew = false
            wave.removeAll(keepingCapacity: true)
            for seed in seeds where build(seed) {
                if case .node(let node) = seed {
                    grew = builds.keep(node, entriesByID) || grew
                }
            }
        } while grew
    }

    /// Whether `source`'s build gets through, its requests in the order it made them.
    private mutating func build(_ source: ValidationRecorder.Source) -> Bool {
        if let known = wave[source] { return known }
        wave[source] = true
        if case .node(let node) = source {
            builds.run.insert(node.entry)
        }
        for edge in state.dependencies[source] ?? [] where !edge.kind.isOnFirstRead {
            guard case .node(let target) = edge.to, let entry = entriesByID[target.entry] else { continue }
            let key = ValidationRecorder.EdgeKey(source: source, target: edge.to)
            if entry.isAsync, state.readFirstEdges.contains(key) || !state.awaitedEdges.contains(key) {
                // A synchronous read: it gets an instance built before, or one this build awaited.
                if builds.keeps(target) || (!state.readFirstEdges.contains(key) && awaited(entry, by: source)) {
                    continue
                }
                wave[source] = false
                return false
            }
            guard build(.node(target)) else {
                wave[source] = false
                return false
            }
            grew = builds.keep(target, entriesByID) || grew
        }
        return true
    }

    /// Whether `source`'s build awaited `entry` (in any container).
    private func awaited(_ entry: EntryBase, by source: ValidationRecorder.Source) -> Bool {
        (state.dependencies[source] ?? []).contains { edge in
            guard case .node(let target) = edge.to, target.entry == ObjectIdentifier(entry) else { return false }
            return state.awaitedEdges.contains(ValidationRecorder.EdgeKey(source: source, target: edge.to))
        }
    }
}

extension WarmUpBuilds {
    /// Records that `node`'s instance is built: kept, unless its scope keeps nothing. Returns whether it is new.
    fileprivate mutating func keep(
        _ node: ValidationRecorder.Node,
        _ entriesByID: [ObjectIdentifier: EntryBase]
    ) -> Bool {
        switch entriesByID[node.entry]?.scope {
        // A .weak instance lives only while something holds it: no later read can count on it.
        case .graph?, .transient?, .weak?, nil: false
        case .scoped?: keptScoped.insert(node).inserted
        default: kept.insert(node.entry).inserted
        }
    }
}
