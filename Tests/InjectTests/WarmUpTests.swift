import Foundation
import Inject
import InjectTestSupport
import InjectTesting
import Testing

// warmUp(): every eager registration built in parallel, each once, with a report of what start-up cost.

private final class Config: Sendable {}
private final class Database: Sendable {}
private final class FeatureFlags: Sendable {}
private final class HomeFeed: Sendable {}
private final class Broken: Sendable {}
private final class Flags: Sendable {
    let hasConfig: Bool

    init(hasConfig: Bool) {
        self.hasConfig = hasConfig
    }
}
@MainActor private final class HomeScreen {
    nonisolated init() {}
}
private protocol Exporter: Sendable {}
private final class PDFExporter: Exporter {}
private final class MarkdownExporter: Exporter {}

/// How many factories run at once, and the most that ever did.
private final class Concurrency: @unchecked Sendable {
    // @unchecked: the counts are only touched under `lock`.
    private let lock = NSLock()
    private var running = 0
    private(set) var most = 0

    func enter() {
        lock.withLock {
            running += 1
            most = max(most, running)
        }
    }

    func leave() {
        lock.withLock { running -= 1 }
    }

    var mostAtOnce: Int {
        lock.withLock { most }
    }
}

/// Holds the async-built `Database` through a wrapper, as an app's store does.
private final class NotesStore: @unchecked Sendable {
    // @unchecked: the wrapper is set once, when the store is made.
    @Injected var database: Database
}

/// Marks the thread of a test that reads beside `warmUp()`.
private enum ReaderThread {
    @TaskLocal static var isReader = false
}

struct WarmUpTests {
    @Test func aRetriedBuildDoesNotTakeTheFailureOfABuildAnotherThreadStartedBeforeWhatItReadsWasBuilt() async throws {
        let container = DIContainer()
        let databaseGate = AsyncGate()
        container.register(Database.self) { (_: DIResolver) async throws in
            await databaseGate.wait()
            return Database()
        }
        .scope(.singleton)
        .eager()
        // HomeFeed reads the database synchronously. The reader thread's builds of it fail (the database is not
        // built yet) and are held, still under way, until the test lets each end.
        let readerFailed = DispatchSemaphore(value: 0)
        let releaseReader = DispatchSemaphore(value: 0)
        container.register(HomeFeed.self) { r in
            do {
                _ = try r.resolve(Database.self)
                return HomeFeed()
            } catch {
                if ReaderThread.isReader {
                    readerFailed.signal()
                    _ = releaseReader.wait(timeout: .now() + hangLimit)
                }
                throw error
            }
        }
        .scope(.singleton)
        .eager()
        Thread {
            ReaderThread.$isReader.withValue(true) {
                for _ in 0..<2 {
                    _ = try? container.resolveThrowing(HomeFeed.self)
                }
            }
        }
        .start()
        #expect(waits(for: readerFailed, "the reader's first build"))

        let warmUp = Task { try await container.warmUp() }
        // The first wave's build of HomeFeed waits for the reader's and gets its failure; the reader builds again,
        // and fails again, before the database is built.
        #expect(await eventually { container.resolvesWaitingForBuild(of: HomeFeed.self) == 1 })
        releaseReader.signal()
        #expect(waits(for: readerFailed, "the reader's second build"))
        databaseGate.openGate()
        // The database is built now; the second wave's build of HomeFeed waits for the reader's second build, which
        // began before that and fails as the first did: not a reason to give up on HomeFeed.
        #expect(await eventually { container.resolvesWaitingForBuild(of: HomeFeed.self) == 1 })
        releaseReader.signal()

        let outcome = await completes("warmUp() beside a thread reading HomeFeed") { try await warmUp.value }
        let report = try #require(try outcome?.get())
        #expect(report.builds.contains { $0.service == "HomeFeed" }, "\(report)")
        #expect(container.resolve(HomeFeed.self) === container.resolve(HomeFeed.self))
    }

    @Test func anEagerSingletonWhoseWrapperReadsAnEagerAsyncSingletonIsBuiltAfterIt() async throws {
        let container = DIContainer()
        container.register(Database.self) { (_: DIResolver) async throws in
            try await Task.sleep(nanoseconds: 20_000_000)
            return Database()
        }
        .scope(.singleton)
        .eager()
        container.register(NotesStore.self) { NotesStore() }.scope(.singleton).eager()

        #expect(await container.validationReportAsync().isValid)
        let finished = await completes("warmUp() with a wrapper reading an async singleton") {
            try await container.warmUp()
        }

        _ = try #require(try finished?.get())
        #expect(container.resolve(NotesStore.self).database === container.resolve(Database.self))
    }

    @Test func aWrapperThatCannotResolveFailsTheAsyncResolveInsteadOfTrapping() async throws {
        let container = DIContainer()
        container.register(Database.self) { (_: DIResolver) async in Database() }.scope(.singleton)
        container.register(NotesStore.self) { NotesStore() }

        let error = try await #require(throws: ResolutionError.self) {
            try await container.resolveAsync(NotesStore.self)
        }

        #expect(error.kind == .notBuiltYet, "\(error)")
        #expect(error.description.contains("@Injected Database at"), "\(error)")
        _ = try await container.resolveAsync(Database.self)
        #expect(try await container.resolveAsync(NotesStore.self).database === container.resolve(Database.self))
    }
    @Test func everyEagerRegistrationIsBuiltOnceAndTheyOverlap() async throws {
        let container = DIContainer()
        let concurrency = Concurrency()
        let builds = Collector<Int>()
        for index in 0..<8 {
            container.register(Widget.self, name: DIContainer.Name("w\(index)")) { _ in
                concurrency.enter()
                defer { concurrency.leave() }
                builds.append(index)
                try await Task.sleep(nanoseconds: 20_000_000)
                return Widget(serial: index)
            }
            .scope(.singleton)
            .eager()
        }
        container.register(Gadget.self) { _ in Gadget(widget: Widget()) }.scope(.singleton)  // not eager

        let report = try await container.warmUp()

        #expect(builds.values.sorted() == Array(0..<8))
        #expect(concurrency.mostAtOnce > 1, "the eager builds never overlapped")
        #expect(report.builds.count == 8)
        #expect(report.failures.isEmpty)
        #expect(container.resolve(Widget.self, name: "w3").serial == 3, "built, and read synchronously")
        #expect(try await container.warmUp().builds.isEmpty, "nothing is left to build")
    }

    @Test func dependenciesAreBuiltOnceThroughTheirGatesAndMakeTheCriticalPath() async throws {
        let container = DIContainer()
        let builds = Collector<String>()
        container.register(Config.self) { _ in
            builds.append("Config")
            try await Task.sleep(nanoseconds: 30_000_000)
            return Config()
        }
        .scope(.singleton).eager()
        container.register(FeatureFlags.self) { r in
            _ = try await r.resolveAsync(Config.self)
            builds.append("FeatureFlags")
            return FeatureFlags()
        }
        .scope(.singleton).eager()
        container.register(HomeFeed.self) { r in
            _ = try r.resolve(Database.self)  // synchronous, and already built: eager and first
            _ = try await r.resolveAsync(FeatureFlags.self)
            builds.append("HomeFeed")
            return HomeFeed()
        }
        .scope(.singleton).eager()
        container.register(Database.self) { Database() }.scope(.cached)

        let report = try await container.warmUp()

        #expect(builds.values.sorted() == ["Config", "FeatureFlags", "HomeFeed"], "each built once")
        // When HomeFeed's own resolution built FeatureFlags and Config, after it built Database, the path begins
        // with Database, unless Database took no time worth naming.
        #expect(
            [["Config", "FeatureFlags", "HomeFeed"], ["Database", "Config", "FeatureFlags", "HomeFeed"]]
                .contains(report.criticalPath),
            "\(report)"
        )
        let config = try #require(report.builds.first { $0.service == "Config" })
        let feed = try #require(report.builds.first { $0.service == "HomeFeed" })
        #expect(config.seconds >= 0.03)
        #expect(feed.seconds < config.seconds, "HomeFeed's own time leaves out its wait for Config")
        #expect(report.serialSeconds >= config.seconds)
        #expect(report.wallSeconds > 0)
    }

    @Test func aBuildThatWaitsForAnotherThreadsBuildDoesNotCountTheWaitAsItsOwnTime() async throws {
        // FeatureFlags and HomeFeed both need Config (30 ms): whichever asks second waits for the other's build.
        let container = DIContainer()
        container.register(Config.self) {
            usleep(30_000)
            return Config()
        }
        .scope(.singleton)
        container.register(FeatureFlags.self) { r in
            _ = try r.resolve(Config.self)
            return FeatureFlags()
        }
        .scope(.singleton).eager()
        container.register(HomeFeed.self) { r in
            _ = try r.resolve(Config.self)
            return HomeFeed()
        }
        .scope(.singleton).eager()

        let report = try await container.warmUp()

        let config = try #require(report.builds.first { $0.service == "Config" }, "\(report)")
        for service in ["FeatureFlags", "HomeFeed"] {
            let build = try #require(report.builds.first { $0.service == service }, "\(report)")
            #expect(build.seconds < config.seconds / 2, "\(service) only waited: \(report)")
        }
    }

    @Test func aGraphServiceSeveralEagerServicesBuildIsOnTheCriticalPathOnce() async throws {
        // Each eager HomeFeed builds its own .graph Database (30 ms): the path holds one of them, and its time once.
        let container = DIContainer()
        container.register(Database.self) {
            usleep(30_000)
            return Database()
        }
        for name in ["a", "b", "c"] {
            container.register(HomeFeed.self, name: DIContainer.Name(name)) {
                (r: DIResolver) async throws -> HomeFeed in
                _ = try r.resolve(Database.self)
                return HomeFeed()
            }
            .scope(.singleton).eager()
        }

        let report = try await container.warmUp()

        let databases = report.builds.filter { $0.service == "Database" }
        #expect(databases.count == 3, "\(report)")
        let line = try #require(report.description.split(separator: "\n").first { $0.hasPrefix("critical path, ") })
        let milliseconds = try #require(Double(line.dropFirst("critical path, ".count).prefix { $0 != " " }))
        let slowest = try #require(databases.map(\.seconds).max())
        #expect(milliseconds < (databases.reduce(0) { $0 + $1.seconds } - slowest / 2) * 1000, "\(report)")
    }

    @Test func anAsyncFactorysOwnTimeLeavesOutTheSynchronousBuildsItAskedFor() async throws {
        // HomeFeed's async factory builds Database synchronously, which takes 30 ms: Database's time, not HomeFeed's.
        let container = DIContainer()
        container.register(Database.self) {
            usleep(30_000)
            return Database()
        }
        .scope(.transient)
        // Async with no await: an await's suspension counts as the factory's own time, on a busy machine too.
        container.register(HomeFeed.self) { (r: DIResolver) async throws -> HomeFeed in
            _ = try r.resolve(Database.self)
            return HomeFeed()
        }
        .scope(.singleton).eager()

        let report = try await container.warmUp()

        let database = try #require(report.builds.first { $0.service == "Database" }, "\(report)")
        let feed = try #require(report.builds.first { $0.service == "HomeFeed" }, "\(report)")
        #expect(feed.seconds < database.seconds, "\(report)")
        #expect(report.serialSeconds < database.seconds * 1.5, "counted once: \(report)")
    }

    @Test func aFactoryThatAsksConcurrentlyCountsTheTimeItsDependenciesOverlapOnce() async throws {
        // HomeFeed awaits Config (20 ms) and Database (40 ms) at once, with async let, then works 30 ms itself.
        let container = DIContainer()
        container.register(Config.self) { _ in
            try await Task.sleep(nanoseconds: 20_000_000)
            return Config()
        }
        .scope(.singleton)
        container.register(Database.self) { _ in
            try await Task.sleep(nanoseconds: 40_000_000)
            return Database()
        }
        .scope(.singleton)
        container.register(HomeFeed.self) { r in
            async let config = r.resolveAsync(Config.self)
            async let database = r.resolveAsync(Database.self)
            _ = try await (config, database)
            try await Task.sleep(nanoseconds: 30_000_000)
            return HomeFeed()
        }
        .scope(.singleton).eager()

        let report = try await container.warmUp()

        let feed = try #require(report.builds.first { $0.service == "HomeFeed" }, "\(report)")
        #expect(feed.seconds >= 0.03, "its own 30 ms, not less the 60 ms its dependencies took together: \(report)")
    }

    @Test func theCriticalPathLeavesOutWorkDoneWhileTheBuildBeforeItRanSoItNeverExceedsTheWallTime() async throws {
        // Config takes 30 ms; HomeFeed works 25 ms meanwhile, then awaits Config, then works 10 ms more.
        let container = DIContainer()
        container.register(Config.self) { _ in
            try await Task.sleep(nanoseconds: 30_000_000)
            return Config()
        }
        .scope(.singleton).eager()
        container.register(HomeFeed.self) { r in
            try await Task.sleep(nanoseconds: 25_000_000)
            _ = try await r.resolveAsync(Config.self)
            try await Task.sleep(nanoseconds: 10_000_000)
            return HomeFeed()
        }
        .scope(.singleton).eager()

        let report = try await container.warmUp()

        #expect(report.criticalPath == ["Config", "HomeFeed"], "\(report)")
        let line = try #require(report.description.split(separator: "\n").first { $0.hasPrefix("critical path, ") })
        let milliseconds = try #require(Double(line.dropFirst("critical path, ".count).prefix { $0 != " " }))
        #expect(milliseconds <= report.wallSeconds * 1000 + 0.05, "\(report)")
    }

    @Test func aCheapServiceBuiltAfterAWaitDoesNotHideTheWaitFromTheCriticalPath() async throws {
        // HomeFeed awaits Config (30 ms), then builds Database (nothing) itself: Database ends last of HomeFeed's
        // dependencies, but it was held back by the wait for Config, which is what bounded the start-up.
        let container = DIContainer()
        container.register(Config.self) { _ in
            try await Task.sleep(nanoseconds: 30_000_000)
            return Config()
        }
        .scope(.singleton).eager()
        container.register(Database.self) { Database() }.scope(.singleton)
        container.register(HomeFeed.self) { r in
            _ = try await r.resolveAsync(Config.self)
            _ = try r.resolve(Database.self)
            return HomeFeed()
        }
        .scope(.singleton).eager()

        let report = try await container.warmUp()

        #expect(report.criticalPath == ["Config", "Database", "HomeFeed"], "\(report)")
        #expect(report.description.contains(": Config, then Database, then HomeFeed"), "\(report)")
    }

    @Test func everyBuildIsTriedAndEveryFailureIsReported() async throws {
        let container = DIContainer()
        container.register(Config.self) { _ in Config() }.scope(.singleton).eager()
        container.register(Broken.self, name: "disk") { _ in
            await Task.yield()
            throw FixtureError(text: "no disk")
        }
        .scope(.singleton).eager()
        container.register(Broken.self, name: "network") { () async throws -> Broken in
            throw FixtureError(text: "no network")
        }
        .scope(.cached).eager()

        let error = await #expect(throws: StartupError.self) { try await container.warmUp() }

        let report = try #require(error?.report)
        #expect(report.failures.count == 2)
        #expect(report.failures.allSatisfy { $0.kind == .factoryThrew })
        #expect(report.description.contains("no disk") && report.description.contains("no network"), "\(report)")
        #expect(report.builds.map(\.service) == ["Config"])
        #expect(container.resolve(Config.self) === container.resolve(Config.self))
    }

    @Test func anEagerRegistrationThatCannotCacheIsAFailureAndAValidationError() async throws {
        let container = DIContainer()
        let line = #line + 1
        container.register(Config.self) { _ in Config() }.eager()

        let error = await #expect(throws: StartupError.self) { try await container.warmUp() }

        let failure = try #require(error?.report.failures.first)
        #expect(failure.description.contains("is marked .eager(), but its scope, .graph, does not cache"), "\(failure)")
        let problem = try onlyProblem(ofKind: .invalidRegistration, in: container.validationReport())
        #expect(problem.severity == .error)
        #expect(problem.location == registeredAt(line))
    }

    @Test func eagerOnAWeakRegistrationIsAWarmUpFailureAndAValidationErrorAsOnOneThatDoesNotCache() async throws {
        let container = DIContainer()
        let line = #line + 1
        container.register(Database.self) { _ in Database() }.scope(.weak).eager()

        let warmUp = await completes("a warm-up with a .weak eager registration") { try await container.warmUp() }
        let failure = try #require(warmUp)
        let error = try #require(throws: StartupError.self) { try failure.get() }
        #expect(error.report.failures.map(\.kind) == [.invalidRegistration], "\(error)")

        for report in [container.validationReport(), await container.validationReportAsync()] {
            let problem = try onlyProblem(ofKind: .invalidRegistration, in: report)
            #expect(problem.severity == .error)
            #expect(problem.location == registeredAt(line))
            #expect(problem.message.contains("is marked .eager(), but its scope, .weak"), "\(problem)")
            #expect(problem.message.contains("warmUp() would build one and release it at once"), "\(problem)")
            #expect(problem.description.contains("fix: give it a scope that keeps it"), "\(problem)")
        }
    }

    @Test func theReportReadsSlowestFirstWithTheSpeedUpAndTheCriticalPath() async throws {
        let container = DIContainer()
        for (index, milliseconds) in [5, 30, 15].enumerated() {
            container.register(Widget.self, name: DIContainer.Name("w\(index)")) { _ in
                try await Task.sleep(nanoseconds: UInt64(milliseconds) * 1_000_000)
                return Widget(serial: index)
            }
            .scope(.singleton).eager()
        }

        let report = try await container.warmUp()

        let lines = report.description.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("warm-up: 3 builds in "), "\(report)")
        #expect(lines[0].contains("one by one they take"), "\(report)")
        #expect(lines[0].hasSuffix("x faster") || lines[0].contains("no faster"), "\(report)")
        #expect(lines.contains { $0.hasPrefix("critical path") }, "\(report)")
        // Slowest first, by the times measured (a busy machine can stretch a 5 ms sleep past a 15 ms one).
        let seconds = report.builds.map(\.seconds)
        #expect(zip(seconds, seconds.dropFirst()).allSatisfy { $0 >= $1 }, "\(report)")
        #expect(Set(report.builds.map(\.service)) == ["Widget[\"w0\"]", "Widget[\"w1\"]", "Widget[\"w2\"]"])
        #expect(abs(report.speedUp - report.serialSeconds / report.wallSeconds) < 1e-9)
    }

    @Test func aReportOfOnlyFastBuildsSaysSoInsteadOfCountingFasterBuildsUnderNoList() async throws {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 1) }.scope(.singleton).eager()

        let report = try await container.warmUp()

        try #require(report.builds.count == 1)
        if report.builds[0].seconds < 0.000_05 {
            #expect(report.description.contains("it took under 0.05 ms"), "\(report)")
            #expect(!report.description.contains("faster build"), "\(report)")
            #expect(!report.description.contains("slowest builds"), "\(report)")
            #expect(!report.description.contains("critical path, 0.0 ms"), "\(report)")
        } else {
            #expect(report.description.contains("slowest builds:\n  Widget (.singleton)"), "\(report)")
        }
    }

    @Test func aWarmUpThatWaitedForABuildMadeElsewhereCountsTheWaitInItsWallTime() async throws {
        // A resolve is building Database (30 ms) when warmUp() starts: it builds Config itself and waits for Database.
        let container = DIContainer()
        let started = AsyncGate()
        container.register(Config.self) { Config() }.scope(.singleton).eager()
        container.register(Database.self) { () async throws -> Database in
            started.openGate()
            try await Task.sleep(nanoseconds: 30_000_000)
            return Database()
        }
        .scope(.singleton).eager()
        let resolve = Task { try await container.resolveAsync(Database.self) }
        await started.wait()
        let waitStart = DispatchTime.now().uptimeNanoseconds

        let report = try await container.warmUp()

        let waited = Double(DispatchTime.now().uptimeNanoseconds - waitStart) / 1_000_000_000
        #expect(report.builds.map(\.service) == ["Config"], "\(report)")
        #expect(report.wallSeconds >= waited / 2, "it waited \(waited) s for Database: \(report)")
        #expect(report.description.contains("most of the wall time went outside this build"), "\(report)")
        _ = try await resolve.value
    }

    @Test func aWarmUpThatMostlyWaitedForABuildMadeElsewhereSaysSoUnderItsCriticalPath() async throws {
        // A resolve is building Database when warmUp() starts, and goes on 30 ms after HomeFeed asks for it:
        // HomeFeed waits for it, then works 5 ms.
        let container = DIContainer()
        let started = AsyncGate()
        let feedAsked = AsyncGate()
        container.register(Database.self) { () async throws -> Database in
            started.openGate()
            await feedAsked.wait()
            try await Task.sleep(nanoseconds: 30_000_000)
            return Database()
        }
        .scope(.singleton).eager()
        container.register(HomeFeed.self) { r in
            feedAsked.openGate()
            _ = try await r.resolveAsync(Database.self)
            try await Task.sleep(nanoseconds: 5_000_000)
            return HomeFeed()
        }
        .scope(.singleton).eager()
        let resolve = Task { try await container.resolveAsync(Database.self) }
        await started.wait()

        let report = try await container.warmUp()

        #expect(report.builds.map(\.service) == ["HomeFeed"], "\(report)")
        #expect(
            report.description.contains(
                "went to waiting for Database, which another warmUp() or a resolve was building"
            ),
            "\(report)"
        )
        #expect(!report.description.contains("waiting for one of the"), "\(report)")
        _ = try await resolve.value
    }

    @Test func cancellingTheTaskThatWarmsUpThrowsCancellationErrorAndLeavesTheRestForLater() async throws {
        let container = DIContainer()
        let started = AsyncGate()
        container.register(Config.self) { Config() }.scope(.singleton).eager()
        container.register(Database.self) { () async throws -> Database in
            started.openGate()
            try await Task.sleep(nanoseconds: 30_000_000_000)  // until cancelled
            return Database()
        }
        .scope(.singleton).eager()

        let outcome = await completes("a cancelled warm-up") {
            let warmUp = Task { try await container.warmUp() }
            await started.wait()
            warmUp.cancel()
            return await warmUp.result
        }

        let result = try #require(try outcome?.get())
        #expect(throws: CancellationError.self, "not a StartupError: the caller cancelled") { try result.get() }
        #expect(container.resolve(Config.self) === container.resolve(Config.self), "a finished build stays built")
        #expect(throws: ResolutionError.self, "the cancelled build is left unbuilt") {
            try container.resolveThrowing(Database.self)
        }
    }

    @Test func aChainOfSynchronousReadsOfEagerAsyncSingletonsSettlesWaveAfterWave() async throws {
        // HomeFeed reads Database synchronously, and Database's async factory reads Config synchronously: Database
        // can only be built once Config is, and HomeFeed once Database is, a round after the round after the first.
        let container = DIContainer()
        container.register(Config.self) { () async throws -> Config in
            try await Task.sleep(nanoseconds: 20_000_000)
            return Config()
        }
        .scope(.singleton).eager()
        container.register(Database.self) { (r: DIResolver) async throws -> Database in
            _ = try r.resolve(Config.self)
            try await Task.sleep(nanoseconds: 20_000_000)
            return Database()
        }
        .scope(.singleton).eager()
        container.register(HomeFeed.self) { r in
            _ = try r.resolve(Database.self)
            return HomeFeed()
        }
        .scope(.singleton).eager()

        let outcome = await completes("a warm-up of a chain of synchronous reads") {
            try await container.warmUp()
        }

        let report = try #require(try outcome?.get(), "warmUp() failed")
        #expect(report.failures.isEmpty, "\(report)")
        #expect(report.builds.count == 3, "\(report)")
    }

    @Test func aSynchronousFactoryThatReadsAnEagerAsyncSingletonIsBuiltAfterIt() async throws {
        let container = DIContainer()
        let gate = AsyncGate()
        let attempts = Counter()
        container.register(Database.self) { _ in
            await gate.wait()  // not built until the synchronous factory below has tried once
            return Database()
        }
        .scope(.singleton).eager()
        container.register(HomeFeed.self) { r in
            attempts.increment()
            defer { gate.openGate() }
            _ = try r.resolve(Database.self)
            return HomeFeed()
        }
        .scope(.singleton).eager()

        let report = try await container.warmUp()

        #expect(report.failures.isEmpty, "\(report)")
        #expect(attempts.value == 2, "tried once before the database was built, and once after")
        #expect(try container.resolveThrowing(HomeFeed.self) === container.resolve(HomeFeed.self))
    }

    @Test func underAnOverrideTheOverridesEagerRegistrationIsBuiltNotTheOneItShadows() async throws {
        let container = DIContainer()
        let realBuilds = Counter()
        container.register(Database.self) { _ in
            realBuilds.increment()
            return Database()
        }
        .scope(.singleton).eager()
        let configBuilds = Counter()
        container.register(Config.self) { _ in
            configBuilds.increment()
            return Config()
        }
        .scope(.singleton).eager()

        let report = try await withOverrides(in: container) {
            $0.register(Database.self) { Database() }.scope(.singleton).eager()
        } operation: {
            try await container.warmUp()
        }

        #expect(realBuilds.value == 0, "the shadowed registration's factory ran")
        #expect(report.builds.map(\.service).sorted() == ["Config", "Database"])
        _ = try await container.resolveAsync(Config.self)
        #expect(configBuilds.value == 2, "what warmUp built under the override was dropped with it")
    }

    @Test func aSecondWarmUpUnderTheSameOverridesHasNothingToBuild() async throws {
        let container = DIContainer()
        container.register(Config.self) { _ in Config() }.scope(.singleton).eager()

        let (first, second) = try await withOverrides(in: container) {
            $0.register(Database.self) { Database() }.scope(.singleton).eager()
        } operation: {
            (try await container.warmUp(), try await container.warmUp())
        }

        #expect(first.builds.map(\.service).sorted() == ["Config", "Database"], "\(first)")
        #expect(second.builds.isEmpty, "\(second)")
        #expect(second.description.hasPrefix("warm-up: nothing to build"), "\(second)")
    }

    @Test func aWarmUpWithNothingToBuildSaysSo() async throws {
        let container = DIContainer()
        container.register(Config.self) { _ in Config() }.scope(.singleton)

        let report = try await container.warmUp()

        #expect(report.description.contains("nothing to build"), "\(report)")
        #expect(report.description.contains(".eager()"), "\(report)")
    }

    @Test func aWarmUpThatWaitedForAnotherOnesBuildsSaysSo() async throws {
        let container = DIContainer()
        let gate = AsyncGate()
        let builds = Counter()
        container.register(Database.self) { () async throws -> Database in
            builds.increment()
            await gate.wait()
            return Database()
        }
        .scope(.singleton).eager()
        let first = Task { try await container.warmUp() }
        #expect(await eventually { builds.value == 1 }, "the first warm-up builds")
        let second = Task { try await container.warmUp() }
        #expect(await eventually { container.resolvesWaitingForBuild(of: Database.self) == 1 })
        gate.openGate()

        let report = try #require(try await completes("two warm-ups at once") { try await second.value }?.get())
        _ = try await first.value

        #expect(
            report.description.hasPrefix(
                "warm-up: nothing left to build: the eager service it found unbuilt was built meanwhile by another warmUp()"
            ),
            "\(report)"
        )
    }

    @Test func validateAsyncBuildsScreensWhoseServicesAreEagerAndAsync() async throws {
        let container = DIContainer()
        container.register(Database.self) { _ in
            await Task.yield()
            return Database()
        }
        .scope(.singleton).eager()

        // A screen with an @Injected Database, made with init(): its wrapper reads the eager async singleton.
        let report = await container.validationReportAsync(building: { Injected<Database>(container: container) })

        #expect(report.untimedProblems.isEmpty, "\(report)")
        let graph = DrawnGraph(dot: report.dot())
        #expect(graph.nodes.contains { $0.label.contains("validate(building:)") }, "\(report.dot())")
    }

    @Test func onBuildObserversSeeWarmUpsBuilds() async throws {
        let container = DIContainer()
        let seen = Collector<String>()
        container.onBuild { seen.append($0.service) }
        container.register(Config.self) { _ in Config() }.scope(.singleton).eager()
        container.register(Database.self) { Database() }.scope(.singleton).eager()

        try await container.warmUp()

        #expect(seen.values.sorted() == ["Config", "Database"])
    }

    @Test func aParentsEagerRegistrationsAreBuiltAndAScopedOneForThisContainer() async throws {
        let root = DIContainer()
        root.register(Config.self) { _ in Config() }.scope(.singleton).eager()
        root.register(Database.self) { Database() }.scope(.scoped).eager()
        let session = root.makeChild()

        try await session.warmUp()

        #expect(session.resolve(Database.self) === session.resolve(Database.self))
        #expect(try root.resolveThrowing(Config.self) === session.resolve(Config.self))
    }

    @Test func theReportShowsOnlyWhatWasBuiltForAnEagerOneAsBuiltViaIt() async throws {
        // Database's factory awaits Config, which is eager too: whether Config's own build or Database's request
        // reaches it first is a race, which the report does not show. FeatureFlags is not eager: it is built only
        // because HomeFeed asks, which the report says.
        for _ in 0..<20 {
            let container = DIContainer()
            container.register(Database.self) { r in
                _ = try await r.resolveAsync(Config.self)
                try await Task.sleep(nanoseconds: 1_000_000)
                return Database()
            }
            .scope(.singleton).eager()
            container.register(Config.self) { _ in
                try await Task.sleep(nanoseconds: 1_000_000)
                return Config()
            }
            .scope(.singleton).eager()
            container.register(FeatureFlags.self) { _ in
                try await Task.sleep(nanoseconds: 1_000_000)
                return FeatureFlags()
            }
            .scope(.singleton)
            container.register(HomeFeed.self) { r in
                _ = try await r.resolveAsync(FeatureFlags.self)
                return HomeFeed()
            }
            .scope(.singleton).eager()

            let lines = try await container.warmUp().description.split(separator: "\n")

            let config = try #require(lines.first { $0.hasPrefix("  Config ") }, "\(lines)")
            #expect(!config.contains("via"), "\(lines)")
            let flags = try #require(lines.first { $0.hasPrefix("  FeatureFlags ") }, "\(lines)")
            #expect(flags.hasSuffix("via HomeFeed"), "\(lines)")
        }
    }

    @Test func validateAsyncSaysARootCannotReadItsScopedEagerAsyncServiceSynchronously() async throws {
        let root = DIContainer()
        root.register(Database.self) { _ in
            await Task.yield()
            return Database()
        }
        .scope(.scoped).eager()
        root.register(HomeFeed.self) { r in
            _ = try r.resolve(Database.self)
            return HomeFeed()
        }
        .scope(.scoped)

        let report = await root.validationReportAsync()

        let error = try #require(report.errors.first { $0.service == "Database" }, "\(report)")
        #expect(error.message.contains("a root container's warmUp() builds no .scoped registration"), "\(error)")
        // What validation says is what happens.
        try await root.warmUp()
        #expect(throws: ResolutionError.self) { try root.resolveThrowing(HomeFeed.self) }
        // Through a child, whose own warmUp() builds it, the same wiring is valid and works.
        let session = root.makeChild()
        #expect((await session.validationReportAsync()).isValid)
        try await session.warmUp()
        _ = try session.resolveThrowing(HomeFeed.self)
    }

    @Test func aRootsWarmUpLeavesItsScopedEagerRegistrationsToItsChildScopes() async throws {
        // A session service that needs what only the session registers: the app's warmUp() at launch cannot build
        // it, and must not fail for it.
        let root = DIContainer()
        let built = Counter()
        root.register(Config.self) { _ in Config() }.scope(.singleton).eager()
        root.register(Database.self) { r in
            built.increment()
            _ = try r.resolve(FeatureFlags.self)  // the session's
            return Database()
        }
        .scope(.scoped).eager()

        let report = try await root.warmUp()

        #expect(report.builds.map(\.service) == ["Config"], "\(report)")
        #expect(built.value == 0)
        let session = root.makeChild()
        session.register(FeatureFlags.self) { FeatureFlags() }
        try await session.warmUp()
        #expect(built.value == 1)
    }
}

extension WarmUpTests {
    @Test func aBuildTriedAgainAfterEveryOtherOneHasWhatItWaitedForOnItsCriticalPath() async throws {
        // HomeFeed's synchronous factory reads Config before Config is built (Config's factory waits for that
        // read), so it fails, and warmUp() tries it again after every other build: after FeatureFlags, which
        // waited for Config. HomeFeed's own dependency, Config, did not hold it back; FeatureFlags did.
        let container = DIContainer()
        let homeFeedRead = AsyncGate()
        container.register(Config.self) { _ in
            await homeFeedRead.wait()
            return Config()
        }
        .scope(.singleton).eager()
        container.register(FeatureFlags.self) { r in
            _ = try await r.resolveAsync(Config.self)
            return FeatureFlags()
        }
        .scope(.singleton).eager()
        container.register(HomeFeed.self) { r in
            homeFeedRead.openGate()
            _ = try r.resolve(Config.self)
            return HomeFeed()
        }
        .scope(.singleton).eager()

        let outcome = await completes("a warm-up that tries a build again") { try await container.warmUp() }
        let report = try #require(try outcome?.get())

        #expect(report.criticalPath == ["Config", "FeatureFlags", "HomeFeed"], "\(report)")
        #expect(
            report.description.contains(
                "note: HomeFeed waited for every other eager build: its synchronous factory read Config before it was built"
            ),
            "\(report)"
        )
        #expect(report.description.contains("r.resolveAsync(Config.self)"), "\(report)")
    }
}

extension WarmUpTests {
    @Test func aMainActorBuildTriedAgainIsToldToAwaitInAnAsyncFactoryItCanHave() async throws {
        // HomeScreen's mainActorFactory reads Config before it is built: a mainActorFactory cannot await, so the note
        // says how to await Config first and then make HomeScreen on the main actor.
        let container = DIContainer()
        let screenRead = AsyncGate()
        container.register(Config.self) { _ in
            await screenRead.wait()
            return Config()
        }
        .scope(.singleton).eager()
        container.register(
            HomeScreen.self,
            mainActorFactory: { r in
                screenRead.openGate()
                _ = try r.resolve(Config.self)
                usleep(2_000)  // long enough for the critical path to be listed
                return HomeScreen()
            }
        )
        .scope(.singleton).eager()

        let outcome = await completes("a warm-up that tries a main-actor build again") {
            try await container.warmUp()
        }
        let report = try #require(try outcome?.get())

        #expect(report.criticalPath.last == "HomeScreen", "\(report)")
        #expect(
            report.description.contains(
                """
                register HomeScreen with an async factory that awaits r.resolveAsync(Config.self) and then makes it on \
                the main actor (await MainActor.run { ... })
                """
            ),
            "\(report)"
        )
    }

    @Test func anEagerBuildThatCaughtItsReadOfAnUnbuiltAsyncServiceIsNamedInTheReport() async throws {
        // Flags reads Config with try? before Config is built (Config waits for that read): it is kept
        // without Config, which the report says, with how to wait for Config instead.
        let container = DIContainer()
        let flagsRead = AsyncGate()
        container.register(Config.self) { _ in
            await flagsRead.wait()
            return Config()
        }
        .scope(.singleton).eager()
        container.register(Flags.self) { r in
            let config = try? r.resolve(Config.self)
            flagsRead.openGate()
            return Flags(hasConfig: config != nil)
        }
        .scope(.singleton).eager()

        let outcome = await completes("a warm-up with a caught read") { try await container.warmUp() }
        let report = try #require(try outcome?.get())

        #expect(container.resolve(Flags.self).hasConfig == false, "kept as built")
        #expect(
            report.description.contains(
                """
                note: Flags was built without Config: its factory read Config with r.resolve before warmUp() \
                had built it, and the build went on past the error (a try?, or a catch)
                """
            ),
            "\(report)"
        )
        #expect(
            report.description.contains("make its factory async and await r.resolveAsync(Config.self)"),
            "\(report)"
        )
    }

    @Test func aBuildKeptWithoutWhatItsDependencyCaughtIsToldToAwaitItBeforeAskingForThatDependency() async throws {
        // HomeFeed needs Database, whose factory reads Config with try? before Config is built: awaiting Config in
        // Database's factory would make Database async, which HomeFeed's synchronous read could not get.
        let container = DIContainer()
        let databaseRead = AsyncGate()
        container.register(Config.self) { _ in
            await databaseRead.wait()
            return Config()
        }
        .scope(.singleton).eager()
        container.register(Database.self) { r in
            _ = try? r.resolve(Config.self)
            databaseRead.openGate()
            return Database()
        }
        .scope(.singleton)
        container.register(HomeFeed.self) { r in
            _ = try r.resolve(Database.self)
            return HomeFeed()
        }
        .scope(.singleton).eager()

        let outcome = await completes("a warm-up with a caught read") { try await container.warmUp() }
        let report = try #require(try outcome?.get())

        #expect(
            report.description.contains(
                """
                note: HomeFeed was built without Config: Database, which its build needs, read Config with r.resolve \
                before warmUp() had built it
                """
            ),
            "\(report)"
        )
        #expect(
            report.description.contains(
                "make HomeFeed's factory async and await r.resolveAsync(Config.self) there before it asks for Database"
            ),
            "\(report)"
        )
    }

    @Test func mainActorBuildsOneAfterAnotherAreSaidToRunOneAtATime() async throws {
        // Three main-actor builds of 3 ms each: they cannot run in parallel, however long each is.
        let container = DIContainer()
        for name in ["a", "b", "c"] {
            container.register(
                HomeScreen.self,
                name: DIContainer.Name(name),
                mainActorFactory: { _ in
                    usleep(3_000)
                    return HomeScreen()
                }
            )
            .scope(.singleton).eager()
        }

        let outcome = await completes("a warm-up of main-actor builds") { try await container.warmUp() }
        let report = try #require(try outcome?.get())

        let summary = try #require(report.description.split(separator: "\n").first)
        // On a busy machine the hops to the main actor can take longer than the builds: said as time outside them.
        if report.speedUp < 1.05, !summary.contains("outside these builds") {
            #expect(
                summary.contains("builds on the main actor (mainActorFactory), which run one at a time"),
                "\(report)"
            )
        }
        #expect(!summary.contains("too little to build in parallel"), "\(report)")
    }

    @Test func aBuildKeptWithoutAServiceNothingBuildsSaysNothingHadBuiltIt() async throws {
        // Config is async and not eager, and no eager build awaits it: Flags's try? read can never find it.
        let container = DIContainer()
        container.register(Config.self) { () async -> Config in Config() }.scope(.singleton)
        container.register(Flags.self) { r in Flags(hasConfig: (try? r.resolve(Config.self)) != nil) }
            .scope(.singleton).eager()

        let report = try await container.warmUp()

        #expect(
            report.description.contains(
                "its factory read Config with r.resolve when nothing had built it (warmUp() builds it only if it is"
            ),
            "\(report)"
        )
    }

    @Test func aRetriedBuildWhoseDependencyReadTooEarlySaysWhichOneDid() async throws {
        // HomeFeed's async factory awaits Database, whose synchronous factory reads Config before Config is built.
        let container = DIContainer()
        let databaseRead = AsyncGate()
        container.register(Config.self) { _ in
            await databaseRead.wait()
            try await Task.sleep(nanoseconds: 2_000_000)  // long enough for the critical path to be listed
            return Config()
        }
        .scope(.singleton).eager()
        container.register(Database.self) { r in
            databaseRead.openGate()
            _ = try r.resolve(Config.self)
            return Database()
        }
        .scope(.cached)
        container.register(HomeFeed.self) { r in
            _ = try await r.resolveAsync(Database.self)
            return HomeFeed()
        }
        .scope(.singleton).eager()

        let outcome = await completes("a warm-up whose dependency reads too early") { try await container.warmUp() }
        let report = try #require(try outcome?.get())

        #expect(
            report.description.contains(
                "note: HomeFeed waited for every other eager build: Database, which its build needs, read Config"
            ),
            "\(report)"
        )
        #expect(report.description.contains("in HomeFeed's factory before it asks for Database"), "\(report)")
    }

    @Test func aStubThatIsNotEagerOverAnEagerServiceSaysToMarkTheStubEager() async throws {
        let container = DIContainer()
        container.register(Database.self) { () async throws -> Database in Database() }.scope(.singleton).eager()
        container.register(HomeFeed.self) { r in
            _ = try r.resolve(Database.self)
            return HomeFeed()
        }
        .scope(.singleton).eager()

        try await withOverrides(in: container) {
            $0.register(Database.self) { () async throws -> Database in Database() }.scope(.singleton)
        } operation: {
            let error = try await #require(throws: StartupError.self) { try await container.warmUp() }

            let failure = try #require(error.report.failures.first { $0.service == "Database" }, "\(error)")
            #expect(failure.description.contains("Database here is a test override, registered at"), "\(failure)")
            #expect(failure.description.contains("fix: mark the override .eager() too"), "\(failure)")
        }
    }

    @Test func oneSlowBuildBesideQuickOnesIsNamedAsWhyItWasNoFaster() async throws {
        let container = DIContainer()
        container.register(Config.self) { _ in
            try await Task.sleep(nanoseconds: 50_000_000)
            return Config()
        }
        .scope(.singleton).eager()
        container.register(FeatureFlags.self) { FeatureFlags() }.scope(.singleton).eager()

        let report = try await container.warmUp()

        let summary = try #require(report.description.split(separator: "\n").first.map(String.init))
        // On a busy machine, the line goes on to say where the rest of the wall time went.
        #expect(summary.contains("no faster: one build, Config, took nearly all of the time"), "\(report)")
    }

    @Test func timeSpentInBuildsThatFailedIsNotBlamedOnWhatIsOutsideTheBuilds() async throws {
        struct Locked: Error {}
        let container = DIContainer()
        container.register(Config.self) { () async throws -> Config in
            try await Task.sleep(nanoseconds: 30_000_000)
            throw Locked()
        }
        .scope(.singleton).eager()
        container.register(FeatureFlags.self) { FeatureFlags() }.scope(.singleton).eager()
        container.register(HomeFeed.self) { HomeFeed() }.scope(.singleton).eager()

        let error = try await #require(throws: StartupError.self) { try await container.warmUp() }

        let summary = try #require(error.report.description.split(separator: "\n").first.map(String.init))
        #expect(summary.hasPrefix("warm-up: 2 builds in "), "\(error)")
        // Unless the machine held the warm-up up far longer than Config's 30 ms (the thread sanitizer beside every
        // other test can), which the line then rightly puts outside the builds.
        if error.report.wallSeconds < 0.09 {
            #expect(summary.hasSuffix("counting only the builds that succeeded: the failed ones (below) took time too"))
            #expect(!error.description.contains("outside these builds"), "\(error)")
        } else {
            #expect(
                summary.contains("the failed ones (below) took time too") || summary.contains("outside these builds")
            )
        }
    }

    @Test func aSingleBuildIsNotComparedWithItselfOneByOne() async throws {
        let container = DIContainer()
        container.register(Config.self) { Config() }.scope(.singleton).eager()

        let report = try await container.warmUp()

        let summary = try #require(report.description.split(separator: "\n").first.map(String.init))
        #expect(summary.hasPrefix("warm-up: 1 build in "), "\(report)")
        #expect(!summary.contains("one by one"), "\(report)")
    }

    @Test func anAsyncFactoryTriedAgainIsToldToAwaitWhatItReadSynchronously() async throws {
        let container = DIContainer()
        container.register(Config.self) { _ in
            try await Task.sleep(nanoseconds: 30_000_000)
            return Config()
        }
        .scope(.singleton).eager()
        container.register(HomeFeed.self) { (r: DIResolver) async throws in
            _ = try r.resolve(Config.self)  // before Config is built: tried again after it
            return HomeFeed()
        }
        .scope(.singleton).eager()

        let report = try await container.warmUp()

        #expect(
            report.description.contains(
                "note: HomeFeed waited for every other eager build: its async factory read Config synchronously, with r.resolve"
            ),
            "\(report)"
        )
        #expect(report.description.contains("awaiting r.resolveAsync(Config.self) instead"), "\(report)")
        #expect(!report.description.contains("synchronous factory"), "\(report)")
    }

    @Test func aChainOfDependentBuildsSaysThatIsWhyItWasNoFaster() async throws {
        let container = DIContainer()
        container.register(Config.self) { _ in
            try await Task.sleep(nanoseconds: 5_000_000)
            return Config()
        }
        .scope(.singleton).eager()
        container.register(FeatureFlags.self) { r in
            _ = try await r.resolveAsync(Config.self)
            return FeatureFlags()
        }
        .scope(.singleton).eager()

        let report = try await container.warmUp()

        let summary = try #require(report.description.split(separator: "\n").first.map(String.init))
        // On a busy machine, the line goes on to say where the rest of the wall time went.
        #expect(summary.contains("no faster: each build waited for the one before it (the critical path below)"))
    }
}

/// A screen whose wrapper names the container it resolves through.
private final class ScreenOfAnotherContainer {
    let database: Injected<Database>

    init(_ container: DIContainer) {
        database = Injected(container: container)
    }
}

/// Made on the main actor, for a synchronous eager factory that reads it.
@MainActor private final class LaunchScreen: LaunchScreenShowing {}

private protocol LaunchScreenShowing: AnyObject {}

extension WarmUpTests {
    @Test func aSynchronousReadOfAnEagerServiceWhoseBuildFailedSaysItFailed() async throws {
        let container = DIContainer()
        container.register(Config.self) { () async throws -> Config in throw FixtureError(text: "offline") }
            .scope(.singleton).eager()
        container.register(HomeFeed.self) { r in
            _ = try r.resolve(Config.self)
            return HomeFeed()
        }
        .scope(.singleton).eager()

        let error = await #expect(throws: StartupError.self) { try await container.warmUp() }

        let failures = try #require(error?.report.failures)
        let feed = try #require(failures.first { $0.path.first == "HomeFeed" }, "\(failures)")
        #expect(feed.kind == .notBuiltYet)
        #expect(feed.description.contains("its last build failed: the factory of Config"), "\(feed)")
        #expect(feed.description.contains("threw: offline"), "\(feed)")
        #expect(!feed.description.contains("warmUp() has not been called yet"), "\(feed)")
        let sync = try #require(throws: ResolutionError.self) { try container.resolveThrowing(HomeFeed.self) }
        #expect(sync.description.contains("its last build failed"), "\(sync)")
    }

    @Test func eachEagerBuildThatWaitedForAFailedOneHasAPathOfItsOwn() async throws {
        let container = DIContainer()
        container.register(FeatureFlags.self) { r in
            _ = try await r.resolveAsync(Config.self)
            return FeatureFlags()
        }
        .scope(.singleton).eager()
        container.register(Config.self) { () async throws -> Config in
            await Task.yield()
            throw FixtureError(text: "offline")
        }
        .scope(.singleton).eager()

        let error = await #expect(throws: StartupError.self) { try await container.warmUp() }

        // Whichever of the two builds Config, the other waits for that build: each failure starts where it began.
        let paths = try #require(error?.report.failures).map(\.path)
        #expect(paths.contains(["Config"]), "\(paths)")
        #expect(paths.contains(["FeatureFlags", "Config"]), "\(paths)")
        #expect(paths.count == 2, "\(paths)")
    }

    @Test func anEagerServiceOfAChildReadAfterItsParentsWarmUpSaysToWarmUpTheChild() async throws {
        let app = DIContainer()
        let session = app.makeChild()
        session.register(Config.self) { () async -> Config in Config() }.scope(.singleton).eager()

        _ = try await app.warmUp()

        let error = try #require(throws: ResolutionError.self) { try session.resolveThrowing(Config.self) }
        #expect(error.description.contains("registered in a child container: that child's own warmUp()"), "\(error)")
        _ = try await session.warmUp()
        #expect(try session.resolveThrowing(Config.self) === session.resolve(Config.self))
    }

    @Test func aSynchronousEagerFactoryThatReadsAMainActorServiceSaysWarmUpRunsItOffTheMainActor() async throws {
        let container = DIContainer()
        container.register(mainActorFactory: { _ in LaunchScreen() })
        let line = #line + 1
        container.register(HomeFeed.self) { r in
            _ = try r.resolve(LaunchScreen.self)
            return HomeFeed()
        }
        .scope(.singleton).eager()

        let error = await #expect(throws: StartupError.self) { try await container.warmUp() }

        let failure = try #require(error?.report.failures.first)
        #expect(failure.kind == .notOnMainActor)
        #expect(failure.registration == registeredAt(line), "\(failure)")
        #expect(failure.description.contains("warmUp() runs synchronous factories off the main actor"), "\(failure)")
        #expect(failure.description.contains("fix: register HomeFeed with mainActorFactory too"), "\(failure)")
    }

    @Test func aSynchronousEagerFactoryReadingAMainActorServiceThroughItsProtocolNamesTheFactory() async throws {
        let container = DIContainer()
        container.register(mainActorFactory: { _ in LaunchScreen() }).implements(LaunchScreenShowing.self)
        let line = #line + 1
        container.register(HomeFeed.self) { r in
            _ = try r.resolve(LaunchScreenShowing.self)
            return HomeFeed()
        }
        .scope(.singleton).eager()

        let error = await #expect(throws: StartupError.self) { try await container.warmUp() }

        let failure = try #require(error?.report.failures.first)
        #expect(failure.registration == registeredAt(line), "\(failure)")
        #expect(failure.description.contains("fix: register HomeFeed with mainActorFactory too"), "\(failure)")
    }
}

/// The container of ``ScreenReadingConfig``'s property, which needs it at declaration.
private let screenContainer: DIContainer = {
    let container = DIContainer()
    container.register(Config.self) { () async -> Config in Config() }.scope(.singleton)  // not .eager()
    return container
}()

/// A screen made with `init()`, with an `@Injected` property of an async service nothing builds first.
private final class ScreenReadingConfig: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in init.
    @Injected(container: screenContainer) var config: Config
}

struct AsyncValidationTests {
    @Test func aTestOverrideOfAContainerOutsideTheValidationIsJudgedAsThatContainers() async throws {
        let other = DIContainer()
        other.register(Database.self) { Database() }.scope(.singleton)
        let validated = DIContainer()

        let report = await withOverrides(in: other) {
            $0.register(Database.self) { () async throws -> Database in Database() }.scope(.singleton).eager()
        } operation: {
            await validated.validationReportAsync(building: { ScreenOfAnotherContainer(other) })
        }

        let error = try #require(report.errors.first, "\(report)")
        #expect(error.message.contains("in a container that this validation does not cover"), "\(error)")
    }

    @Test func aScreenWhoseWrapperNamesAnotherContainerIsToldToValidateThatOne() async throws {
        let other = DIContainer()
        other.register(Database.self) { () async throws -> Database in Database() }.scope(.singleton).eager()
        let validated = DIContainer()

        let report = await validated.validationReportAsync(building: { ScreenOfAnotherContainer(other) })

        let error = try #require(report.errors.first, "\(report)")
        #expect(error.message.contains("in a container that this validation does not cover"), "\(error)")
        #expect(error.description.contains("fix: validate the container the request goes through"), "\(error)")
        #expect(!error.description.contains("warmUp() has not been called"), "\(error)")
        #expect(await other.validationReportAsync(building: { ScreenOfAnotherContainer(other) }).isValid)
    }

    @Test func aReadThatFailsOnlyWhenItsReaderIsResolvedFirstSaysSoRatherThanBlameTheRouteThatWorks() async throws {
        let container = DIContainer()
        container.register(Config.self) { () async throws -> Config in Config() }
        container.register(FeatureFlags.self) { r in
            _ = try r.resolve(Config.self)
            return FeatureFlags()
        }
        container.register(HomeFeed.self) { (r: DIResolver) async throws in
            _ = try await r.resolveAsync(Config.self)
            _ = try r.resolve(FeatureFlags.self)  // works: Config is built earlier in this resolution
            return HomeFeed()
        }

        let report = await container.validationReportAsync()

        let error = try #require(report.errors.first, "\(report)")
        #expect(error.description.contains("path: FeatureFlags -> Config\n"), "\(error)")
        #expect(error.description.contains("what fails is resolving FeatureFlags first"), "\(error)")
        #expect(!error.description.contains("reached here through"), "\(error)")
        _ = try await container.resolveAsync(HomeFeed.self)
        await #expect(throws: ResolutionError.self) { try await container.resolveAsync(FeatureFlags.self) }
    }

    @Test func aScreensInjectedPropertyOfAnAsyncServiceIsReportedAtItsDeclaration() async throws {
        let report = await screenContainer.validationReportAsync(building: { ScreenReadingConfig() })

        #expect(report.untimedProblems.count == 1, "\(report)")
        let problem = try #require(report.untimedProblems.first, "\(report)")
        #expect(problem.severity == .error)
        #expect(problem.location.hasPrefix("InjectTests/WarmUpTests.swift:"), "the property's line: \(problem)")
        #expect(problem.description.contains("asked by: @Injected Config at InjectTests/WarmUpTests.swift:"))
        #expect(!problem.description.contains("a resolve call outside any factory"), "\(problem)")
    }

    @Test func validateWarnsAboutAsyncRegistrationsAndNamesValidateAsync() throws {
        let container = DIContainer()
        container.register(Database.self) { _ in
            await Task.yield()
            return Database()
        }
        .scope(.singleton)

        let report = container.validationReport()

        let warning = try onlyProblem(ofKind: .notBuilt, in: report)
        #expect(warning.severity == .warning)
        #expect(warning.description.contains("validateAsync()"), "\(warning)")
        #expect(report.isValid)
    }

    @Test func validateAsyncBuildsAsyncFactoriesInTheThrowawayScope() async throws {
        let container = DIContainer()
        let builds = Counter()
        container.register(Database.self) { _ in
            builds.increment()
            await Task.yield()
            return Database()
        }
        .scope(.singleton)
        .eager()
        container.register(HomeFeed.self) { r in
            _ = try r.resolve(Database.self)  // synchronous: fine, warmUp() builds the eager singleton first
            _ = try r.resolve(Config.self)  // missing
            return HomeFeed()
        }

        let report = await container.validationReportAsync()

        let missing = try onlyProblem(ofKind: .missingRegistration, in: report)
        #expect(missing.message.contains("Config"), "\(missing)")
        #expect(report.problems(ofKind: .notBuilt).isEmpty, "\(report)")
        #expect(builds.value == 1)
        _ = try await container.resolveAsync(Database.self)
        #expect(builds.value == 2, "nothing validateAsync() built survived it")
        let graph = DrawnGraph(dot: report.dot())
        #expect(graph.edge(from: graph.node("HomeFeed"), to: graph.node("Database")) != nil, "\(report.dot())")
        await #expect(throws: ValidationError.self) { try await container.validateAsync() }
    }

    @Test func aSynchronousReadOfAnAsyncSingletonNothingBuildsFirstIsAnError() async throws {
        let container = DIContainer()
        let line = #line + 1
        container.register(Database.self) { _ in
            await Task.yield()
            return Database()
        }
        .scope(.singleton)
        container.register(HomeFeed.self) { r in
            _ = try r.resolve(Database.self)
            return HomeFeed()
        }
        .scope(.singleton)

        let report = await container.validationReportAsync()

        let error = try #require(report.errors.first, "\(report)")
        #expect(
            error.message.contains("Database, registered at \(registeredAt(line)), is read synchronously"),
            "\(error)"
        )
        #expect(error.message.contains("it is not .eager(), and no eager service's build awaits it"), "\(error)")
        #expect(error.description.contains("fix: mark its registration .eager()"), "\(error)")
        let syncWarning = try #require(
            container.validationReport().warnings.first {
                $0.message.contains("HomeFeed") || $0.message.contains("Database")
            }
        )
        #expect(syncWarning.description.contains("validateAsync()"), "\(syncWarning)")
    }

    @Test func aSynchronousReadAfterAnAsyncResolveInTheSameResolutionIsValid() async throws {
        let container = DIContainer()
        container.register(Database.self) { _ in
            await Task.yield()
            return Database()
        }
        .scope(.singleton)
        container.register(FeatureFlags.self) { r in
            _ = try r.resolve(Database.self)  // built by the async resolve below, in the same resolution
            return FeatureFlags()
        }
        container.register(HomeFeed.self) { r in
            _ = try await r.resolveAsync(Database.self)
            _ = try r.resolve(FeatureFlags.self)
            return HomeFeed()
        }

        let report = await container.validationReportAsync()

        // Resolving HomeFeed works; resolving FeatureFlags on its own would not, and that alone is reported.
        let error = try #require(report.errors.first, "\(report)")
        #expect(report.errors.count == 1, "\(report)")
        #expect(error.description.contains("path: FeatureFlags -> Database"), "\(error)")
    }

    @Test func aSynchronousReadOfAGraphAsyncServiceTheAsyncFactoryResolvedFirstIsValidAsAtRunTime() async throws {
        let container = DIContainer()
        container.register(Database.self) { _ in
            await Task.yield()
            return Database()
        }
        let sameInstance = Collector<Bool>()
        container.register(HomeFeed.self) { r in
            let first = try await r.resolveAsync(Database.self)
            let second = try r.resolve(Database.self)  // this resolution's .graph instance, built just above
            sameInstance.append(first === second)
            return HomeFeed()
        }

        let report = await container.validationReportAsync()

        #expect(report.errors.isEmpty, "\(report)")
        _ = try await container.resolveAsync(HomeFeed.self)
        #expect(sameInstance.values == [true, true], "validation and run time both read the one built")
    }

    @Test func resolveAllAfterAnAsyncResolveOfItsGraphElementIsValidAsAtRunTime() async throws {
        let container = DIContainer()
        container.register(Exporter.self) { PDFExporter() }
        container.register(Exporter.self, name: "slow") { _ -> Exporter in
            await Task.yield()
            return MarkdownExporter()
        }
        container.register(HomeFeed.self) { r in
            _ = try await r.resolveAsync(Exporter.self, name: "slow")
            let all = try r.resolveAll(Exporter.self)
            #expect(all.count == 2)
            return HomeFeed()
        }

        let report = await container.validationReportAsync()

        #expect(report.errors.isEmpty, "\(report)")
        _ = try await container.resolveAsync(HomeFeed.self)
    }

    @Test func aSynchronousReadOfAGraphAsyncServiceNothingResolvedFirstIsStillAnError() async throws {
        let container = DIContainer()
        container.register(Database.self) { _ in
            await Task.yield()
            return Database()
        }
        container.register(FeatureFlags.self) { _ in
            await Task.yield()
            return FeatureFlags()
        }
        .resolveProperties { r, _ in _ = try r.resolve(Database.self) }
        container.register(HomeFeed.self) { r in
            _ = try await r.resolveAsync(Database.self)  // another resolution's instance: gone when HomeFeed asks
            return HomeFeed()
        }

        let report = await container.validationReportAsync()

        let error = try #require(report.errors.first, "\(report)")
        #expect(report.errors.count == 1, "\(report)")
        #expect(error.description.contains("path: FeatureFlags -> Database"), "\(error)")
        await #expect(throws: ResolutionError.self) { try await container.resolveAsync(FeatureFlags.self) }
    }

    @Test func anAsyncCycleClosedOnOneSideIsJudgedForEveryEntryPoint() async throws {
        let container = DIContainer()
        container.register(Config.self) { _ in Config() }
            .resolveProperties { r, _ in _ = try r.resolve(FeatureFlags.self) }
        container.register(FeatureFlags.self) { r in
            _ = try await r.resolveAsync(Config.self)
            return FeatureFlags()
        }

        let report = await container.validationReportAsync()

        let cycle = try onlyProblem(ofKind: .cycle, in: report)
        #expect(cycle.message.contains("resolving FeatureFlags first"), "\(cycle)")
    }

    @Test func aSynchronousReadThatAnAsyncCycleKeepsUnbuiltSaysToBreakTheCycleNotToMakeItEager() async throws {
        let container = DIContainer()
        container.register(Config.self) { r in
            _ = try await r.resolveAsync(FeatureFlags.self)
            return Config()
        }
        .scope(.singleton)
        container.register(FeatureFlags.self) { r in
            _ = try r.resolve(Config.self)
            return FeatureFlags()
        }
        .scope(.singleton)

        let report = await container.validationReportAsync()

        #expect(report.problems(ofKind: .cycle).count == 1, "\(report)")
        let read = try #require(report.errors.first { $0.kind != .cycle }, "\(report)")
        #expect(read.message.contains("is read synchronously by FeatureFlags, which its own build needs"), "\(read)")
        #expect(read.description.contains("fix: break the cycle"), "\(read)")
        #expect(!report.description.contains(".eager()"), "no start-up can fix a cycle: \(report)")
    }

    @Test func expectValidAsyncPassesOnAValidContainerWithAsyncFactories() async {
        let container = DIContainer()
        container.register(Database.self) { _ in
            await Task.yield()
            return Database()
        }
        .scope(.singleton)

        let report = await expectValidAsync(container)

        #expect(report.isValid)
        #expect(report.checkedCount == 1)
    }
}

private final class CycleAsync: @unchecked Sendable {
    // @unchecked: set once by resolveProperties, before the instance is handed out.
    var partner: CycleSync?
}

private final class CycleSync: @unchecked Sendable {
    // @unchecked: set once by resolveProperties, before the instance is handed out.
    var partner: CycleAsync?
}

extension WarmUpTests {
    @Test func anEagerAsyncAndAnEagerSyncServiceInAResolvePropertiesCycleWarmUpWhenTheSyncOneStartsFirst() async throws
    {
        // The first wave builds both at once: CycleSync's resolveProperties reads CycleAsync before it is built,
        // while CycleAsync's waits for CycleSync's build, which fails. A warm-up build does not take that "not built
        // yet" failure: CycleAsync's resolveProperties builds CycleSync again, inside its own resolution, where the
        // read gets CycleAsync back. (A retry wave that built both at once again would fail the same way.) On a busy
        // machine CycleAsync may reach CycleSync only after CycleSync's build failed, without waiting for it: then the
        // scenario is run again, until the first wave overlapped as intended.
        var overlapped = false
        for _ in 0..<5 where !overlapped {
            let container = DIContainer()
            let asyncBuilds = Counter()
            let syncPropertiesBegun = Counter()
            let asyncFactoryReturned = Cell<Bool>(false)
            let asyncWaitedForSync = Cell<Bool>(false)
            container.register { () async throws -> CycleAsync in
                let build = asyncBuilds.increment()
                // The first build waits until CycleSync's resolveProperties has begun, however late a busy pool
                // starts it; a retry waits a little for a CycleSync built beside it.
                let patience: UInt64 = build == 1 ? UInt64(hangLimit) * 1_000_000_000 : 2_000_000_000
                let deadline = DispatchTime.now().uptimeNanoseconds + patience
                while syncPropertiesBegun.value < build, DispatchTime.now().uptimeNanoseconds < deadline {
                    try await Task.sleep(nanoseconds: 1_000_000)
                }
                asyncFactoryReturned.value = true
                return CycleAsync()
            }
            .scope(.singleton).eager()
            .resolveProperties { r, cycleAsync in cycleAsync.partner = try r.resolve() }
            container.register { CycleSync() }.scope(.singleton).eager()
                .resolveProperties { r, cycleSync in
                    syncPropertiesBegun.increment()
                    // CycleAsync's resolveProperties, if it is built at the same time, asks for this build meanwhile.
                    let deadline = DispatchTime.now().uptimeNanoseconds + 2_000_000_000
                    while asyncFactoryReturned.value != true, DispatchTime.now().uptimeNanoseconds < deadline {
                        usleep(1_000)
                    }
                    Thread.sleep(forTimeInterval: 0.1)
                    if container.resolvesWaitingForBuild(of: CycleSync.self) > 0 {
                        asyncWaitedForSync.value = true
                    }
                    cycleSync.partner = try r.resolve()
                }

            let outcome = await completes("a warm-up of the cycle") { try await container.warmUp() }

            _ = try #require(try outcome?.get())
            let cycleAsync = container.resolve(CycleAsync.self)
            let cycleSync = container.resolve(CycleSync.self)
            #expect(cycleAsync.partner === cycleSync)
            #expect(cycleSync.partner === cycleAsync)
            overlapped = asyncWaitedForSync.value == true
        }
        #expect(overlapped, "in five runs, the first wave never built both at once")
    }
}
