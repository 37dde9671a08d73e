import Foundation
import InjectTestSupport
import InjectTesting
import Testing

/// The container both tests of ``ParallelOverridesTests`` override, each with its own `Widget`.
private let parallelContainer: DIContainer = {
    let container = DIContainer()
    container.register(Widget.self) { Widget(serial: 0) }
    container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }
    return container
}()

/// Which of the two tests have started, and which have done their checks.
private let started = Collector<String>()
private let finished = Collector<String>()

/// Two tests that override the same service of the same container with different values, run at the same time
/// (Swift Testing runs tests in parallel by default), and each see only their own value.
struct ParallelOverridesTests {
    /// Marks `test` as started, waits (suspending, with a time-out) until the other test has started too, then checks
    /// several times across suspension points that only `serial` is seen.
    private func meetTheOtherTestThenCheck(_ test: String, sees serial: Int) async throws {
        started.append(test)
        // A generous time-out: Swift Testing caps how many test cases run at once (twice the cores), so the other test
        // may only start once most of the package's tests are done (12 s of a 14 s run under the thread sanitizer).
        let timeout = 300.0
        let met = await eventually(within: timeout) { Set(started.values).count >= 2 }
        if !met {
            Issue.record(
                """
                the two ParallelOverridesTests did not run in parallel: \(test) waited \(Int(timeout)) s for the \
                other to start (started: \(started.values)); their isolation was not tested
                """
            )
        }
        for _ in 0..<10 {
            #expect(parallelContainer.resolve(Widget.self).serial == serial)
            await Task.yield()
            #expect(try parallelContainer.resolveThrowing(Gadget.self).widget.serial == serial)
            try await Task.sleep(nanoseconds: 2_000_000)
            #expect(parallelContainer.makeChild().resolve(Widget.self).serial == serial)
        }
        // Keep the override in place until the other test is done checking too, so the checks overlap throughout.
        finished.append(test)
        if met {
            let bothFinished = await eventually { Set(finished.values).count >= 2 }
            #expect(bothFinished, "\(test) waited 60 s for the other test to finish its checks")
        }
        #expect(parallelContainer.resolve(Widget.self).serial == serial)
    }

    @Test(.overrides(in: parallelContainer) { $0.register(Widget.self) { Widget(serial: 1) } })
    func firstParallelTestSeesOnlyItsOwnOverride() async throws {
        try await meetTheOtherTestThenCheck("first", sees: 1)
    }

    @Test(.overrides(in: parallelContainer) { $0.register(Widget.self) { Widget(serial: 2) } })
    func secondParallelTestSeesOnlyItsOwnOverride() async throws {
        try await meetTheOtherTestThenCheck("second", sees: 2)
    }
}
