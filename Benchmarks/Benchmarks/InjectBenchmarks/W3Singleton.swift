import Baselines
import Benchmark
import Graphs
import Inject
import Swinject

/// W3: resolve a cached singleton (L999, the last service of the light graph) from a container holding all 1,000
/// light services as singletons, 1,000 resolves per sample; the first resolve, which builds it, happens in setup.
/// The mutex-guarded dictionary of W5 is measured here too, on one thread.
/// Goal: Inject ≤ 60 ns and zero mallocs per resolve, faster than the naive dictionary, ≥ 20× faster than Swinject.
func registerW3Singleton() {
    func singleton<State>(
        _ wiring: String,
        _ state: @autoclosure @escaping () -> State,
        body: @escaping (Benchmark, State) -> Void
    ) {
        let scaling = BenchmarkScalingFactor.kilo
        bench("W3 singleton", wiring: wiring, ops: scaling.rawValue, scaling: scaling, state: state(), body: body)
    }
    singleton(Wiring.handWritten, sharedL999()) { benchmark, shared in
        for _ in benchmark.scaledIterations { blackHole(shared.get()) }
    }
    singleton(Wiring.naive, naiveSingletons()) { benchmark, container in
        for _ in benchmark.scaledIterations { blackHole(container.resolve(L999.self)) }
    }
    singleton(Wiring.mutex, lockedSingletons()) { benchmark, container in
        for _ in benchmark.scaledIterations { blackHole(container.resolve(L999.self)) }
    }
    singleton(Wiring.inject, injectSingletons()) { benchmark, container in
        for _ in benchmark.scaledIterations { blackHole(container.resolve(L999.self)) }
    }
    singleton(Wiring.swinject, swinjectSingletons()) { benchmark, container in
        for _ in benchmark.scaledIterations { blackHole(container.resolve(L999.self)!) }
    }
}

// The singleton containers of W3 and W5: all 1,000 light services, L999 already built.

func sharedL999() -> SharedInstance<L999> {
    SharedInstance(LightHandWired.make(999) as! L999)
}

func naiveSingletons() -> NaiveContainer {
    let container = NaiveContainer()
    for i in 0..<LightGraph.count { container.register(instance: LightHandWired.make(i)) }
    return container
}

func lockedSingletons() -> LockedContainer {
    let container = LockedContainer()
    for i in 0..<LightGraph.count { container.register(instance: LightHandWired.make(i)) }
    return container
}

func injectSingletons() -> DIContainer {
    let container = Graph.light.injectContainer(count: LightGraph.count, scope: .singleton)
    _ = container.resolve(L999.self)
    return container
}

func swinjectSingletons() -> Container {
    let container = Graph.light.swinjectContainer(count: LightGraph.count, scope: .container)
    _ = container.resolve(L999.self)!
    return container
}
