import Dispatch
import Inject

/// Runs `body` many times on many threads at once against `container`, and reports every error it threw.
///
/// ```swift
/// let report = stressTest(container, threads: 8, iterations: 10_000) { container in
///     let session = container.makeChild()
///     _ = try session.resolveThrowing(CheckoutViewModel.self)
/// }
/// #expect(report.succeeded, "\(report)")
/// ```
///
/// `body` runs under `DispatchQueue.concurrentPerform` with `threads` workers, each running it `iterations` times.
/// The test overrides active where `stressTest` is called (`withOverrides`, the `.overrides` trait, `pushOverrides`)
/// apply on every worker, and what the workers build under them stays in their layer.
/// Run it under the thread sanitizer (`swift test --sanitize=thread`) to find data races as well as errors.
///
/// - Parameters:
///   - container: The container `body` gets.
///   - threads: How many workers run at once (as many as the machine runs in parallel, at most).
///   - iterations: How many times each worker runs `body`.
///   - body: The work to repeat. An error it throws is recorded, and the worker goes on.
/// - Returns: How long it took, and every error `body` threw, in words.
public func stressTest(
    _ container: DIContainer,
    threads: Int = 8,
    iterations: Int = 10_000,
    _ body: @escaping @Sendable (DIContainer) throws -> Void
) -> StressReport {
    precondition(
        threads > 0 && iterations >= 0,
        "InjectTesting: stressTest(threads: \(threads), iterations: \(iterations)): threads must be at least 1 and "
            + "iterations at least 0."
    )
    let failures = FailureLog()
    // The test's overrides are bound to its task; the workers run on GCD threads, which do not inherit them, so they
    // are carried over explicitly: every worker sees what the test sees.
    let overrides = ActiveOverrides.current
    let start = DispatchTime.now().uptimeNanoseconds
    DispatchQueue.concurrentPerform(iterations: threads) { worker in
        overrides.run {
            for iteration in 0..<iterations {
                do {
                    try body(container)
                } catch {
                    failures.append("worker \(worker), iteration \(iteration): \(error)")
                }
            }
        }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000_000
    return StressReport(threads: threads, iterations: iterations, seconds: seconds, failures: failures.all)
}

/// The errors of a stress test, appended to from many threads.
private struct FailureLog: Sendable {
    private let failures = Locked<[String]>([])

    func append(_ failure: String) {
        failures.withLock { $0.append(failure) }
    }

    var all: [String] {
        failures.withLock { $0 }
    }
}
