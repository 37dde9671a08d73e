import Baselines
import Benchmark
import Inject

// Three services, registered as singletons in a static container (a property wrapper's arguments cannot
// capture locals).
final class ServiceA: Sendable {}
final class ServiceB: Sendable {}
final class ServiceC: Sendable {}

enum BenchContainers {
    static let shared: DIContainer = {
        let container = DIContainer()
        container.register(ServiceA.self) { _ in ServiceA() }.scope(.singleton)
        container.register(ServiceB.self) { _ in ServiceB() }.scope(.singleton)
        container.register(ServiceC.self) { _ in ServiceC() }.scope(.singleton)
        return container
    }()
}

/// Resolves its services through `@Injected` when initialised.
final class InjectedViewModel {
    @Injected(container: BenchContainers.shared) var a: ServiceA
    @Injected(container: BenchContainers.shared) var b: ServiceB
    @Injected(container: BenchContainers.shared) var c: ServiceC
}

/// Takes its services in its initializer (constructor injection).
final class ConstructedViewModel {
    let a: ServiceA
    let b: ServiceB
    let c: ServiceC
    init(a: ServiceA, b: ServiceB, c: ServiceC) {
        self.a = a
        self.b = b
        self.c = c
    }
}

/// W7: construct an object whose three services are singletons, 1,000 objects per sample: through three
/// `@Injected` properties, through its initializer after three `resolve` calls, and by hand from three shared
/// instances (the floor). Goal: `@Injected` within 2× of the initializer plus three resolves.
func registerW7PropertyWrappers() {
    func construct<State>(
        _ wiring: String,
        _ state: @autoclosure @escaping () -> State,
        body: @escaping (Benchmark, State) -> Void
    ) {
        let scaling = BenchmarkScalingFactor.kilo
        bench("W7 construct", wiring: wiring, ops: scaling.rawValue, scaling: scaling, state: state(), body: body)
    }
    construct(Wiring.handWritten, SharedServices()) { benchmark, shared in
        for _ in benchmark.scaledIterations {
            blackHole(ConstructedViewModel(a: shared.a.get(), b: shared.b.get(), c: shared.c.get()))
        }
    }
    construct(Wiring.injectResolves, warmContainer()) { benchmark, container in
        for _ in benchmark.scaledIterations {
            blackHole(ConstructedViewModel(a: container.resolve(), b: container.resolve(), c: container.resolve()))
        }
    }
    construct(Wiring.injected, warmContainer()) { benchmark, _ in
        for _ in benchmark.scaledIterations { blackHole(InjectedViewModel()) }
    }
}

/// The three hand-written singletons, each behind a call that returns it +1 as `resolve` does.
struct SharedServices: Sendable {
    let a = SharedInstance(ServiceA())
    let b = SharedInstance(ServiceB())
    let c = SharedInstance(ServiceC())
}

/// `BenchContainers.shared` with its three singletons built.
func warmContainer() -> DIContainer {
    let container = BenchContainers.shared
    _ = ConstructedViewModel(a: container.resolve(), b: container.resolve(), c: container.resolve())
    return container
}
