import Benchmark
import Inject
import Swinject

/// W1: register the first n services of a graph into a fresh container. The container is made before the
/// measurement starts and released after it stops, so a sample measures the registrations alone.
/// Goal: Inject ≤ 200 µs for 1,000 registrations.
func registerW1Register() {
    for graph in Graph.allCases {
        for n in Graph.sizes {
            let parameters = [graph.rawValue, "n=\(n)"]
            bench("W1 register", parameters, wiring: Wiring.inject, ops: n) { benchmark in
                let container = DIContainer()
                benchmark.startMeasurement()
                graph.register(into: container, count: n, scope: .transient)
                benchmark.stopMeasurement()
                blackHole(container)
            }
            bench("W1 register", parameters, wiring: Wiring.swinject, ops: n) { benchmark in
                let container = Container()
                benchmark.startMeasurement()
                graph.register(into: container, count: n, scope: .transient)
                benchmark.stopMeasurement()
                blackHole(container)
            }
        }
    }
}
