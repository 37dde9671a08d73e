import Benchmark
import Inject

/// W6: `validate()` of the 1,000-service container (every service transient, so validation builds every
/// service's whole tree: 5,010 objects for the light graph, 46,665 for the heavy one).
/// Goal: ≤ 20 ms (stated for the light graph; the heavy one is reported alongside).
func registerW6Validate() {
    for graph in Graph.allCases {
        let n = 1_000
        let parameters = [graph.rawValue, "n=\(n)"]
        bench(
            "W6 validate",
            parameters,
            wiring: Wiring.inject,
            ops: 1,
            state: graph.injectContainer(count: n, scope: .transient)
        ) { _, container in
            do {
                try container.validate()
            } catch {
                fatalError("the \(graph.rawValue) graph does not validate: \(error)")
            }
        }
    }
}
