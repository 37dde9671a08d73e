extension DIContainer {
    /// Builds every ``Registration/eager()`` registration of this container and its parents that is not built yet,
    /// in parallel, and reports what start-up cost. Under test overrides, an eager registration of the overrides
    /// is built instead of the one it shadows, as a resolve would use it.
    ///
    /// ```swift
    /// @main struct NotesApp: App {
    ///     init() {
    ///         Task { print(try await DIContainer.shared.warmUp()) }
    ///     }
    /// }
    /// ```
    ///
    /// Services that do not depend on each other build at the same time: synchronous factories on the concurrency
    /// pool's threads, async ones interleaved while they await. Each is still built exactly once: a build that
    /// needs another waits for it through its gate (suspending, not blocking a thread) instead of building it again.
    /// Every eager registration is built even when some fail. A factory that reads an async singleton with
    /// `r.resolve` (not `r.resolveAsync`) may run before that singleton is built; it is tried again once the other
    /// eager builds are done (the async ones of a round before its synchronous ones), and again as long as each
    /// round builds more, so that it works when the async singleton is eager too, however long the chain of such
    /// reads, and when the two close a `resolveProperties` cycle.
    ///
    /// A `.scoped` eager registration is built for this container when it is a child scope (made by
    /// ``makeChild()``): a `.scoped` service is one per child scope, so each child's `warmUp()` builds its own, and a
    /// root container's `warmUp()` at launch leaves it out (it may need what only a session registers). An eager
    /// registration whose scope does not cache (`.transient`, `.graph`) or keeps nothing by itself (`.weak`) has
    /// nothing to keep, and one that takes a runtime argument cannot be built without one: each is reported as a
    /// failure, and `validate()` reports it as an error.
    ///
    /// - Returns: The report: each build's own time (the time it waited for its dependencies excluded), the wall
    ///   time against a one-by-one start-up, and the critical path. Print it at launch in debug builds.
    /// - Throws: `CancellationError` when the task that called it is cancelled: the builds finished by then stay
    ///   built, and the others are left unbuilt for a later `warmUp()` or resolve. Otherwise ``StartupError`` with
    ///   the same report when at least one build failed.
    @discardableResult
    public func warmUp() async throws -> StartupReport {
        ResolutionContext.requireOutsideResolution(
            "warmUp()",
            of: self,
            harm: "its builds could wait for the build that called it, which waits for them.",
            fix: """
                call try await warmUp() once at start-up, outside any factory; a factory that needs an async \
                service awaits r.resolveAsync(...) instead.
                """
        )
        let recorder = StartupRecorder(started: monotonicNanoseconds())
        let overlay = Overlay.active()
        var failures: [ResolutionError] = []
        var eager: [(entry: EntryBase, owner: DIContainer)] = []
        for (entry, owner) in eagerRegistrations(under: overlay) {
            if let problem = Self.eagerProblem(entry) {
                failures.append(problem)
            } else if let overlay, !entry.isBuilt(in: self, owner: owner, under: overlay) {
                eager.append((entry, owner))
            } else if overlay == nil, !entry.isBuilt(in: self) {
                eager.append((entry, owner))
            }
        }
        var wave = await build(eager.map { EagerBuild(entry: $0.entry, owner: $0.owner) }, overlay, recorder)
        // A factory that reads an async singleton synchronously can run before that singleton is built: it failed
        // with .notBuiltYet. Those builds are tried again, wave after wave, as long as each wave makes progress:
        // builds at least one of them, or builds an instance that stays (one a failing build awaited before its read
        // failed): a chain of such reads (Top reads X, whose async factory reads Y) settles one level per wave.
        while true {
            let waiting = wave.filter { $0.error.kind == .notBuiltYet }
            failures += wave.filter { $0.error.kind != .notBuiltYet }.map(\.error)
            // Cancelled, it tries nothing again: the check below throws.
            guard !waiting.isEmpty, !Task.isCancelled else { break }
            recorder.beginRetryWave(
                at: monotonicNanoseconds(),
                retried: waiting.map { waiting in
                    let entry = waiting.build.entry
                    let home = Scope.resolvesFromOwner(entry.scopeCode) ? waiting.build.owner : self
                    let path = waiting.error.path
                    let reader = path.count >= 2 ? path[path.count - 2] : entry.label
                    return (entry, home, waiting.error.service, reader)
                }
            )
            // The async ones first, then the synchronous ones: a synchronous build that reads an async one must not
            // run beside it again (a resolveProperties cycle between the two would fail the same way every wave),
            // and an async one that needs the synchronous one builds it inside its own resolution.
            let retried = waiting.map(\.build)
            let keptBefore = recorder.keptBuildCount
            var next = await build(retried.filter { $0.entry.isAsync }, overlay, recorder)
            next += await build(retried.filter { !$0.entry.isAsync }, overlay, recorder)
            if next.filter({ $0.error.kind == .notBuiltYet }).count >= waiting.count,
                recorder.keptBuildCount == keptBefore
            {
                failures += next.map(\.error)  // no progress: what is still unbuilt will stay so
                break
            }
            wave = next
        }
        // Cancelled, the builds under way saw it too and failed with it: that is not a start-up failure to report.
        try Task.checkCancellation()
        let report = recorder.report(failures: failures, attempted: eager.count)
        guard failures.isEmpty else { throw StartupError(report: report) }
        return report
    }

    /// The eager registrations a resolve through this container would use, with the containers that own them: a
    /// test override's first (owned by its target, as for a resolve), then this container's and its parents', each
    /// unless an override shadows its key. A root container leaves its `.scoped` ones to its child scopes.
    private func eagerRegistrations(under overlay: Overlay?) -> [(EntryBase, DIContainer)] {
        var result: [(EntryBase, DIContainer)] = []
        var overridden: Set<Key> = []
        // A root has no child scope of its own to build a `.scoped` one for: each child's warmUp() builds its own.
        let isChildScope = parent != nil
        func isEager(_ entry: EntryBase) -> Bool {
            entry.isEager && !entry.isForward && (isChildScope || entry.scope != .scoped)
        }
        var layer = overlay
        while let current = layer {
            if let registry = current.registry, current.applies(to: self) {
                for entry in registry.visibleEntries where !overridden.contains(entry.key) {
                    overridden.insert(entry.key)
                    if isEager(entry) {
                        current.noteUse(of: entry)  // warmUp() builds it: the override is reached
                        result.append((entry, current.target ?? self))
                    }
                }
            }
            layer = current.outer
        }
        for container in lineage {
            for entry in container.visibleEntries where isEager(entry) {
                if !overridden.contains(entry.key) {
                    result.append((entry, container))
                }
            }
        }
        return result
    }

    /// Builds `builds` concurrently, each as a top-level async resolve of its own; returns the failures.
    ///
    /// An async registration gets a task of its own, so that all of them can await at once (200 services that
    /// each wait 5 ms for a disk take 5 ms, not a second). The synchronous ones are pulled from a shared queue by a
    /// few worker tasks, as many as the machine runs threads plus two (for a worker that waits for another's
    /// build): a task per registration would cost more to create and to collect than many factories take to run.
    private func build(
        _ builds: [EagerBuild],
        _ overlay: Overlay?,
        _ recorder: StartupRecorder
    ) async -> [(build: EagerBuild, error: ResolutionError)] {
        let asynchronous = builds.filter { $0.entry.isAsync }
        let queue = EagerQueue(builds.filter { !$0.entry.isAsync })
        let workers = min(queue.count, ProcessorCount.current + 2)
        return await withTaskGroup(of: [(build: EagerBuild, error: ResolutionError)].self) { group in
            for build in asynchronous {
                group.addTask { await self.build(build, overlay, recorder).map { [$0] } ?? [] }
            }
            for _ in 0..<workers {
                group.addTask {
                    var failures: [(build: EagerBuild, error: ResolutionError)] = []
                    while let build = queue.next() {
                        if let failure = await self.build(build, overlay, recorder) {
                            failures.append(failure)
                        }
                    }
                    return failures
                }
            }
            var failures: [(build: EagerBuild, error: ResolutionError)] = []
            for await some in group {
                failures += some
            }
            return failures
        }
    }

    /// Builds one eager registration as a top-level async resolve of its own; returns its failure, if any.
    private func build(
        _ build: EagerBuild,
        _ overlay: Overlay?,
        _ recorder: StartupRecorder
    ) async -> (build: EagerBuild, error: ResolutionError)? {
        let resolution = AsyncResolution(overlay: overlay, top: self, startup: recorder)
        defer { resolution.finish() }
        let start = monotonicNanoseconds()
        do {
            try await build.entry.buildAsync(in: resolution, owner: build.owner, through: self, argument: nil)
            let caught = resolution.readsBeforeBuilt
            if !caught.isEmpty {
                // Built all the same: a factory caught the read's error and went on without the service.
                recorder.recordBuiltWithout(caught, building: build.entry)
            }
            return nil
        } catch {
            recorder.recordFailure(from: start, to: monotonicNanoseconds())
            return (build, Self.failure(error, building: build.entry))
        }
    }

    /// Why `entry` cannot be an eager registration, or `nil` when it can: the scope is judged now, when the
    /// registration is used, since options chain in any order.
    static func eagerProblem(_ entry: EntryBase) -> ResolutionError? {
        let scope = entry.scope
        let reason: String
        let fix: String
        if scope == .transient || scope == .graph {
            reason = "its scope, \(scope), does not cache: warmUp() would build an instance nobody gets"
            fix = "give it a caching scope (.singleton, .cached, .scoped or a custom one), or remove .eager()."
        } else if scope == .weak, !entry.takesArgument {
            reason = """
                its scope, .weak, keeps an instance only while something else holds it: warmUp() would build one \
                and release it at once, for nobody
                """
            fix = "give it a scope that keeps it (.singleton, .cached, .scoped or a custom one), or remove .eager()."
        } else if entry.takesArgument {
            reason = "it takes a runtime argument, which warmUp() does not have"
            fix = "remove .eager(), and resolve it with its argument when it is needed."
        } else {
            return nil
        }
        return ResolutionError(
            kind: .invalidRegistration,
            service: entry.label,
            path: [entry.label],
            registration: entry.location,
            headline: "\(entry.label), registered at \(entry.location), is marked .eager(), but \(reason).",
            fix: fix
        )
    }

    /// `error` from building `entry` as a ``ResolutionError``.
    private static func failure(_ error: any Error, building entry: EntryBase) -> ResolutionError {
        if let error = error as? ResolutionError {
            return error
        }
        return ResolutionError(
            kind: .factoryThrew,
            service: entry.label,
            path: [entry.label],
            registration: entry.location,
            underlying: error,
            headline: "building \(entry.label), registered at \(entry.location), failed: \(error)",
            fix: "the error above ended the build: fix its cause."
        )
    }
}

/// An eager registration for one child task of `warmUp()`.
private struct EagerBuild: @unchecked Sendable {
    // @unchecked: entries and containers are thread-safe (see `EntryBase`, `DIContainer`); the struct is only read.
    let entry: EntryBase
    let owner: DIContainer
}

/// The synchronous eager registrations `warmUp()`'s workers take, each exactly once, in registration order.
private final class EagerQueue: Sendable {
    private let builds: [EagerBuild]
    private let taken = AtomicCounter()

    init(_ builds: [EagerBuild]) {
        self.builds = builds
    }

    var count: Int { builds.count }

    /// The next registration nobody took yet, or `nil` when all are taken.
    func next() -> EagerBuild? {
        let index = taken.add(1) - 1
        return index < builds.count ? builds[index] : nil
    }
}

extension Registration {
    /// Marks the registration for ``DIContainer/warmUp()``, which builds it at start-up, in parallel with the other
    /// eager ones.
    ///
    /// ```swift
    /// container.register(Database.self) { r in try await Database.open(config: r.resolve()) }
    ///     .scope(.singleton)
    ///     .eager()
    /// ```
    ///
    /// For a caching scope (`.singleton`, `.cached`, `.scoped`, custom); options chain in any order, so the scope is
    /// judged when `warmUp()` or `validate()` uses the registration: a scope that does not cache is a failure there.
    /// A `.scoped` one is built by each child container's own `warmUp()`, one per child scope, not by a root's.
    @discardableResult
    public func eager() -> Self {
        container.checkNotSealed(for: "Registration.eager() on \(entry.label)", at: entry)
        entry.markEager()
        return self
    }
}
