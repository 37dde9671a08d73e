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
    /// for, through every request but lazy reads; an async registration only where a build awaited it, as a
    /// synchronous read does not build it. With `holder`, what that build asked for too.
    func warmUpBuilds(validated: DIContainer?, holder: ValidationRecorder.Source? = nil) -> WarmUpBuilds {
        let entriesByID = entriesByID
        let validatedID = validated.map(ObjectIdentifier.init)
        let validatedIsChild = validated?.parent != nil
        // Every eager registration, asked for by anything or not; a .scoped one in the validated child.
        func builtByWarmUp(_ node: ValidationRecorder.Node, _ entry: EntryBase) -> Bool {
            entry.isEager && (entry.scope != .scoped || (validatedIsChild && node.home == validatedID))
        }
        var builds = WarmUpBuilds()
        for entry in entries where entry.isEager {
            let node = ValidationRecorder.Node(
                entry: ObjectIdentifier(entry),
                home: validatedID ?? ObjectIdentifier(entry)
            )
            if builtByWarmUp(node, entry) {
                builds.run.insert(node.entry)
                builds.keep(node, entriesByID)
            }
        }
        var pending: [ValidationRecorder.Source] = sources.filter { source in
            guard case .node(let node) = source, let entry = entriesByID[node.entry] else { return false }
            return builtByWarmUp(node, entry)
        }
        if let holder {
            pending.append(holder)
        }
        var visited = Set(pending)
        while let source = pending.popLast() {
            if case .node(let node) = source {
                builds.run.insert(node.entry)
            }
            for edge in dependencies[source] ?? [] where !edge.kind.isOnFirstRead {
                guard case .node(let target) = edge.to, let entry = entriesByID[target.entry] else { continue }
                // A synchronous read of an async registration fails until something else built it.
                if entry.isAsync, !awaitedEdges.contains(ValidationRecorder.EdgeKey(source: source, target: edge.to)) {
                    continue
                }
                builds.keep(target, entriesByID)
                if visited.insert(.node(target)).inserted {
                    pending.append(.node(target))
                }
            }
        }
        return builds
    }
}

extension WarmUpBuilds {
    /// Records that `node`'s instance is built: kept, unless its scope keeps nothing.
    fileprivate mutating func keep(_ node: ValidationRecorder.Node, _ entriesByID: [ObjectIdentifier: EntryBase]) {
        switch entriesByID[node.entry]?.scope {
        // A .weak instance lives only while something holds it: no later read can count on it.
        case .graph?, .transient?, .weak?, nil: break
        case .scoped?: keptScoped.insert(node)
        default: kept.insert(node.entry)
        }
    }
}
