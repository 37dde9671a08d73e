import Inject
import Testing

/// What a start-up report says of given figures: made directly, so that no test depends on how fast builds ran.
struct StartupReportTests {
    private func build(_ service: String, _ milliseconds: Double) -> BuildEvent {
        BuildEvent(service: service, scope: .singleton, seconds: milliseconds / 1000, path: [service])
    }

    @Test func aFasterWarmUpWithFailuresSaysItsOneByOneTimeCountsOnlyTheBuildsThatSucceeded() throws {
        let failure = try #require(throws: ResolutionError.self) {
            try DIContainer().resolveThrowing(Database.self)
        }
        let report = StartupReport(
            builds: [build("Database", 42.9), build("Keychain", 15.1)],
            wallSeconds: 0.0437,
            serialSeconds: 0.058,
            criticalPath: ["Database"],
            failures: [failure]
        )

        let summary = try #require(report.description.split(separator: "\n").first)

        #expect(summary.hasSuffix("1.3x faster, counting only the builds that succeeded"), "\(report)")
    }

    @Test func aWarmUpThatTookWellOverItsCriticalPathSaysItsBuildsWaitedForAThread() throws {
        // Three builds of 30 ms each on two threads: 61 ms, though no build waited for another.
        let report = StartupReport(
            builds: [build("First", 30.1), build("Second", 30.0), build("Third", 30.0)],
            wallSeconds: 0.061,
            serialSeconds: 0.0901,
            criticalPath: ["First"],
            failures: []
        )

        #expect(report.description.contains("1.5x faster"), "\(report)")
        #expect(
            report.description.contains(
                "note: the critical path explains 30.1 ms of the 61.0 ms; the rest went to builds waiting for one of the"
            ),
            "\(report)"
        )
    }

    @Test func oneBuildBesideAFailureThatTookTheTimeBlamesTheFailureNotSomethingOutside() throws {
        // Config's build threw after 80 ms; Database took 20 ms.
        let failure = try #require(throws: ResolutionError.self) {
            try DIContainer().resolveThrowing(Config.self)
        }
        let report = StartupReport(
            builds: [build("Database", 20)],
            wallSeconds: 0.082,
            serialSeconds: 0.02,
            criticalPath: ["Database"],
            failures: [failure],
            failedSeconds: 0.08
        )

        let summary = try #require(report.description.split(separator: "\n").first)

        #expect(summary.contains("the failed ones (below) took time too"), "\(report)")
        #expect(!summary.contains("outside this build"), "\(report)")
    }

    @Test func aFailureThatThrewAtOnceIsNotBlamedForTimeThatWentToAWaitElsewhere() throws {
        // Config threw at once; the 45 ms went to waiting for Keychain, which a resolve was building.
        let failure = try #require(throws: ResolutionError.self) {
            try DIContainer().resolveThrowing(Config.self)
        }
        let report = StartupReport(
            builds: [build("Database", 5)],
            wallSeconds: 0.045,
            serialSeconds: 0.005,
            criticalPath: ["Database"],
            failures: [failure],
            failedSeconds: 0.0001,
            waitedElsewhere: (["Keychain"], 0.044)
        )

        let lines = report.description.split(separator: "\n")

        #expect(lines[0].contains("most of the wall time went outside this build"), "\(report)")
        #expect(!lines[0].contains("the failed ones"), "\(report)")
        #expect(lines.contains { $0.contains("44.0 ms of the 45.0 ms went to waiting for Keychain") }, "\(report)")
    }

    @Test func mainActorBuildsBesideOthersAreANoteNotAWaitForThreads() throws {
        // Three 10 ms main-actor builds, one at a time, beside a 20 ms async one: 31 ms in all.
        let report = StartupReport(
            builds: [build("A", 10), build("B", 10), build("D", 10), build("E", 20)],
            wallSeconds: 0.0315,
            serialSeconds: 0.05,
            criticalPath: ["D"],
            failures: [],
            criticalPathSeconds: 0.01,
            mainActorBuilds: [0.01, 0.01, 0.01]
        )

        let text = report.description

        #expect(text.contains("note: 30.0 ms of the 31.5 ms went to the 3 builds on the main actor"), "\(report)")
        #expect(!text.contains("waiting for one of the"), "\(report)")
    }

    @Test func aWarmUpThatBuiltNothingIsNoSlowerThanOneByOne() {
        // Another warm-up built both eager services while this one waited 40 ms for them.
        let report = StartupReport(
            builds: [],
            wallSeconds: 0.04,
            serialSeconds: 0,
            criticalPath: [],
            failures: [],
            builtElsewhere: 2
        )

        #expect(report.speedUp == 1, "\(report)")
    }

    @Test func aWarmUpThatWaitedForBuildsMadeElsewhereDoesNotBlameItsOwnChain() throws {
        // A child's warm-up that waited 40 ms for the parent's Database, which the parent's warm-up was building.
        let report = StartupReport(
            builds: [build("UserSession", 0.03), build("NotesRepository", 0.04), build("SearchIndex", 0.03)],
            wallSeconds: 0.0408,
            serialSeconds: 0.0001,
            criticalPath: ["UserSession", "NotesRepository", "SearchIndex"],
            failures: []
        )

        let summary = try #require(report.description.split(separator: "\n").first)

        #expect(summary.contains("no faster: most of the wall time went outside these builds"), "\(report)")
        #expect(summary.contains("waiting for a build that another warmUp() or a resolve was making"), "\(report)")
        #expect(!report.description.contains("each build waited for the one before it"), "\(report)")
    }

    @Test func aChainOnABusyMachineIsNamedWithWhereTheRestOfTheTimeWent() throws {
        let report = StartupReport(
            builds: [build("Config", 300), build("FeatureFlags", 370)],
            wallSeconds: 12.7,
            serialSeconds: 0.67,
            criticalPath: ["Config", "FeatureFlags"],
            failures: []
        )

        let summary = try #require(report.description.split(separator: "\n").first)

        #expect(
            summary.hasSuffix(
                "no faster: each build waited for the one before it (the critical path below); and most of the wall time went outside these builds (waiting for a build that another warmUp() or a resolve was making, which this report does not count, onBuild observers, hops to the main actor, or a busy machine)"
            ),
            "\(report)"
        )
    }

    @Test func aWarmUpBoundedByItsCriticalPathHasNoNoteAboutThreads() {
        let report = StartupReport(
            builds: [build("Keychain", 3.0), build("Database", 8.2), build("RemoteConfig", 10.2)],
            wallSeconds: 0.0124,
            serialSeconds: 0.0214,
            criticalPath: ["Keychain", "Database"],
            failures: []
        )

        #expect(report.description.contains("critical path, 11.2 ms: Keychain, then Database"), "\(report)")
        #expect(!report.description.contains("note:"), "\(report)")
        #expect(!report.description.contains("counting only"), "\(report)")
    }
}

private final class Database: Sendable {}
private final class Config: Sendable {}
