import Benchmark
import Inject

/// W1 autowired: 1,000 registrations into a fresh container, made with `register(autowired:)` and with the closure
/// form, side by side in the same run. The generated graphs are wired with closures only, and 1,000 autowired
/// registrations of distinct types would need generated code, so both wirings register the same hand-written set:
/// W4's chain types (initializers of 0 to 1 parameters: `Chain0.init`, `Chain1.init(c0:)`, …) in turn, each under
/// its own name (`w1.0` … `w1.999`, made before the measurement), so that every registration adds an entry and
/// none replaces another. Each is `.transient`, as in W1. The closures are W4's hand-written factories
/// (`{ r in try Chain1(c0: r.resolve()) }`), so the two wirings differ only in how the factory is written.
/// The container is made before the measurement starts and released after it stops, as in W1.
/// Goal: the autowired form registers as fast as the closure form (ratios.py: within 1.1×).
func registerW1Autowired() {
    let n = 1_000
    let parameters = ["4 chain types by name", "n=\(n)"]
    bench("W1 register", parameters, wiring: Wiring.inject, ops: n, state: w1Names(n)) { benchmark, names in
        let container = DIContainer()
        benchmark.startMeasurement()
        for (i, name) in names.enumerated() {
            switch i & 3 {
            case 0: container.register(Chain0.self, name: name) { _ in Chain0() }.scope(.transient)
            case 1: container.register(Chain1.self, name: name) { r in try Chain1(c0: r.resolve()) }.scope(.transient)
            case 2: container.register(Chain2.self, name: name) { r in try Chain2(c1: r.resolve()) }.scope(.transient)
            default: container.register(Chain3.self, name: name) { r in try Chain3(c2: r.resolve()) }.scope(.transient)
            }
        }
        benchmark.stopMeasurement()
        blackHole(container)
    }
    bench("W1 register", parameters, wiring: Wiring.injectAutowired, ops: n, state: w1Names(n)) { benchmark, names in
        let container = DIContainer()
        benchmark.startMeasurement()
        for (i, name) in names.enumerated() {
            switch i & 3 {
            case 0: container.register(Chain0.self, name: name, autowired: Chain0.init).scope(.transient)
            case 1: container.register(Chain1.self, name: name, autowired: Chain1.init(c0:)).scope(.transient)
            case 2: container.register(Chain2.self, name: name, autowired: Chain2.init(c1:)).scope(.transient)
            default: container.register(Chain3.self, name: name, autowired: Chain3.init(c2:)).scope(.transient)
            }
        }
        benchmark.stopMeasurement()
        blackHole(container)
    }
}

/// The names of W1 autowired's registrations, made in setup so that the measurement does not make strings.
func w1Names(_ n: Int) -> [DIContainer.Name] {
    (0..<n).map { DIContainer.Name("w1.\($0)") }
}
