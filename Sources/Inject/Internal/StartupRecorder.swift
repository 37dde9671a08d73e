/// What one `warmUp()` learns while its eager builds run: every build with its own time and when it ended, and who
/// asked for what, from which the report's critical path is found.
final class StartupRecorder: @unchecked Sendable {
    // @unchecked: `state` is only touched under its lock; `started` is a `let`.

    /// A registration built in a container.
    struct Node: Hashable {
        let entry: ObjectIdentifier
        let home: ObjectIdentifier
    }

    struct Build {
        let node: Node
        let event: BuildEvent
        let start: UInt64
        let end: UInt64
        /// The container it was built in, kept alive so that its identity in ``node`` stays unique.
        let home: DIContainer
        /// Whether it is an `.eager()` registration, which `warmUp()` builds for its own sake.
        let isEager: Bool
        /// Whether it is a `mainActorFactory` registration, built on the main actor, one at a time.
        let isMainActor: Bool
    }

    private struct State {
        var builds: [Build] = []
        /// Who asked for what. Every container an edge names is the home of a build, or one of the containers
        /// `warmUp()` resolves through, all alive while it runs.
        var edges: [Node: Set<Node>] = [:]
        /// When each wave of builds tried again began, after every build before it had ended, earliest first.
        var waveStarts: [UInt64] = []
        /// The builds tried again, by node, with the async service read synchronously before it was built, and the
        /// registration whose factory read it (the build itself, or one it needs).
        var retried: [Node: (readAsync: String, reader: String, isAsync: Bool, isMainActor: Bool)] = [:]
        /// Eager builds that succeeded although a synchronous read in them failed: each with what it read.
        var builtWithout: [(caught: ReadBeforeBuilt, service: String, isAsync: Bool)] = []
        /// When each eager build that failed ran: part of the wall time, though no build remains of it.
        var failedSpans: [(start: UInt64, end: UInt64)] = []
        /// Waits of builds here for an instance they did not build, by what they waited for: when no build here made
        /// it, another warm-up or a resolve did.
        var waits: [(node: Node, service: String, start: UInt64, end: UInt64)] = []
    }

    /// When `warmUp()` started, in nanoseconds.
    let started: UInt64
    private let state = Locked(State())

    init(started: UInt64) {
        self.started = started
    }

    /// How many registrations (in their containers) the builds so far made an instance of that their scope keeps
    /// (not `.graph`, `.transient` or `.weak`): a wave of builds tried again that adds one made progress, even if its
    /// builds failed after. One built again (a reset in between) adds nothing, so the waves end.
    var keptBuildCount: Int {
        state.withLock { state in
            Set(state.builds.lazy.filter { ![Scope.graph, .transient, .weak].contains($0.event.scope) }.map(\.node))
                .count
        }
    }

    func recordBuild(_ event: BuildEvent, entry: EntryBase, home: DIContainer, start: UInt64, end: UInt64) {
        let node = Node(entry: ObjectIdentifier(entry), home: ObjectIdentifier(home))
        let build = Build(
            node: node,
            event: event,
            start: start,
            end: end,
            home: home,
            isEager: entry.isEager,
            isMainActor: entry.isMainActor
        )
        state.withLock { $0.builds.append(build) }
    }

    /// Records that a build here waited from `start` to `end` for `entry`'s instance in `home`, which it did not build.
    func recordWait(for entry: EntryBase, home: DIContainer, from start: UInt64, to end: UInt64) {
        // A cached instance is there at once: only a wait for a build under way is worth a line.
        guard end &- start >= 50_000 else { return }
        let node = Node(entry: ObjectIdentifier(entry), home: ObjectIdentifier(home))
        state.withLock { $0.waits.append((node, entry.label, start, end)) }
    }

    func recordEdge(from source: (entry: EntryBase, home: DIContainer)?, to entry: EntryBase, home: DIContainer) {
        guard let source else { return }
        let from = Node(entry: ObjectIdentifier(source.entry), home: ObjectIdentifier(source.home))
        let to = Node(entry: ObjectIdentifier(entry), home: ObjectIdentifier(home))
        state.withLock { _ = $0.edges[from, default: []].insert(to) }
    }

    /// Records that the eager build of `built` succeeded although the synchronous reads `caught` failed in it, the
    /// async services they read not built yet: a factory caught each error and went on without the service.
    func recordBuiltWithout(_ caught: [ReadBeforeBuilt], building built: EntryBase) {
        state.withLock { state in
            state.builtWithout += caught.map { ($0, built.label, built.isAsync) }
        }
    }

    /// Records that an eager build ran from `start` to `end` and failed.
    func recordFailure(from start: UInt64, to end: UInt64) {
        state.withLock { $0.failedSpans.append((start, end)) }
    }

    /// What the report says of an eager build kept without the service `caught` read too early; `built` says
    /// whether this warm-up built that service at all.
    private static func builtWithoutNote(
        _ caught: ReadBeforeBuilt,
        service: String,
        isAsync: Bool,
        built: Bool
    ) -> String {
        let read = caught.read
        let who =
            caught.reader == service
            ? "its factory read \(read) with r.resolve"
            : "\(caught.reader), which its build needs, read \(read) with r.resolve"
        let when =
            !built
            ? "when nothing had built it (warmUp() builds it only if it is .eager() or an eager build awaits it)"
            : caught.readIsEager ? "before warmUp() had built it" : "before it was built"
        let awaitRead = "await r.resolveAsync(\(read).self)"
        // The factory to change is the one that can await it first: the reader's, or the eager build's, before it
        // asks for the reader (whose synchronous read of an async one would fail in turn).
        let fix =
            caught.reader == service
            ? (caught.readerIsAsync
                ? "\(awaitRead) in its factory instead" : "make its factory async and \(awaitRead) there")
            : (isAsync
                ? "\(awaitRead) in \(service)'s factory before it asks for \(caught.reader)"
                : "make \(service)'s factory async and \(awaitRead) there before it asks for \(caught.reader)")
        return """
            \(service) was built without \(read): \(who) \(when), and the build went on past the error (a try?, or \
            a catch), so warmUp() kept \(service) as it was built. To have it wait for \(read), \(fix).
            """
    }

    /// Records that a wave of builds tried again begins now, after every earlier build ended: each of `retried`
    /// failed because its synchronous factory read `readAsync`, an async service not built yet.
    func beginRetryWave(
        at start: UInt64,
        retried: [(entry: EntryBase, home: DIContainer, readAsync: String, reader: String)]
    ) {
        state.withLock { state in
            state.waveStarts.append(start)
            for build in retried {
                state.retried[Node(entry: ObjectIdentifier(build.entry), home: ObjectIdentifier(build.home))] =
                    (build.readAsync, build.reader, build.entry.isAsync, build.entry.isMainActor)
            }
        }
    }

    /// The report: the builds slowest first, wall and serial time, and the critical path.
    ///
    /// - Parameter attempted: How many eager registrations `warmUp()` found unbuilt and set out to build.
    func report(failures: [ResolutionError], attempted: Int) -> StartupReport {
        let (builds, edges, waveStarts, retried, builtWithout, waits, failedSpans) = state.withLock {
            ($0.builds, $0.edges, $0.waveStarts, $0.retried, $0.builtWithout, $0.waits, $0.failedSpans)
        }
        let servicesBuilt = Set(builds.map(\.event.service))
        // Nothing built here, and nothing failed: what it set out to build, another warm-up (or resolve) built
        // meanwhile, and this one waited for those builds until now.
        let builtElsewhere = builds.isEmpty && failures.isEmpty ? attempted : 0
        // Until now, not its own last build's end: a wait for a build another warm-up or a resolve was making is
        // start-up time too, which the report says went outside these builds.
        let lastEnd = monotonicNanoseconds()
        let path = Self.criticalPath(builds, edges, waveStarts: waveStarts)
        return StartupReport(
            builds: builds.map(\.event).sorted { $0.seconds > $1.seconds },
            wallSeconds: Double(lastEnd &- started) / 1_000_000_000,
            serialSeconds: builds.reduce(0) { $0 + $1.event.seconds },
            criticalPath: path.map(\.event.service),
            failures: failures,
            notes: path.compactMap { build in
                retried[build.node].map {
                    Self.retryNote(
                        build.event.service,
                        readAsync: $0.readAsync,
                        by: $0.reader,
                        isAsync: $0.isAsync,
                        isMainActor: $0.isMainActor
                    )
                }
            },
            eagerServices: Set(builds.filter(\.isEager).map(\.event.service)),
            builtElsewhere: builtElsewhere,
            criticalPathSeconds: Self.seconds(of: path),
            builtWithout: builtWithout.map {
                Self.builtWithoutNote(
                    $0.caught,
                    service: $0.service,
                    isAsync: $0.isAsync,
                    built: servicesBuilt.contains($0.caught.read)
                )
            },
            failedSeconds: Self.covered(failedSpans),
            mainActorBuilds: builds.filter(\.isMainActor).map(\.event.seconds),
            waitedElsewhere: Self.waitedElsewhere(waits, builds: builds)
        )
    }

    /// The waits for builds that none of `builds` made (another warm-up's, or a resolve's): the services, in the
    /// order first waited for, and the time covered by at least one such wait.
    private static func waitedElsewhere(
        _ waits: [(node: Node, service: String, start: UInt64, end: UInt64)],
        builds: [Build]
    ) -> (services: [String], seconds: Double) {
        let builtHere = Set(builds.map(\.node))
        let elsewhere = waits.filter { !builtHere.contains($0.node) }
        var services: [String] = []
        for wait in elsewhere where !services.contains(wait.service) {
            services.append(wait.service)
        }
        return (services, covered(elsewhere.map { ($0.start, $0.end) }))
    }

    /// The seconds `spans` cover, a time two of them share counted once.
    private static func covered(_ spans: [(start: UInt64, end: UInt64)]) -> Double {
        var covered: UInt64 = 0
        var reached: UInt64 = 0
        for span in spans.sorted(by: { $0.start < $1.start }) {
            let from = max(span.start, reached)
            if from < span.end {
                covered &+= span.end &- from
                reached = span.end
            }
        }
        return Double(covered) / 1_000_000_000
    }

    /// How long the critical path held start-up back: the first build's own time, then for each build after it only
    /// what it did outside the build before it. A build that worked before it awaited the one before it on the path
    /// (`async let`, or an await after some work of its own) did that work meanwhile: it delayed nothing, as the
    /// path's time can never exceed the wall time.
    private static func seconds(of path: [Build]) -> Double {
        var nanoseconds: UInt64 = 0
        for (index, build) in path.enumerated() {
            let own = UInt64(build.event.seconds * 1_000_000_000)
            guard index > 0 else {
                nanoseconds &+= own
                continue
            }
            let before = path[index - 1]
            let (overlapStart, overlapEnd) = (max(build.start, before.start), min(build.end, before.end))
            let overlap = overlapEnd > overlapStart ? overlapEnd - overlapStart : 0
            nanoseconds &+= min(own, build.end &- build.start &- overlap)
        }
        return Double(nanoseconds) / 1_000_000_000
    }

    /// Why a build tried again is on the critical path, and how to take it off.
    private static func retryNote(
        _ service: String,
        readAsync: String,
        by reader: String,
        isAsync: Bool,
        isMainActor: Bool
    ) -> String {
        // A mainActorFactory is synchronous: what awaits the async service first is an async factory of its own.
        if isMainActor {
            return """
                \(service) waited for every other eager build: \(reader == service ? "its" : "\(reader)'s") factory \
                read \(readAsync) before it was built, so warmUp() built it again after the others; register \
                \(service) with an async factory that awaits r.resolveAsync(\(readAsync).self) and then makes it on the \
                main actor (await MainActor.run { ... }): it would start as soon as \(readAsync) is built.
                """
        }
        if reader == service, isAsync {
            return """
                \(service) waited for every other eager build: its async factory read \(readAsync) synchronously, \
                with r.resolve, before it was built, so warmUp() built it again after the others; awaiting \
                r.resolveAsync(\(readAsync).self) instead would start it as soon as \(readAsync) is built.
                """
        }
        guard reader != service else {
            return """
                \(service) waited for every other eager build: its synchronous factory read \(readAsync) before it was \
                built, so warmUp() built it again after the others; an async factory that awaits \
                r.resolveAsync(\(readAsync).self) would start as soon as \(readAsync) is built.
                """
        }
        return """
            \(service) waited for every other eager build: \(reader), which its build needs, read \(readAsync) \
            synchronously before it was built, so warmUp() built \(service) again after the others; awaiting \
            r.resolveAsync(\(readAsync).self) in \(service)'s factory before it asks for \(reader) would start it as \
            soon as \(readAsync) is built.
            """
    }

    /// The chain of builds that ended last: from the build that ended last, step to what held it back, and so on;
    /// outermost first. What held a build back is the build it asked for (built here or waited for) that ended last
    /// before it ended; or, for a build made inside its asker's build, what that asker asked for before it began: a
    /// service built cheaply after a long wait was held back by that wait. But a build tried again in a later wave waited for that
    /// wave to begin, so when none of those ended after the wave began, it is the build that ended last before the
    /// wave began.
    private static func criticalPath(_ builds: [Build], _ edges: [Node: Set<Node>], waveStarts: [UInt64]) -> [Build] {
        guard var current = builds.max(by: { $0.end < $1.end }) else { return [] }
        var buildsByNode: [Node: [Build]] = [:]
        for build in builds {
            buildsByNode[build.node, default: []].append(build)
        }
        var visited: Set<Node> = [current.node]
        /// The latest build of what `asker` asked for that ended by `deadline`, not on the path yet.
        func latestDependency(of asker: Build, endingBy deadline: UInt64) -> Build? {
            (edges[asker.node] ?? [])
                .filter { !visited.contains($0) }
                .compactMap { node in buildsByNode[node]?.filter { $0.end <= deadline }.max { $0.end < $1.end } }
                .max { $0.end < $1.end }
        }
        var path = [current]
        while true {
            var candidates = [latestDependency(of: current, endingBy: current.end)]
            // Up the path for as long as each build was made inside the build before it (its asker's resolution
            // built it, rather than waiting for a build under way): what that asker asked for before it began.
            for (asker, built) in zip(path.dropLast().reversed(), path.reversed()) {
                guard built.event.path.dropLast().last == asker.event.service else { break }
                candidates.append(latestDependency(of: asker, endingBy: built.start))
            }
            var next = candidates.compactMap { $0 }.max { $0.end < $1.end }
            let start = current.start
            if let wave = waveStarts.last(where: { $0 <= start }), (next?.end ?? 0) < wave {
                next = builds.filter { $0.end <= wave && !visited.contains($0.node) }.max { $0.end < $1.end }
            }
            guard let next else { break }
            path.append(next)
            visited.insert(next.node)
            current = next
        }
        // A build at its start that took no time (under 0.05 ms, as the report rounds) held nothing back.
        let firstThatTookTime = path.lastIndex { $0.event.seconds >= 0.000_05 } ?? path.startIndex
        return path[...firstThatTookTime].reversed()
    }
}
