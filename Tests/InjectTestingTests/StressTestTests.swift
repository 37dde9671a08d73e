import Foundation
import InjectTestSupport
import InjectTesting
import Testing
import XCTest

/// `stressTest(_:threads:iterations:_:)`: runs the body threads x iterations times, collects every error, reports.
struct StressTestTests {
    @Test func bodyRunsThreadsTimesIterationsTimesWithTheContainer() {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 0) }.scope(.singleton)
        let runs = Counter()
        let wrongContainer = Counter()

        let report = stressTest(container, threads: 4, iterations: 250) { given in
            runs.increment()
            if given !== container {
                wrongContainer.increment()
            }
            _ = try given.resolveThrowing(Widget.self)
        }

        #expect(runs.value == 4 * 250)
        #expect(wrongContainer.value == 0, "the body was not given the container")
        #expect(report.threads == 4)
        #expect(report.iterations == 250)
        #expect(report.seconds > 0)
        #expect(report.failures.isEmpty)
        #expect(report.succeeded)
    }

    @Test func everyErrorTheBodyThrowsIsCollected() {
        let runs = Counter()
        let threads = 3
        let iterations = 100

        let report = stressTest(DIContainer(), threads: threads, iterations: iterations) { _ in
            let run = runs.increment()
            if run % 7 == 0 {
                throw FixtureError(text: "failure number \(run)")
            }
        }

        let expected = threads * iterations / 7
        #expect(runs.value == threads * iterations, "a thrown error stopped a worker")
        #expect(report.failures.count == expected)
        #expect(!report.succeeded)
        for multiple in 1...expected {
            let text = "failure number \(7 * multiple)"
            #expect(
                report.failures.contains { $0.hasSuffix(text) || $0.contains(text + " ") || $0.contains(text + ",") },
                "the failures do not include \(text)"
            )
        }
    }

    @Test func resolutionErrorsAreCollectedInWords() {
        let container = DIContainer()
        container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }

        let report = stressTest(container, threads: 2, iterations: 10) { container in
            _ = try container.resolveThrowing(Gadget.self)
        }

        #expect(report.failures.count == 20)
        #expect(report.failures.allSatisfy { $0.contains("Widget") }, "\(report.failures.first ?? "")")
    }

    @Test func everyWorkerSeesTheTestsOverridesAndNothingTheyBuildStays() throws {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 1) }.scope(.singleton)

        let report = withOverrides(in: container) {
            $0.register(Widget.self) { Widget(serial: 2) }.scope(.singleton)
        } operation: {
            stressTest(container, threads: 4, iterations: 50) { container in
                let serial = try container.resolveThrowing(Widget.self).serial
                if serial != 2 {
                    throw FixtureError(text: "a worker got the real Widget \(serial) under the override")
                }
            }
        }

        #expect(report.succeeded, "\(report)")
        #expect(container.resolve(Widget.self).serial == 1, "the real singleton, built after the override")
    }

    @Test func descriptionSummarisesARunWithoutFailures() {
        let report = stressTest(DIContainer(), threads: 2, iterations: 5) { _ in }

        #expect(report.succeeded)
        #expect(report.description.contains("2 threads"), "\(report)")
        #expect(report.description.contains("5 iterations"), "\(report)")
        #expect(report.description.contains("no failures"), "\(report)")
    }

    @Test func descriptionCountsTheFailuresAndShowsTheirText() {
        let runs = Counter()
        let report = stressTest(DIContainer(), threads: 2, iterations: 35) { _ in
            let run = runs.increment()
            if run % 7 == 0 {
                throw FixtureError(text: "failure number \(run)")
            }
        }

        #expect(report.failures.count == 10)
        #expect(report.description.contains("10 failures"), "\(report)")
        #expect(report.description.contains("failure number"), "\(report)")
        for failure in report.failures {
            #expect(report.description.contains(failure), "the description leaves out \(failure)")
        }
    }

    @Test func aFailureOfSeveralLinesReadsAsOneEntry() {
        let container = DIContainer()
        container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }
        let report = stressTest(container, threads: 1, iterations: 2) { _ = try $0.resolveThrowing(Gadget.self) }

        let lines = report.description.split(separator: "\n")
        // Each failure starts with "  - "; its error's path and fix lines are indented under it.
        #expect(lines.filter { $0.hasPrefix("  - worker 0, iteration") }.count == 2, "\(report)")
        #expect(lines.contains { $0.hasPrefix("    ") && $0.hasSuffix("path: Gadget -> Widget") }, "\(report)")
        #expect(!lines.contains { $0.hasPrefix("  path:") }, "\(report)")
    }
}

/// The same from XCTest, as an XCTest suite would use it.
final class StressTestXCTests: XCTestCase {
    func testStressTestFromXCTestCountsEveryRunAndEveryFailure() {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 0) }
        let runs = Counter()

        let report = stressTest(container, threads: 2, iterations: 70) { container in
            let run = runs.increment()
            _ = try container.resolveThrowing(Widget.self)
            if run % 7 == 0 {
                throw FixtureError(text: "failure number \(run)")
            }
        }

        XCTAssertEqual(runs.value, 140)
        XCTAssertEqual(report.failures.count, 20)
        XCTAssertFalse(report.succeeded)
        XCTAssertTrue(report.description.contains("20 failures"), "\(report)")
    }
}
