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
        try validate(roots: [])
    }

    /// Validates like ``validate()``, and also builds objects nobody registers, such as screens and view
    /// controllers made with `init()`, so that their property wrappers' dependencies are checked too.
    ///
    /// ```swift
    /// try DIContainer.shared.validate(building: { HomeScreen() }, { CartScreen() })
    /// ```
    ///
    /// - Parameter roots: Closures that each make one such object. Each runs once, on the calling thread, inside
    ///   the same throwaway scope as the registrations: its wrappers' edges and problems join the report and the
    ///   graph, and nothing it builds survives.
    /// - Throws: ``ValidationError`` when the report has at least one error.
    public func validate(building roots: (() -> Any)...) throws {
        try validate(roots: roots)
    }

    /// Builds every registration of this container and its ancestors and reports every problem at once.
    ///
    /// Each registration (each type and name, `implements` forwards included) is built as a resolve through this
    /// container would build it, inside a throwaway scope: no instance built here survives, so a singleton is built
    /// again on its first real resolve, and every container's caches are as they were. Reported, all in one pass:
    /// missing registrations, cycles (also those that only fail when one particular service is resolved first),
    /// factories that throw, property wrappers that cannot resolve (errors); argument registrations without a
    /// ``Registration/validationArgument(_:)``, captive dependencies and factories slower than 50 ms (warnings).
    /// The dependencies of `@LazyInjected` and `@WeakInjected` properties are resolved too, after the build that
    /// made them, as their first read would.
    ///
    /// > Important: Call it outside any factory, on the thread that owns the composition root (the main actor, if
    /// > you register `mainActorFactory` services: off it they are reported as not built). A factory that traps
    /// > (through ``resolve(_:name:file:line:)`` rather than its ``DIResolver``) stops it like any trap; property
    /// > wrappers do not: under validation they keep their failure and validation goes on.
    ///
    /// - Returns: The problems, how many registrations were built, their build times, and the dependency graph.
    public func validationReport() -> ValidationReport {
        makeValidationReport(roots: [])
    }

    /// Reports like ``validationReport()``, and also builds objects nobody registers, such as screens made with
    /// `init()`, so that their property wrappers' dependencies are checked and drawn.
    ///
    /// - Parameter roots: Closures that each make one such object. Each runs once, on the calling thread, inside the
    ///   throwaway scope; the graph shows each as a node named after the type it returned.
    public func validationReport(building roots: (() -> Any)...) -> ValidationReport {
        makeValidationReport(roots: roots)
    }

    private func validate(roots: [() -> Any]) throws {
        let report = makeValidationReport(roots: roots)
        guard report.isValid else { throw ValidationError(report: report) }
    }

    /// ``validationReport(building:)`` with the roots in an array, for InjectTesting's helpers, which take them as
    /// a variadic parameter of their own. `package` access: not public API.
    package func validationReport(roots: [() -> Any]) -> ValidationReport {
        makeValidationReport(roots: roots)
    }

    private func makeValidationReport(roots: [() -> Any]) -> ValidationReport {
        ResolutionContext.requireOutsideResolutionToValidate("validate() (or validationReport())", of: self)
        var validation = Validation(of: self, buildsAsync: false)
        validation.overlay.activated {
            for (container, entry) in validation.registrations {
                guard validation.shouldBuild(entry, in: container) else { continue }
                do {
                    try build(entry, owner: container, under: validation.overlay)
                } catch {
                    validation.problems.add(
                        ResolutionContext.current.wrap(error, from: entry, stage: .factory),
                        building: entry
                    )
                }
                validation.checkLazyDependencies()
            }
            validation.build(roots)
        }
        return validation.report()
    }

    /// Builds every registration of this container and its ancestors, async factories included, and throws when any
    /// of them is broken: ``validate()`` for an app with async registrations.
    ///
    /// ```swift
    /// @Test func wiringIsValid() async throws {
    ///     try await AppComposition.makeContainer().validateAsync()
    /// }
    /// ```
    ///
    /// - Throws: ``ValidationError`` when the report (see ``validationReportAsync()``) has at least one error.
    public func validateAsync() async throws {
        try await validateAsync(roots: [])
    }

    /// Validates like ``validateAsync()``, and also builds objects nobody registers, such as screens made with
    /// `init()`, as ``validate(building:)`` does.
    ///
    /// - Parameter roots: Closures that each make one such object, run once each on the main actor (where an app
    ///   makes its screens, `@MainActor` ones included), inside the throwaway scope, after the registrations are
    ///   built.
    /// - Throws: ``ValidationError`` when the report has at least one error.
    public func validateAsync(building roots: (@MainActor () -> Any)...) async throws {
        try await validateAsync(roots: roots)
    }

    private func validateAsync(roots: [@MainActor () -> Any]) async throws {
        let report = await makeValidationReportAsync(roots: roots)
        guard report.isValid else { throw ValidationError(report: report) }
    }

    /// Reports like ``validationReport()``, building async factories too, in the same throwaway scope, with the same
    /// report, graph and captive rules.
    ///
    /// Async registrations are built first, so that a synchronous factory that reads one finds it built, as it would
    /// after ``warmUp()``. A synchronous request for an async registration that is still not built after that (one
    /// whose scope does not cache) is an error: no start-up can make it work. A `mainActorFactory` registration is
    /// built on the main actor, after the async ones and before the other synchronous ones.
    ///
    /// - Returns: The problems, how many registrations were built, their build times, and the dependency graph.
    public func validationReportAsync() async -> ValidationReport {
        await makeValidationReportAsync(roots: [])
    }

    /// Reports like ``validationReportAsync()``, and also builds objects nobody registers, as
    /// ``validationReport(building:)`` does.
    ///
    /// - Parameter roots: Closures that each make one such object, run once each on the main actor, after the
    ///   registrations are built.
    public func validationReportAsync(building roots: (@MainActor () -> Any)...) async -> ValidationReport {
        await makeValidationReportAsync(roots: roots)
    }

    /// ``validationReportAsync(building:)`` with the roots in an array, for InjectTesting's helpers. `package` access.
    package func validationReportAsync(roots: [@MainActor () -> Any]) async -> ValidationReport {
        await makeValidationReportAsync(roots: roots)
    }

    private func makeValidationReportAsync(roots: [@MainActor () -> Any]) async -> ValidationReport {
        ResolutionContext.requireOutsideResolutionToValidate("validateAsync() (or validationReportAsync())", of: self)
        var validation = Validation(of: self, buildsAsync: true)
        // Async registrations first, as warmUp() builds them before the synchronous reads it retries; then the
        // main-actor ones, built on the main actor, so that a synchronous factory that validation runs off it (where
        // the app may not) finds them built, whatever the order of registration (its read is judged from the edges).
        let ordered =
            validation.registrations.filter { $0.1.isAsync }
            + validation.registrations.filter { !$0.1.isAsync && $0.1.isMainActor }
            + validation.registrations.filter { !$0.1.isAsync && !$0.1.isMainActor }
        await validation.overlay.activated {
            for (container, entry) in ordered {
                guard validation.shouldBuild(entry, in: container) else { continue }
                let resolution = AsyncResolution(overlay: validation.overlay, top: self)
                do {
                    try await entry.buildAsync(
                        in: resolution,
                        owner: container,
                        through: self,
                        argument: entry.validationSample(in: container, through: self)
                    )
                } catch {
                    validation.problems.add(
                        ResolutionContext.current.wrap(error, from: entry, stage: .factory),
                        building: entry
                    )
                }
                resolution.finish()
                // A lazy property is first read after warmUp() built the eager async services: its reads wait until
                // every async registration is built here too, whatever the order of registration.
                if !entry.isAsync {
                    validation.checkLazyDependencies()
                }
            }
            validation.checkLazyDependencies()
            await validation.buildOnTheMainActor(roots)
        }
        return validation.report()
    }

    /// One validation run: its throwaway overlay and recorder, the registrations to build, and the problems found.
    private struct Validation {
        let recorder: ValidationRecorder
        let overlay: Overlay
        let registrations: [(DIContainer, EntryBase)]
        /// The validated container and its ancestors.
        let containers: [DIContainer]
        var problems: ProblemCollector
        var checkedCount = 0
        private let onMainActor = MainActorFactory.isOnMainActor

        init(of container: DIContainer, buildsAsync: Bool) {
            registrations = Self.underOverrides(container.registrationsToValidate(), through: container)
            recorder = ValidationRecorder(
                buildsAsync: buildsAsync,
                registrations: registrations.count,
                validated: container
            )
            overlay = Overlay(target: nil, registry: nil, outer: Overlay.active(), recorder: recorder)
            containers = Array(container.lineage)
            problems = ProblemCollector()
            problems.buildsAsync = buildsAsync
            problems.recorder = recorder
        }

        /// `registrations` as a resolve through `container` sees them under the test overrides active now: a
        /// registration an override shadows gives way to the override's, with the container that owns it, so that
        /// the real factory a test replaced never runs (a real `Task.sleep` or network call) and is not counted or
        /// timed; the override's registration is checked in its place, once however many it shadows.
        private static func underOverrides(
            _ registrations: [(DIContainer, EntryBase)],
            through container: DIContainer
        ) -> [(DIContainer, EntryBase)] {
            guard let overrides = Overlay.active() else { return registrations }
            var seen: Set<ObjectIdentifier> = []
            var result = registrations.compactMap { registration in
                let (owner, entry) =
                    overrides.find(registration.1.key, through: container, resolving: true).map { ($0.owner, $0.entry) }
                    ?? registration
                return seen.insert(ObjectIdentifier(entry)).inserted ? (owner, entry) : nil
            }
            // The overrides' own registrations that replace nothing: what a resolve through `container` finds for
            // their keys is them, and they are built like the rest.
            var layer: Overlay? = overrides
            while let current = layer {
                if let registry = current.registry, current.applies(to: container) {
                    for entry in registry.visibleEntries {
                        guard let found = overrides.find(entry.key, through: container, resolving: true),
                            found.entry === entry,
                            seen.insert(ObjectIdentifier(entry)).inserted
                        else { continue }
                        result.append((found.owner, entry))
                    }
                }
                layer = current.outer
            }
            return result
        }

        /// Whether to build `entry`; when not, the problem that says why is added. Counts what is built.
        mutating func shouldBuild(_ entry: EntryBase, in owner: DIContainer) -> Bool {
            // A forward to an argument registration is built with that registration's sample; without one, the
            // registration's own warning says it was not built, and the forward is not built either.
            if entry.forwardsAnArgument(in: owner), entry.validationSample(in: owner) == nil {
                return false
            }
            // A forward to a registration that cannot be built here (async under validate(), main-actor off it):
            // that registration's own warning says so; the forward would only fail the same way, twice.
            if let target = entry.forwarded(in: owner),
                ProblemCollector.notBuilt(target, onMainActor: onMainActor, buildsAsync: problems.buildsAsync) != nil
            {
                return false
            }
            if entry.isEager, let problem = DIContainer.eagerProblem(entry) {
                problems.add(problem, building: entry)
            }
            if entry.hasReleaseHook, let problem = ProblemCollector.releaseHookNeverRuns(entry) {
                problems.add(problem)
            }
            // A parent's registration that a container nearer the validated one replaces is no entry point: a
            // resolve through the validated container never starts at it. Built only if something reaches it (a
            // parent's singleton resolves through its own container), as that build.
            // An eager one is built all the same: warmUp() through the validated container builds it.
            if !entry.isEager, isShadowed(entry, in: owner) {
                return false
            }
            if let skipped = ProblemCollector.notBuilt(
                entry,
                onMainActor: onMainActor,
                buildsAsync: problems.buildsAsync,
                hasSample: entry.validationSample(in: owner, through: containers[0]) != nil
            ) {
                problems.add(skipped)
                return false
            }
            checkedCount += 1
            return true
        }

        /// Whether a resolve of `entry`'s key through the validated container finds another registration: a nearer
        /// container's, or a test override's (one of a parent wins over a child's own registrations too). No resolve
        /// through the validated container starts at `entry` then.
        private func isShadowed(_ entry: EntryBase, in owner: DIContainer) -> Bool {
            // The validated container's own registration: only a test override can shadow it.
            if owner === containers[0], overlay.outer == nil {
                return false
            }
            return containers[0].findSeeingOverrides(entry.key)?.entry !== entry
        }

        mutating func checkLazyDependencies() {
            DIContainer.checkLazyDependencies(recorder, &problems)
        }

        /// Builds each root on the main actor, where an app makes its screens, its top-level requests recorded as
        /// the root's dependencies (the task's overrides and this validation's layer go with it).
        mutating func buildOnTheMainActor(_ roots: [@MainActor () -> Any]) async {
            for root in roots {
                let index = recorder.addRoot()
                let name = await MainActor.run {
                    let built = DIContainer.inTopLevelOrigin(.init(source: .root(index), kind: .factory), root)
                    return Describe.type(type(of: built))
                }
                recorder.nameRoot(index, name)
                checkLazyDependencies()
            }
        }

        /// Builds each root on the calling thread, its top-level requests recorded as the root's dependencies.
        mutating func build(_ roots: [() -> Any]) {
            for root in roots {
                let index = recorder.addRoot()
                let built = DIContainer.inTopLevelOrigin(.init(source: .root(index), kind: .factory), root)
                recorder.nameRoot(index, Describe.type(type(of: built)))
                checkLazyDependencies()
            }
        }

        /// The report: what the builds found, then what the recorded edges show.
        mutating func report() -> ValidationReport {
            let seen = recorder.snapshot
            problems.addKeptFailures(in: seen)
            problems.addLazyReadsDuringWarmUp(in: seen)
            problems.addCyclesByEntryPoint(in: seen)
            problems.addLazyCyclesThatDoNotCloseOnTheirInstances(in: seen)
            problems.addCaptiveDependencies(in: seen)
            problems.addWeakValueTypes(in: seen)
            problems.addResolveAllsOfArgumentsOnly(in: seen)
            problems.addMainActorDependencies(in: seen)
            problems.addReplacedRegistrations(in: containers)
            problems.addSlowFactories(in: seen)
            return ValidationReport(
                problems: problems.sorted,
                checkedCount: checkedCount,
                buildTimes: DIContainer.buildTimes(in: seen),
                graph: DependencyGraph(seen)
            )
        }
    }

    /// Every current registration of this container and its ancestors, each with its container, in registration
    /// order per container (by file and line), this container first.
    fileprivate func registrationsToValidate() -> [(DIContainer, EntryBase)] {
        var result: [(DIContainer, EntryBase)] = []
        for container in lineage {
            // Sort keys made once per entry; the label (a type's description, not cheap) only breaks ties, such as
            // an `implements` forward on the line of its registration.
            let keyed = container.visibleEntries.map { (file: "\($0.file)", line: $0.line, entry: $0) }
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
            context.beginTopLevel(.resolver(overlay, nil), through: self)
            defer { context.endTopLevel() }
            try entry.validate(in: context, owner: owner, through: self)
        }
    }

    /// Runs `body` on this thread with its top-level requests recorded as coming from `origin`.
    fileprivate static func inTopLevelOrigin<Result>(
        _ origin: ResolutionContext.Origin?,
        _ body: () -> Result
    ) -> Result {
        ResolutionContext.withCurrent { context in
            context.topLevelOrigin = origin
            defer { context.topLevelOrigin = nil }
            return body()
        }
    }

    /// Resolves the dependencies of the lazy wrappers made so far, each as its first read would, with its edge
    /// recorded from the object that holds the wrapper. Their builds may make more lazy wrappers; those are checked too.
    fileprivate static func checkLazyDependencies(_ recorder: ValidationRecorder, _ problems: inout ProblemCollector) {
        while case let checks = recorder.takeLazyChecks(), !checks.isEmpty {
            for check in checks {
                let isWeak = "\(check.site.wrapper)" == "@WeakInjected"
                let origin = check.source.map { ResolutionContext.Origin(source: $0, kind: isWeak ? .weak : .lazy) }
                let kept = recorder.keptFailureCount
                defer { recorder.attributeKeptFailures(since: kept, to: check.site) }
                let failure: ResolutionError? = inTopLevelOrigin(origin) {
                    do {
                        try check.resolve(check.container)
                        return nil
                    } catch {
                        return (error as? ResolutionError)?.asked(
                            by: check.site,
                            atDepth: 0,
                            initialisedBy: check.initialisedBy
                        )
                    }
                }
                if let failure {
                    problems.add(failure, at: check.site.location)
                } else if isWeak {
                    problems.addWeakPropertyOfANewInstance(check.site, through: check.container)
                }
            }
        }
    }

    fileprivate static func buildTimes(in seen: ValidationRecorder.State) -> [ValidationReport.BuildTime] {
        seen.entries.compactMap { entry in
            seen.buildNanoseconds[ObjectIdentifier(entry)].map {
                ValidationReport.BuildTime(service: entry.label, location: entry.location, nanoseconds: $0)
            }
        }
        .sorted { $0.nanoseconds > $1.nanoseconds }
    }
}

extension DependencyGraph {
    /// The graph of what a validation saw: its registrations in the order first seen, then the roots of
    /// `validate(building:)`, then the missing services. An instance built in several containers is one node.
    init(_ seen: ValidationRecorder.State) {
        var index: [ObjectIdentifier: Int] = [:]
        for entry in seen.entries {
            index[ObjectIdentifier(entry)] = nodes.count
            nodes.append(Node(service: entry.label, scope: entry.isForward ? "implements" : entry.scope.description))
        }
        var rootIndex: [Int: Int] = [:]
        for (root, label) in seen.roots.enumerated() {
            rootIndex[root] = nodes.count
            nodes.append(Node(service: label, scope: "validate(building:)"))
        }
        var missingIndex: [String: Int] = [:]
        for service in seen.missing {
            missingIndex[service] = nodes.count
            nodes.append(Node(service: service, scope: nil))
        }
        var drawn: Set<Int> = []  // from * nodes.count + to
        drawn.reserveCapacity(seen.sources.count * 4)
        for source in seen.sources {
            let from: Int?
            switch source {
            case .node(let node): from = index[node.entry]
            case .root(let root): from = rootIndex[root]
            }
            guard let from else { continue }
            for dependency in seen.dependencies[source] ?? [] {
                let to: Int?
                switch dependency.to {
                case .node(let node): to = index[node.entry]
                case .missing(let service): to = missingIndex[service]
                }
                if let to, drawn.insert(from &* nodes.count &+ to).inserted {
                    edges.append(Edge(from: from, to: to, isLazy: dependency.kind.isOnFirstRead))
                }
            }
        }
    }
}
