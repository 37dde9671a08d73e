import Benchmark
import Inject

/// W4 autowired: W4's transient 3-deep chain (resolving Chain3 builds Chain2, Chain1 and Chain0 too), registered
/// with `register(autowired: Chain1.init(c0:))` and so on instead of hand-written factories; 1,000 resolves per
/// sample, as in W4, whose "Inject" row (the same chain with `{ r in try Chain1(c0: r.resolve()) }` factories)
/// is the reference, measured in the same run.
/// Goal: within 1.1× of W4 Inject.
func registerW4Autowired() {
    let scaling = BenchmarkScalingFactor.kilo
    bench(
        "W4 chain",
        wiring: Wiring.injectAutowired,
        ops: scaling.rawValue,
        scaling: scaling,
        state: autowiredChain()
    ) { benchmark, container in
        for _ in benchmark.scaledIterations { blackHole(container.resolve(Chain3.self)) }
    }
}

func autowiredChain() -> DIContainer {
    let container = DIContainer()
    container.register(autowired: Chain0.init).scope(.transient)
    container.register(autowired: Chain1.init(c0:)).scope(.transient)
    container.register(autowired: Chain2.init(c1:)).scope(.transient)
    container.register(autowired: Chain3.init(c2:)).scope(.transient)
    return container
}
