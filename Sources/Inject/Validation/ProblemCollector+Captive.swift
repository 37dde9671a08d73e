extension ProblemCollector {
    /// Captive dependencies: a `.singleton`, `.cached`, `.scoped`, `.weak` or custom-scope instance that holds an
    /// instance whose life can end while the holder goes on, so that the holder keeps a stale one.
    ///
    /// Lifetimes are compared, not scope names. An instance lives in a container (a `.scoped` one in the container
    /// that resolved it, every other caching scope in its registration's container) and ends with that container,
    /// or earlier when `reset` drops its scope there. The held instance's life can end first when:
    /// - it lives in a child of the holder's container (the child scope ends, the holder goes on);
    /// - it is `.cached` or custom-scope and a `reset` that spares the holder drops it: another scope, or the same
    ///   scope in another container;
    /// - it is `.scoped` and the holder is application-wide (in a root container): a `.scoped` service is one per
    ///   child scope, so an application-wide holder keeps one that no child scope shares and that outlives them.
    /// A `.singleton` in a session child that holds that child's `.scoped` service lives and dies with the same
    /// child: not flagged.
    ///
    /// What an instance "holds" is what its factory, `resolveProperties` and property wrappers asked for, seen through
    /// `implements` forwards (which count with the registration they forward to) and through the `.transient`,
    /// `.graph` and `.weak` instances it asked for, which it holds (a `.weak` one lives as long as the holder keeps
    /// it, and hands what it holds to everyone who resolves it meanwhile). Holding a `.transient`, `.graph` or
    /// `.weak` instance is not itself flagged: those are built fresh by design, and flagging them buries the real
    /// finding under dozens of warnings in every real app. What a `@WeakInjected` property holds, the holder does
    /// not keep alive: when its life ends the property reads `nil`, not a stale instance, so it is flagged only when
    /// the holder reads an instance that is not the one its child scopes share.
    mutating func addCaptiveDependencies(in seen: ValidationRecorder.State) {
        let entriesByID = seen.entriesByID
        for case .node(let holderNode) in seen.sources {
            guard let holder = entriesByID[holderNode.entry], !holder.isForward, Self.canCapture(holder.scope),
                let holderHome = seen.containers[holderNode.home]
            else {
                continue
            }
            var visited: Set<ValidationRecorder.Node> = [holderNode]
            var pending: [(node: ValidationRecorder.Node, via: [EntryBase], weakly: Bool)] = [(holderNode, [], false)]
            while let (node, via, weakly) = pending.popLast() {
                for edge in seen.dependencies[.node(node)] ?? [] {
                    guard case .node(let target) = edge.to, visited.insert(target).inserted,
                        let held = entriesByID[target.entry]
                    else { continue }
                    let weakly = weakly || edge.kind == .weak
                    if held.isForward || held.scope == .transient || held.scope == .graph || held.scope == .weak {
                        pending.append((target, via + [held], weakly))
                    } else if let home = seen.containers[target.home],
                        let ending = Self.ending(
                            of: held,
                            builtIn: home,
                            heldBy: holder,
                            builtIn: holderHome,
                            weakly: weakly
                        )
                    {
                        addCaptive(holder: holder, held: held, via: via, ending: ending)
                    }
                }
            }
        }
    }

    /// Scopes whose instances outlive a reset of another scope: the ones a captive dependency can be held by. A
    /// `.weak` instance is one of them: while anyone holds it, every resolve gets it, with what it holds.
    private static func canCapture(_ scope: Scope) -> Bool {
        switch scope.kind {
        case .singleton, .cached, .custom, .scoped, .weak: true
        case .transient, .graph: false
        }
    }

    /// How `held`, built in `home`, can end while `holder` goes on, in words; `nil` when it cannot, or when the
    /// holder holds it `weakly` (through `@WeakInjected`) and so reads `nil` once it ends.
    private static func ending(
        of held: EntryBase,
        builtIn home: DIContainer,
        heldBy holder: EntryBase,
        builtIn holderHome: DIContainer,
        weakly: Bool
    ) -> String? {
        let scope = held.scope
        // The container each instance lives in: a `.scoped` one in the container that resolved it, the other
        // caching scopes in the registering container.
        let heldContainer = scope == .scoped ? home : held.owner
        let holderContainer = holder.scope == .scoped ? holderHome : holder.owner
        let endsWithAChild = heldContainer !== holderContainer && heldContainer.isOrDescends(from: holderContainer)
        switch scope.kind {
        case .transient, .graph, .weak:
            return nil
        case .singleton:
            return endsWithAChild && !weakly
                ? "when the child scope that holds \(held.label) ends, \(holder.label) still holds it" : nil
        case .scoped:
            if endsWithAChild {
                return weakly
                    ? nil : "when the child scope that made \(held.label) ends, \(holder.label) still holds it"
            }
            // Two `.scoped` instances of the same container live and end together.
            guard holder.scope != .scoped, heldContainer === holderContainer, holderContainer.parent == nil else {
                return nil
            }
            if weakly {
                return """
                    \(held.label) is .scoped, one per child scope, but \(holder.label) is application-wide: it reads the \
                    root container's own \(held.label), which no child scope shares
                    """
            }
            return """
                \(held.label) is .scoped, one per child scope, but \(holder.label) is application-wide: it holds the \
                root container's own \(held.label), which no child scope shares, and a reset(.scoped) of the root \
                leaves it with a stale one
                """
        case .cached, .custom:
            if weakly { return nil }
            if endsWithAChild {
                return "when the child scope that holds \(held.label) ends, \(holder.label) still holds it"
            }
            guard scope != holder.scope || heldContainer !== holderContainer else { return nil }
            let whose = heldContainer === holderContainer ? "" : " on the container that registers \(held.label)"
            return "after reset(\(scope))\(whose), \(holder.label) still holds the stale \(held.label)"
        }
    }

    private mutating func addCaptive(holder: EntryBase, held: EntryBase, via: [EntryBase], ending: String) {
        let through = via.map { step in
            step.isForward ? "as \(step.label) (implements)" : "through \(step.label) (\(step.scope))"
        }
        let route = through.isEmpty ? "" : " " + through.joined(separator: ", ")
        // What the holder's factory asked for: the protocol of an `implements` forward, or the service itself.
        let asked = via.first?.label ?? held.label
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
                    Self.captiveFix(holder: holder, held: held, asked: asked),
                ]
            ),
            key: "captive:\(holder.location):\(held.location)"
        )
    }

    /// The fix line of a captive dependency: how `holder` can stop keeping `held` (asked for as `asked`).
    private static func captiveFix(holder: EntryBase, held: EntryBase, asked: String) -> String {
        let resolveEachTime = """
            let it resolve \(asked) each time it needs one (inject a closure that resolves it) instead of holding an \
            instance
            """
        if held.scope == .scoped {
            // A closure made in the holder's factory resolves through the holder's container, whose `.scoped`
            // instance is not the child's: it would hand out the wrong one, not a fresh one.
            return """
                fix: give \(holder.label) the scope .scoped too, or pass \(asked) to the methods that need it, from \
                code that resolves it through the child container (a session's, a request's).
                """
        }
        if holder.scope == .scoped {
            // One per child scope: giving it the held service's scope would make it shared.
            return """
                fix: keep \(holder.label) .scoped (one per child scope) and \(resolveEachTime); or, if whatever \
                renews \(held.label) ends the child scopes too, release them with it.
                """
        }
        if holder.scope == held.scope {
            // Same scope, other containers: a reset of one spares the other.
            return """
                fix: register \(holder.label) in the container that registers \(held.label), so that one reset drops \
                both, or \(resolveEachTime).
                """
        }
        return "fix: give \(holder.label) the scope \(held.scope) too, or \(resolveEachTime)."
    }
}
