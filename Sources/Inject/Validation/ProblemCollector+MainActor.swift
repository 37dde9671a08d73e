extension ProblemCollector {
    /// Registrations whose synchronous factory (or `resolveProperties`) asks for a `mainActorFactory` registration,
    /// without being one: they can be resolved only from the main actor, and a resolve from any other thread or task
    /// fails there. `validate()` builds on the calling thread, where that works, so this is judged from the edges.
    /// An error for an `.eager()` one, which `warmUp()` builds off the main actor, together with the synchronous
    /// builds its factory asks for, so that one reached through them fails as well; a warning for the others (only
    /// the one that asks directly: what resolves it is told by its own warning).
    ///
    /// A lazy wrapper (`@LazyInjected`, `@WeakInjected`) of such a service, held by a registration that is not one,
    /// is a warning too: its first read works only on the main actor, whichever thread reads it.
    mutating func addMainActorDependencies(in seen: ValidationRecorder.State) {
        let entriesByID = seen.entriesByID
        // A main-actor singleton warmUp() builds (it is eager, or an eager build awaits it) is read, not built, by
        // a synchronous resolve that comes after: from any thread. Worked out only if some registration needs one.
        var warmUp: WarmUpBuilds?
        let validated = recorder?.validated
        // A .scoped one counts only in the container whose warmUp() builds it: the one the asker reads it from.
        func isBuiltByWarmUp(_ node: ValidationRecorder.Node) -> Bool {
            if warmUp == nil {
                warmUp = seen.warmUpBuilds(validated: validated)
            }
            return warmUp?.keeps(node) == true
        }
        for case .node(let node) in seen.sources {
            guard let asker = entriesByID[node.entry], !asker.isMainActor, !asker.isForward,
                let edges = seen.dependencies[.node(node)]
            else { continue }
            if !asker.isAsync,
                let (needed, neededNode, through) = Self.mainActorDependency(
                    of: node,
                    edges: edges,
                    transitively: asker.isEager,
                    seen,
                    entriesByID
                )
            {
                // An eager asker is built by warmUp() itself, maybe before the main-actor service.
                guard asker.isEager || !isBuiltByWarmUp(neededNode) else { continue }
                add(mainActorProblem(asker, needs: needed, through: through, eager: asker.isEager))
            } else if let (needed, neededNode, weakly) = Self.lazyMainActorDependency(in: edges, seen, entriesByID),
                !isBuiltByWarmUp(neededNode)
            {
                add(lazyMainActorProblem(asker, needs: needed, weakly: weakly))
            }
        }
    }

    /// The first `mainActorFactory` registration a lazy wrapper of `node`'s instance reads (through `implements`
    /// forwards too), the instance it reads, and whether the wrapper is `@WeakInjected`.
    private static func lazyMainActorDependency(
        in edges: [ValidationRecorder.Edge],
        _ seen: ValidationRecorder.State,
        _ entriesByID: [ObjectIdentifier: EntryBase]
    ) -> (EntryBase, ValidationRecorder.Node, weakly: Bool)? {
        for edge in edges where edge.kind.isOnFirstRead {
            guard case .node(let target) = edge.to, let read = entriesByID[target.entry] else { continue }
            if read.isMainActor {
                return (read, target, edge.kind == .weak)
            }
            if read.isForward,
                let forwardEdges = seen.dependencies[.node(target)],
                let (forwarded, forwardedNode, _) = mainActorDependency(
                    of: target,
                    edges: forwardEdges,
                    transitively: false,
                    seen,
                    entriesByID
                )
            {
                return (forwarded, forwardedNode, edge.kind == .weak)
            }
        }
        return nil
    }

    private func lazyMainActorProblem(_ holder: EntryBase, needs needed: EntryBase, weakly: Bool) -> ValidationProblem {
        let wrapper = weakly ? "@WeakInjected" : "@LazyInjected"
        return ValidationProblem(
            severity: .warning,
            kind: .invalidRegistration,
            service: holder.label,
            location: holder.location,
            message: """
                \(holder.label) has a \(wrapper) property of \(needed.label), which is registered with mainActorFactory \
                and built on the main actor, but \(holder.label) is not: the property's first read works only on the \
                main actor, and a read from another thread or task fails.
                """,
            details: [
                """
                fix: register \(holder.label) with mainActorFactory too, if the app uses it on the main actor, or \
                read the property only from @MainActor code.
                """
            ]
        )
    }

    /// The first `mainActorFactory` registration that `node`'s build asks for synchronously, the instance it asks
    /// for, and the synchronous builds in between (none unless `transitively`); `implements` forwards are passed
    /// through.
    ///
    /// - Parameter edges: `node`'s own edges, looked up once by the caller.
    private static func mainActorDependency(
        of node: ValidationRecorder.Node,
        edges: [ValidationRecorder.Edge],
        transitively: Bool,
        _ seen: ValidationRecorder.State,
        _ entriesByID: [ObjectIdentifier: EntryBase]
    ) -> (EntryBase, ValidationRecorder.Node, through: [EntryBase])? {
        // Most builds ask for no main-actor service and no forward: one look at the edges, with nothing allocated.
        var mayReachOne = false
        for edge in edges where !edge.kind.isOnFirstRead {
            guard case .node(let target) = edge.to, let needed = entriesByID[target.entry] else { continue }
            if needed.isMainActor { return (needed, target, []) }
            if needed.isForward || (transitively && !needed.isAsync) {
                mayReachOne = true
            }
        }
        guard mayReachOne else { return nil }
        var visited: Set<ValidationRecorder.Node> = [node]
        var pending: [(node: ValidationRecorder.Node, through: [EntryBase])] = [(node, [])]
        var next = 0
        // Breadth first, so that the shortest route is the one named.
        while next < pending.count {
            let (node, through) = pending[next]
            next += 1
            for edge in seen.dependencies[.node(node)] ?? [] where !edge.kind.isOnFirstRead {
                guard case .node(let target) = edge.to, let needed = entriesByID[target.entry] else { continue }
                if needed.isMainActor { return (needed, target, through) }
                guard visited.insert(target).inserted else { continue }
                if needed.isForward {
                    pending.append((target, through))
                } else if transitively, !needed.isAsync {
                    pending.append((target, through + [needed]))
                }
            }
        }
        return nil
    }

    private func mainActorProblem(
        _ asker: EntryBase,
        needs needed: EntryBase,
        through: [EntryBase],
        eager: Bool
    ) -> ValidationProblem {
        let consequence =
            eager
            ? "it is .eager(), and warmUp() builds synchronous factories off the main actor, where that resolve fails"
            : "it can be resolved only from the main actor: a resolve from another thread or task fails"
        let message: String
        let fix: String
        if through.isEmpty {
            message = """
                \(asker.label) resolves \(needed.label), which is registered with mainActorFactory and built on the \
                main actor, but \(asker.label) is not: \(consequence).
                """
            fix = """
                fix: register \(asker.label) with mainActorFactory too, or resolve \(needed.label) with \
                r.resolveAsync from an async factory (which hops to the main actor)\(eager ? ", or remove .eager()" : "").
                """
        } else {
            let between = through.map(\.label).joined(separator: " and ")
            message = """
                \(asker.label) resolves \(needed.label) through \(between); \(needed.label) is registered with \
                mainActorFactory and built on the main actor, but \(asker.label) and \(between) are not: \(consequence).
                """
            fix = """
                fix: register \(asker.label) and \(between) with mainActorFactory too, or remove .eager() and resolve \
                \(asker.label) from @MainActor code after warmUp().
                """
        }
        return ValidationProblem(
            severity: eager ? .error : .warning,
            kind: .invalidRegistration,
            service: asker.label,
            location: asker.location,
            message: message,
            details: [fix]
        )
    }
}
