import Baselines
import Benchmark
import Inject
import Swinject

// A transient service with a 3-deep dependency chain: resolving Chain3 builds Chain2, Chain1 and Chain0 too.
final class Chain0: Sendable {}
final class Chain1: Sendable {
    let c0: Chain0
    init(c0: Chain0) { self.c0 = c0 }
}
final class Chain2: Sendable {
    let c1: Chain1
    init(c1: Chain1) { self.c1 = c1 }
}
final class Chain3: Sendable {
    let c2: Chain2
    init(c2: Chain2) { self.c2 = c2 }
}

/// W4: resolve Chain3, transient all the way down (4 objects per resolve), 1,000 resolves per sample.
/// Goal: Inject ≤ 3.5× hand-written.
func registerW4Chain() {
    func chain<State>(
        _ wiring: String,
        _ state: @autoclosure @escaping () -> State,
        body: @escaping (Benchmark, State) -> Void
    ) {
        let scaling = BenchmarkScalingFactor.kilo
        bench("W4 chain", wiring: wiring, ops: scaling.rawValue, scaling: scaling, state: state(), body: body)
    }
    chain(Wiring.handWritten, ()) { benchmark, _ in
        for _ in benchmark.scaledIterations { blackHole(Chain3(c2: Chain2(c1: Chain1(c0: Chain0())))) }
    }
    chain(Wiring.naive, naiveChain()) { benchmark, container in
        for _ in benchmark.scaledIterations { blackHole(container.resolve(Chain3.self)) }
    }
    chain(Wiring.inject, injectChain()) { benchmark, container in
        for _ in benchmark.scaledIterations { blackHole(container.resolve(Chain3.self)) }
    }
    chain(Wiring.swinject, swinjectChain()) { benchmark, container in
        for _ in benchmark.scaledIterations { blackHole(container.resolve(Chain3.self)!) }
    }
}

func naiveChain() -> NaiveContainer {
    let container = NaiveContainer()
    container.register(Chain0.self) { _ in Chain0() }
    container.register(Chain1.self) { c in Chain1(c0: c.resolve()) }
    container.register(Chain2.self) { c in Chain2(c1: c.resolve()) }
    container.register(Chain3.self) { c in Chain3(c2: c.resolve()) }
    return container
}

func injectChain() -> DIContainer {
    let container = DIContainer()
    container.register(Chain0.self) { _ in Chain0() }.scope(.transient)
    container.register(Chain1.self) { r in try Chain1(c0: r.resolve()) }.scope(.transient)
    container.register(Chain2.self) { r in try Chain2(c1: r.resolve()) }.scope(.transient)
    container.register(Chain3.self) { r in try Chain3(c2: r.resolve()) }.scope(.transient)
    return container
}

func swinjectChain() -> Container {
    let container = Container()
    container.register(Chain0.self) { _ in Chain0() }.inObjectScope(.transient)
    container.register(Chain1.self) { r in Chain1(c0: r.resolve(Chain0.self)!) }.inObjectScope(.transient)
    container.register(Chain2.self) { r in Chain2(c1: r.resolve(Chain1.self)!) }.inObjectScope(.transient)
    container.register(Chain3.self) { r in Chain3(c2: r.resolve(Chain2.self)!) }.inObjectScope(.transient)
    return container
}
