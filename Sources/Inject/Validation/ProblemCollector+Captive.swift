extension ProblemCollector {
    /// Captive dependencies: a `.singleton`, `.cached` or custom-scope service that holds a service whose lifetime is
    /// ended explicitly and differs from its own (a `.cached` or custom-scope one, which `reset` renews, or a
    /// `.scoped` one, which dies with its child scope). After the reset, the holder keeps the stale instance.
    ///
    /// What a service "holds" is what its factory asked for, including `@Injected` properties initialised during the
    /// build, seen through `implements` forwards (which count with the scope of the registration they forward to)
    /// and through the `.transient` and `.graph` services it asked for, which are made for it and held by it. Holding
    /// a `.transient`, `.graph` or `.weak` service is not itself flagged: those are built fresh by design, and flagging
    /// them buries the real finding under dozens of warnings in every real app.
    mutating func addCaptiveDependencies(in seen: ValidationRecorder.State) {
        var entriesByID: [ObjectIdentifier: EntryBase] = [:]
        for entry in seen.entries {
            entriesByID[ObjectIdentifier(entry)] = entry
        }
        for holder in seen.entries where !holder.isForward && Self.canCapture(holder.scope) {
            var visited: Set<ObjectIdentifier> = [ObjectIdentifier(holder)]
            var pending: [(id: ObjectIdentifier, via: [EntryBase])] = [(ObjectIdentifier(holder), [])]
            while let (id, via) = pending.popLast() {
                for case .entry(let dependencyID) in seen.dependencies[id] ?? [] {
                    guard visited.insert(dependencyID).inserted, let dependency = entriesByID[dependencyID] else {
                        continue
                    }
                    if dependency.isForward || dependency.scope == .transient || dependency.scope == .graph {
                        pending.append((dependencyID, via + [dependency]))
                    } else if dependency.scope.endsExplicitly, dependency.scope != holder.scope {
                        addCaptive(holder: holder, held: dependency, via: via)
                    }
                }
            }
        }
    }

    /// Scopes whose instances outlive a reset of another scope: the ones a captive dependency can be held by.
    private static func canCapture(_ scope: Scope) -> Bool {
        switch scope.kind {
        case .singleton, .cached, .custom: true
        case .transient, .graph, .weak, .scoped: false
        }
    }

    private mutating func addCaptive(holder: EntryBase, held: EntryBase, via: [EntryBase]) {
        let through = via.map { step in
            step.isForward ? "as \(step.label) (implements)" : "through \(step.label) (\(step.scope))"
        }
        let route = through.isEmpty ? "" : " " + through.joined(separator: ", ")
        // What the holder's factory asked for: the protocol of an `implements` forward, or the service itself.
        let asked = via.first?.label ?? held.label
        let ending =
            held.scope == .scoped
            ? "when the child scope that made \(held.label) ends, \(holder.label) still holds it"
            : "after reset(\(held.scope)), \(holder.label) still holds the stale \(held.label)"
        add(
            ValidationProblem(
                severity: .warning,
                kind: .captiveDependency,
                service: holder.label,
                location: holder.location,
                message: """
                    captive dependency: \(holder.label) (\(holder.scope)) holds \(held.label) (\(held.scope))\
                    \(route).
                    """,
                details: [
                    "\(ending).",
                    "\(held.label) is registered at \(held.location).",
                    """
                    fix: give \(holder.label) the scope \(held.scope) too, or let it resolve \(asked) each time it \
                    needs one (inject a closure that resolves it) instead of holding an instance.
                    """,
                ]
            ),
            key: "captive:\(holder.location):\(held.location)"
        )
    }
}
