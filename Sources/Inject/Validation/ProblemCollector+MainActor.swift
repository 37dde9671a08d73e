extension ProblemCollector {
    /// Registrations whose synchronous factory (or `resolveProperties`) asks for a `mainActorFactory` registration,
    /// without being one: they can be resolved only from the main actor, and a resolve from any other thread or task
    /// fails there. `validate()` builds on the calling thread, where that works, so this is judged from the edges.
    /// An error for an `.eager()` one, which `warmUp()` builds off the main actor; a warning for the others.
    mutating func addMainActorDependencies(in seen: ValidationRecorder.State) {
        let entriesByID = seen.entriesByID
        for case .node(let node) in seen.sources {
            guard let asker = entriesByID[node.entry], !asker.isMainActor, !asker.isAsync, !asker.isForward else {
                continue
            }
            for edge in seen.dependencies[.node(node)] ?? [] where !edge.kind.isOnFirstRead {
                guard case .node(let target) = edge.to, let needed = entriesByID[target.entry],
                    needed.isMainActor || (needed.isForward && Self.forwardsToMainActor(target, seen, entriesByID))
                else { continue }
                add(mainActorProblem(asker, needs: needed, eager: asker.isEager))
                break
            }
        }
    }

    /// Whether the `implements` forward at `node` leads to a `mainActorFactory` registration.
    private static func forwardsToMainActor(
        _ node: ValidationRecorder.Node,
        _ seen: ValidationRecorder.State,
        _ entriesByID: [ObjectIdentifier: EntryBase]
    ) -> Bool {
        (seen.dependencies[.node(node)] ?? []).contains { edge in
            guard case .node(let target) = edge.to else { return false }
            return entriesByID[target.entry]?.isMainActor == true
        }
    }

    private func mainActorProblem(_ asker: EntryBase, needs needed: EntryBase, eager: Bool) -> ValidationProblem {
        let consequence =
            eager
            ? "it is .eager(), and warmUp() builds synchronous factories off the main actor, where that resolve fails"
            : "it can be resolved only from the main actor: a resolve from another thread or task fails"
        return ValidationProblem(
            severity: eager ? .error : .warning,
            kind: .invalidRegistration,
            service: asker.label,
            location: asker.location,
            message: """
                \(asker.label) resolves \(needed.label), which is registered with mainActorFactory and built on the \
                main actor, but \(asker.label) is not: \(consequence).
                """,
            details: [
                """
                fix: register \(asker.label) with mainActorFactory too, or resolve \(needed.label) with \
                r.resolveAsync from an async factory (which hops to the main actor)\(eager ? ", or remove .eager()" : "").
                """
            ]
        )
    }
}
