import Benchmark
import Foundation
import Graphs
import Inject

/// W8: start-up of a 1,000-service app whose services cost something to build. Every service of the light graph
/// is a `.singleton`, `.eager()`, with a factory that resolves its dependencies and then does about 50 µs of
/// deterministic CPU work (`CPUWork`: a hash loop calibrated once per process, never a sleep). Two wirings of the
/// same registrations, in the same run, each sample on a fresh container from a `ContainerPool` made in setup:
/// - "Inject warmUp": `try await container.warmUp()`, which builds all 1,000 concurrently, each once,
///   dependencies through their gates, on `StartupExecutor`: one thread per processor, as an app's concurrency
///   pool has (the harness blocks one of its own pool's threads while an async body runs; see there);
/// - "Inject one by one": `container.resolve` of service 0, 1, 2, … 999 on the benchmark's thread, the dependency
///   order in which Dip's `bootstrap()` and DITranquillity's `initializeSingletonObjects()` build eager
///   singletons (a service's dependencies are all earlier services, so each build finds them built).
/// Each sample times that call alone; registering happened in setup, and the container with its 1,000 instances
/// is released after the measurement stops. The warm-up samples also record what `warmUp()`'s `StartupReport`
/// says, as custom metrics: its `serialSeconds / wallSeconds` × 1,000 ("W8 report speed-up (x1000)") and its
/// `serialSeconds` in µs ("W8 report serial (us)").
///
/// Why not the generated wiring: `LightInject.register(into:count:scope:)` writes each factory as a constructor
/// call, with no place for the CPU work or `.eager()`, and `LightGraph` does not expose the dependency lists that
/// a loop over the generated types would need; generating a fourth wiring would add another 1,000-case file to
/// `Sources/Graphs`. So the workload uses one service type, `WarmService`, registered under 1,000 names
/// (`w8.0` … `w8.999`) with exactly the light graph's dependency structure: `LightStructure` reads each service's
/// dependencies once, at start-up, from the generated hand-written wiring (`Mirror` over `LightHandWired.make(i)`,
/// whose stored properties `d0`, `d1`, `d2` are the dependencies), and checks them against the generator's tree
/// sizes. Service i's factory resolves its dependencies by name through its `DIResolver`. Costs that differ by
/// type (metadata, one entry per type) are not what this workload measures; the graph's shape, which bounds the
/// parallelism (its level is at most 3, so the longest chain of dependent builds is 4 builds), is.
///
/// Goal: warm-up ≤ 0.6× one by one on this 2-core machine, and the report's own speed-up agrees with the
/// measured one-by-one / warm-up ratio within 15%.
func registerW8WarmUp() {
    let n = LightGraph.count
    let parameters = ["light", "n=\(n)"]
    let limits = SampleLimits(warmup: 1, maxIterations: 15)
    let maxDuration = Duration.seconds(3)
    benchAsync(
        "W8 warm-up",
        parameters,
        wiring: Wiring.injectWarmUp,
        ops: n,
        maxDuration: maxDuration,
        limits: limits,
        extraMetrics: [W8.reportSpeedUp, W8.reportSerial],
        setup: { W8.pool(runs: limits.totalRuns) }
    ) { benchmark, pool in
        let container = pool.next()
        let report: StartupReport
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
            report = try await withTaskExecutorPreference(StartupExecutor.shared) {
                benchmark.startMeasurement()
                defer { benchmark.stopMeasurement() }
                return try await container.warmUp()
            }
        } else {
            benchmark.startMeasurement()
            report = try await container.warmUp()
            benchmark.stopMeasurement()
        }
        precondition(report.builds.count == n, "W8: warmUp() built \(report.builds.count) of \(n) services")
        benchmark.measurement(W8.reportSpeedUp, Int((report.serialSeconds / report.wallSeconds * 1_000).rounded()))
        benchmark.measurement(W8.reportSerial, Int((report.serialSeconds * 1_000_000).rounded()))
    }
    bench(
        "W8 warm-up",
        parameters,
        wiring: Wiring.injectOneByOne,
        ops: n,
        maxDuration: maxDuration,
        limits: limits,
        state: W8.pool(runs: limits.totalRuns)
    ) { benchmark, pool in
        let container = pool.next()
        benchmark.startMeasurement()
        for name in W8.names { blackHole(container.resolve(WarmService.self, name: name)) }
        benchmark.stopMeasurement()
    }
}

/// A service of W8: what it computed, and its dependencies (held, as a constructor-injected service holds them).
final class WarmService: Sendable {
    let checksum: UInt64
    let dependencies: [WarmService]

    init(checksum: UInt64, dependencies: [WarmService]) {
        self.checksum = checksum
        self.dependencies = dependencies
    }
}

enum W8 {
    /// Service i's registration name.
    static let names: [DIContainer.Name] = (0..<LightGraph.count).map { DIContainer.Name("w8.\($0)") }

    static let reportSpeedUp = BenchmarkMetric.custom(
        "W8 report speed-up (x1000)",
        polarity: .prefersLarger,
        useScalingFactor: false
    )
    static let reportSerial = BenchmarkMetric.custom("W8 report serial (us)", useScalingFactor: false)

    /// The 1,000 eager singletons with the light graph's dependencies, each doing `CPUWork` once it has them.
    static func register(into container: DIContainer) {
        let iterations = CPUWork.iterations
        for (i, dependencyIndices) in LightStructure.dependencies.enumerated() {
            let dependencyNames = dependencyIndices.map { names[$0] }
            let seed = UInt64(i)
            container.register(WarmService.self, name: names[i]) { r in
                let dependencies = try dependencyNames.map { try r.resolve(WarmService.self, name: $0) }
                return WarmService(checksum: CPUWork.run(seed: seed, iterations: iterations), dependencies: dependencies)
            }
            .scope(.singleton)
            .eager()
        }
    }

    /// A fresh container for each time a benchmark's body runs (warm-up runs included).
    static func pool(runs: Int) -> ContainerPool {
        _ = CPUWork.iterations  // calibrate before any container exists
        return ContainerPool(count: runs) {
            let container = DIContainer()
            register(into: container)
            return container
        }
    }
}

/// The light graph's dependency structure, read from the generated hand-written wiring.
enum LightStructure {
    /// `dependencies[i]`: the indices of service i's dependencies (`L3` takes `L0` and `L1`: `[0, 1]`).
    static let dependencies: [[Int]] = {
        let dependencies = (0..<LightGraph.count).map { i in
            Mirror(reflecting: LightHandWired.make(i)).children.map { child in
                let typeName = String(describing: type(of: child.value))
                guard typeName.first == "L", let index = Int(typeName.dropFirst()), index < i else {
                    preconditionFailure("LightStructure: L\(i).\(child.label ?? "?") is a \(typeName)")
                }
                return index
            }
        }
        // A service's transient tree is itself plus its dependencies' trees: the generator's tree sizes must agree.
        var treeSizes: [Int] = []
        for indices in dependencies { treeSizes.append(1 + indices.reduce(0) { $0 + treeSizes[$1] }) }
        precondition(treeSizes == LightGraph.treeSizes, "LightStructure: dependencies disagree with LightGraph")
        return dependencies
    }()
}

/// Deterministic CPU work of about 50 µs: a serial chain of multiply-xorshift steps that the optimiser cannot
/// shorten. `iterations` is calibrated once per process, the fastest of seven timings, so that a machine's
/// other load inflates it as little as possible; every build then runs exactly that many steps.
enum CPUWork {
    static let target = Duration.microseconds(50)

    static let iterations: Int = {
        let probe = 1 << 18
        let clock = ContinuousClock()
        var fastest = Duration.seconds(3_600)
        for _ in 0..<7 {
            fastest = min(fastest, clock.measure { blackHole(run(seed: 1, iterations: probe)) })
        }
        return max(1, Int((Double(probe) * (target / fastest)).rounded()))
    }()

    @inline(never)
    static func run(seed: UInt64, iterations: Int) -> UInt64 {
        var x = seed &+ 0x9E37_79B9_7F4A_7C15
        for _ in 0..<iterations {
            x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
            x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        }
        return x ^ (x >> 31)
    }
}

/// A task executor of its own threads, one per processor, for W8's `warmUp()`.
///
/// package-benchmark runs its runner as an async command, so the runner's own thread is one of the concurrency
/// pool's, and it blocks that thread (a semaphore) while an async benchmark body runs: on a 2-core machine, the
/// body's child tasks get one pool thread instead of two (there, a plain task group of W8's 1,000 `CPUWork` calls
/// takes as long as the serial loop; on these threads, half). An app calling `warmUp()` at launch has the whole
/// pool.
/// So W8 runs `warmUp()` under `withTaskExecutorPreference(StartupExecutor.shared)`: warmUp's task group and
/// everything it resumes run on these threads, as many as the machine has processors, as the pool's would.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class StartupExecutor: TaskExecutor, @unchecked Sendable {  // `jobs` and `head` only under `condition`
    static let shared = StartupExecutor(threads: ProcessInfo.processInfo.activeProcessorCount)

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var head = 0

    private init(threads: Int) {
        for index in 0..<max(1, threads) {
            let thread = Thread { [self] in work() }  // lives as long as the process, as `shared` does
            thread.name = "StartupExecutor \(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while head == jobs.count { condition.wait() }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
