extension DIContainer {
    /// Builds every registration of this container and its ancestors, and throws when any of them is broken.
    ///
    /// Call it at startup in debug builds, or in a test (`assertValid` in InjectTesting):
    ///
    /// ```swift
    /// #if DEBUG
    /// try DIContainer.shared.validate()
    /// #endif
    /// ```
    ///
    /// - Throws: ``ValidationError`` listing every problem (see ``validationReport()``) when at least one is an
    ///   error; warnings alone do not throw.
    public func validate() throws {
        let report = validationReport()
        guard report.isValid else { throw ValidationError(report: report) }
    }

    /// Builds every registration of this container and its ancestors and reports every problem at once.
    ///
    /// Each registration (each type and name, `implements` forwards included) is built as a resolve through this
    /// container would build it, inside a throwaway scope: no instance built here survives, so a singleton is built
    /// again on its first real resolve, and every container's caches are as they were. Reported, all in one pass:
    /// missing registrations, cycles, factories that throw (errors); argument registrations without a
    /// ``Registration/validationArgument(_:)``, captive dependencies and factories slower than 50 ms (warnings).
    ///
    /// > Important: Call it outside any factory, on the thread that owns the composition root (the main actor, if
    /// > you register `mainActorFactory` services: off it they are reported as not built). Factories that hand
    /// > work to GCD queues resolve there outside the throwaway scope.
    ///
    /// - Returns: The problems, how many registrations were built, their build times, and the dependency graph.
    public func validationReport() -> ValidationReport {
        let recorder = ValidationRecorder()
        let overlay = Overlay(target: nil, registry: nil, outer: Overlay.active(), recorder: recorder)
        let onMainActor = MainActorFactory.isOnMainActor
        var problems = ProblemCollector()
        var checkedCount = 0
        overlay.activated {
            for (container, entry) in registrationsToValidate() {
                if let skipped = ProblemCollector.notBuilt(entry, onMainActor: onMainActor) {
                    problems.add(skipped)
                    continue
                }
                checkedCount += 1
                do {
                    try build(entry, owner: container, under: overlay)
                } catch let error as ResolutionError {
                    problems.add(error, building: entry)
                } catch {
                    problems.add(ResolutionContext.current.wrap(error, from: entry, stage: .factory), building: entry)
                }
            }
        }
        let seen = recorder.snapshot
        problems.addCaptiveDependencies(in: seen)
        problems.addSlowFactories(in: seen)
        return ValidationReport(
            problems: problems.sorted,
            checkedCount: checkedCount,
            buildTimes: Self.buildTimes(in: seen),
            graph: DependencyGraph(seen)
        )
    }

    /// Every current registration of this container and its ancestors, each with its container, in registration
    /// order per container (by file and line), this container first.
    private func registrationsToValidate() -> [(DIContainer, EntryBase)] {
        var result: [(DIContainer, EntryBase)] = []
        for container in lineage {
            // Sort keys made once per entry; the label (a type's description, not cheap) only breaks ties, such as
            // an `implements` forward on the line of its registration.
            let keyed = container.table.entries().map { (file: "\($0.file)", line: $0.line, entry: $0) }
            let sorted = keyed.sorted { lhs, rhs in
                if lhs.file != rhs.file { return lhs.file < rhs.file }
                if lhs.line != rhs.line { return lhs.line < rhs.line }
                return lhs.entry.label < rhs.entry.label
            }
            result += sorted.map { (container, $0.entry) }
        }
        return result
    }

    /// Builds `entry` as a top-level resolve through this container under `overlay`.
    private func build(_ entry: EntryBase, owner: DIContainer, under overlay: Overlay) throws {
        try ResolutionContext.withCurrent { context in
            precondition(
                !context.isResolving,
                """
                Inject: validate() was called while a resolve is under way on this thread (from a factory, a \
                resolveProperties closure or an @Injected initialiser).
                  fix: call validate() at startup or in a test, outside any factory.
                """
            )
            context.beginTopLevel(.resolver(overlay))
            defer { context.endTopLevel() }
            try entry.validate(in: context, owner: owner, through: self)
        }
    }

    private static func buildTimes(in seen: ValidationRecorder.State) -> [ValidationReport.BuildTime] {
        seen.entries.compactMap { entry in
            seen.buildNanoseconds[ObjectIdentifier(entry)].map {
                ValidationReport.BuildTime(service: entry.label, location: entry.location, nanoseconds: $0)
            }
        }
        .sorted { $0.nanoseconds > $1.nanoseconds }
    }
}

extension DependencyGraph {
    /// The graph of what a validation saw: its registrations in the order first seen, then the missing services.
    init(_ seen: ValidationRecorder.State) {
        var index: [ValidationRecorder.Target: Int] = [:]
        for entry in seen.entries {
            index[.entry(ObjectIdentifier(entry))] = nodes.count
            nodes.append(Node(service: entry.label, scope: entry.isForward ? "implements" : entry.scope.description))
        }
        for service in seen.missing {
            index[.missing(service)] = nodes.count
            nodes.append(Node(service: service, scope: nil))
        }
        for entry in seen.entries {
            let from = index[.entry(ObjectIdentifier(entry))]!
            for target in seen.dependencies[ObjectIdentifier(entry)] ?? [] {
                if let to = index[target] {
                    edges.append(Edge(from: from, to: to))
                }
            }
        }
    }
}
