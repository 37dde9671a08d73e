import Benchmark
import Graphs
import Inject

/// A service cached per argument value: one instance for each distinct `Int` it is resolved with.
final class PerValue: Sendable {
    let value: Int
    init(value: Int) { self.value = value }
}

/// W3 argument: `resolve(PerValue.self, argument: 42)` of a `.singleton` argument registration (one instance per
/// `Int` value), 1,000 resolves per sample, in W3's container (the 1,000 light services as singletons) with that
/// registration added and its instances for the values 0 to 99 built in setup, so that every measured resolve
/// finds the instance cached for 42 among a hundred.
/// Goal: ≤ 4× W3 Inject (a cached singleton without an argument), measured in the same run.
func registerW3Argument() {
    let scaling = BenchmarkScalingFactor.kilo
    bench(
        "W3 singleton",
        wiring: Wiring.injectArgument,
        ops: scaling.rawValue,
        scaling: scaling,
        state: perValueSingletons()
    ) { benchmark, container in
        for _ in benchmark.scaledIterations { blackHole(container.resolve(PerValue.self, argument: 42)) }
    }
}

func perValueSingletons() -> DIContainer {
    let container = injectSingletons()
    container.register(PerValue.self) { (_: DIResolver, value: Int) in PerValue(value: value) }.scope(.singleton)
    for value in 0..<100 { _ = container.resolve(PerValue.self, argument: value) }
    precondition(container.resolve(PerValue.self, argument: 42) === container.resolve(PerValue.self, argument: 42))
    return container
}
