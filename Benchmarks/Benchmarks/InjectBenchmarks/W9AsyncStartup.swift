import Benchmark
import Inject

/// A service of W9: built by an async factory that awaits a 5 ms sleep first (a keychain read, a database open).
final class Sleeper: Sendable {}

/// W9: start-up of 200 independent eager async singletons (`Sleeper` under the names `w9.0` … `w9.199`), each
/// factory awaiting `Task.sleep(for: .milliseconds(5))`. Each sample takes a fresh container from a
/// `ContainerPool` made in setup and times one call:
/// - "Inject warmUp": `try await container.warmUp()`, which starts every build at once, so the sleeps overlap;
/// - "Inject one by one": `try await container.resolveAsync(Sleeper.self, name:)` of each in turn, the sleeps
///   one after another (200 × 5 ms: at least 1 s, so it takes only 3 samples and no warm-up run).
/// Both run on the harness's concurrency pool (unlike W8, which needs every processor: here the builds wait, and
/// one thread is plenty to start 200 sleeps).
/// Goal: warmUp() ≤ 50 ms wall; the one-by-one baseline shows the ≥ 1 s it saves.
func registerW9AsyncStartup() {
    let n = 200
    let parameters = ["n=\(n)"]
    let warmUpLimits = SampleLimits(warmup: 1, maxIterations: 20)
    benchAsync(
        "W9 async start-up",
        parameters,
        wiring: Wiring.injectWarmUp,
        ops: n,
        maxDuration: .seconds(2),
        limits: warmUpLimits,
        setup: { W9.pool(n, runs: warmUpLimits.totalRuns) }
    ) { benchmark, pool in
        let container = pool.next()
        benchmark.startMeasurement()
        let report = try await container.warmUp()
        benchmark.stopMeasurement()
        precondition(report.builds.count == n, "W9: warmUp() built \(report.builds.count) of \(n) services")
    }
    let oneByOneLimits = SampleLimits(warmup: 0, maxIterations: 3)
    benchAsync(
        "W9 async start-up",
        parameters,
        wiring: Wiring.injectOneByOne,
        ops: n,
        maxDuration: .seconds(10),
        limits: oneByOneLimits,
        setup: { W9.pool(n, runs: oneByOneLimits.totalRuns) }
    ) { benchmark, pool in
        let container = pool.next()
        benchmark.startMeasurement()
        for name in W9.names.prefix(n) { blackHole(try await container.resolveAsync(Sleeper.self, name: name)) }
        benchmark.stopMeasurement()
    }
}

enum W9 {
    static let names: [DIContainer.Name] = (0..<200).map { DIContainer.Name("w9.\($0)") }

    /// A fresh container of `n` eager async singletons for each time a benchmark's body runs.
    static func pool(_ n: Int, runs: Int) -> ContainerPool {
        ContainerPool(count: runs) {
            let container = DIContainer()
            for name in names.prefix(n) {
                container.register(Sleeper.self, name: name) { _ in
                    try await Task.sleep(for: .milliseconds(5))
                    return Sleeper()
                }
                .scope(.singleton)
                .eager()
            }
            return container
        }
    }
}
