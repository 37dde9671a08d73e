import Benchmark
import Graphs
import Inject
import Swinject

/// Every benchmark records the same metrics: the wall clock, the throughput (which the JMH export needs) and the
/// number of mallocs (to show that a cached-singleton resolve allocates nothing).
let suiteMetrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]

/// Names of the wirings, the `wiring` tag of every benchmark.
enum Wiring {
    static let handWritten = "hand-written"
    static let inject = "Inject"
    static let swinject = "Swinject"
    static let naive = "naive dictionary"
    static let mutex = "mutex dictionary"
    static let swinjectSynchronized = "Swinject synchronized"
    static let injected = "Inject @Injected"
    static let injectResolves = "Inject init + 3 resolves"
    static let injectAutowired = "Inject autowired"
    static let injectArgument = "Inject argument"
    static let injectWarmUp = "Inject warmUp"
    static let injectOneByOne = "Inject one by one"
}

/// Declares one benchmark, named "<workload>[, <parameter>...]: <wiring> (ops: <ops>)", for example
/// "W2 resolve graph, heavy, n=500: Inject (ops: 19687)". package-benchmark's `--filter` matches the name without
/// the parenthesised tag, so the workload, its parameters and the wiring are all in the name proper.
///
/// `ops` is how many operations one sample performs (resolves, registrations or objects built); ratios.py divides
/// medians by it. Where `scaling` is not `.one`, the body loops over `benchmark.scaledIterations` and `ops` is the
/// scaling factor's value times what one iteration does. `state` is evaluated in the benchmark's setup, outside
/// the measurement, and only when the benchmark runs. `limits` bounds the samples (the slow start-up workloads
/// take few); `extraMetrics` are recorded besides `suiteMetrics` (W8's report figures).
func bench<State>(
    _ workload: String,
    _ parameters: [String] = [],
    wiring: String,
    ops: Int,
    scaling: BenchmarkScalingFactor = .one,
    maxDuration: Duration = .seconds(1),
    limits: SampleLimits = .standard,
    extraMetrics: [BenchmarkMetric] = [],
    state: @autoclosure @escaping () -> State,
    body: @escaping (Benchmark, State) -> Void
) {
    let configuration = benchConfiguration(ops, scaling, maxDuration, limits, extraMetrics)
    Benchmark(benchName(workload, parameters, wiring), configuration: configuration, closure: body, setup: { state() })
}

/// Declares one benchmark whose body awaits (warmUp(), resolveAsync), named and configured as `bench` does; its
/// `setup` may await too (to build an async singleton before the measurement). An error thrown by the body fails
/// the benchmark with the error's text.
func benchAsync<State>(
    _ workload: String,
    _ parameters: [String] = [],
    wiring: String,
    ops: Int,
    scaling: BenchmarkScalingFactor = .one,
    maxDuration: Duration = .seconds(1),
    limits: SampleLimits = .standard,
    extraMetrics: [BenchmarkMetric] = [],
    setup: @escaping () async throws -> State,
    body: @escaping (Benchmark, State) async throws -> Void
) {
    let configuration = benchConfiguration(ops, scaling, maxDuration, limits, extraMetrics)
    Benchmark(benchName(workload, parameters, wiring), configuration: configuration, closure: body, setup: setup)
}

/// How many samples a benchmark takes: `warmup` unmeasured ones, then up to `maxIterations` measured ones (or
/// fewer, when `maxDuration` runs out first).
struct SampleLimits {
    var warmup = 3
    var maxIterations = 100_000

    static let standard = SampleLimits()

    /// How many times the body runs at most: what a pool of fresh containers must hold.
    var totalRuns: Int { warmup + maxIterations }
}

func benchName(_ workload: String, _ parameters: [String], _ wiring: String) -> String {
    ([workload] + parameters).joined(separator: ", ") + ": " + wiring
}

func benchConfiguration(
    _ ops: Int,
    _ scaling: BenchmarkScalingFactor,
    _ maxDuration: Duration,
    _ limits: SampleLimits,
    _ extraMetrics: [BenchmarkMetric]
) -> Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: suiteMetrics + extraMetrics,
        tags: ["ops": String(ops)],
        warmupIterations: limits.warmup,
        scalingFactor: scaling,
        maxDuration: maxDuration,
        maxIterations: limits.maxIterations
    )
}

/// Fresh containers made in a benchmark's setup, one for each time its body runs, for the workloads whose sample
/// changes the container for good (W8 and W9 build every singleton): a sample takes one, so registering stays
/// outside the measurement and no sample finds another's instances. The container is released when the body
/// returns, after its measurement has stopped. Should the harness run the body more often than `count`, the pool
/// makes one more there (not expected: `count` is the benchmark's `SampleLimits.totalRuns`).
final class ContainerPool: @unchecked Sendable {  // used by one sample at a time
    private var containers: [DIContainer]
    private let make: () -> DIContainer

    init(count: Int, make: @escaping () -> DIContainer) {
        self.make = make
        containers = (0..<count).map { _ in make() }
    }

    func next() -> DIContainer {
        containers.popLast() ?? make()
    }
}

/// Declares one benchmark without set-up state.
func bench(
    _ workload: String,
    _ parameters: [String] = [],
    wiring: String,
    ops: Int,
    body: @escaping (Benchmark) -> Void
) {
    bench(workload, parameters, wiring: wiring, ops: ops, state: ()) { benchmark, _ in body(benchmark) }
}

/// The generated graphs (Sources/Graphs), behind one switch so that every workload can run on both.
enum Graph: String, CaseIterable {
    case light
    case heavy

    static let sizes = [100, 500, 1_000]

    func objectsBuilt(byFirst n: Int) -> Int {
        switch self {
        case .light: LightGraph.objectsBuilt(byFirst: n)
        case .heavy: HeavyGraph.objectsBuilt(byFirst: n)
        }
    }

    func makeHandWired(_ i: Int) -> any AnyObject & Sendable {
        switch self {
        case .light: LightHandWired.make(i)
        case .heavy: HeavyHandWired.make(i)
        }
    }

    func register(into container: DIContainer, count n: Int, scope: Inject.Scope) {
        switch self {
        case .light: LightInject.register(into: container, count: n, scope: scope)
        case .heavy: HeavyInject.register(into: container, count: n, scope: scope)
        }
    }

    func resolve(_ i: Int, from container: DIContainer) -> AnyObject {
        switch self {
        case .light: LightInject.resolve(i, from: container)
        case .heavy: HeavyInject.resolve(i, from: container)
        }
    }

    func register(into container: Container, count n: Int, scope: ObjectScope) {
        switch self {
        case .light: LightSwinject.register(into: container, count: n, scope: scope)
        case .heavy: HeavySwinject.register(into: container, count: n, scope: scope)
        }
    }

    func resolve(_ i: Int, from resolver: Resolver) -> AnyObject {
        switch self {
        case .light: LightSwinject.resolve(i, from: resolver)
        case .heavy: HeavySwinject.resolve(i, from: resolver)
        }
    }

    /// An Inject container holding the first `n` services with the given scope.
    func injectContainer(count n: Int, scope: Inject.Scope) -> DIContainer {
        let container = DIContainer()
        register(into: container, count: n, scope: scope)
        return container
    }

    /// A Swinject container holding the first `n` services with the given object scope.
    func swinjectContainer(count n: Int, scope: ObjectScope) -> Container {
        let container = Container()
        register(into: container, count: n, scope: scope)
        return container
    }
}
