import Benchmark
import Inject
import Swinject

/// W2: resolve each of the first n services once, transient, so that every resolve builds the service's whole
/// dependency tree; `ops` is the number of objects a sample builds (from the generator's tree sizes), so
/// ratios.py reports time per built object. The hand-written wiring builds the same trees with constructor calls.
/// Goal: Inject ≤ 3× hand-written at every n, light and heavy; time per built object flat from n = 100 to 1,000.
func registerW2ResolveGraph() {
    for graph in Graph.allCases {
        for n in Graph.sizes {
            let parameters = [graph.rawValue, "n=\(n)"]
            let objects = graph.objectsBuilt(byFirst: n)
            bench("W2 resolve graph", parameters, wiring: Wiring.handWritten, ops: objects) { _ in
                for i in 0..<n { blackHole(graph.makeHandWired(i)) }
            }
            bench(
                "W2 resolve graph",
                parameters,
                wiring: Wiring.inject,
                ops: objects,
                state: graph.injectContainer(count: n, scope: .transient)
            ) { _, container in
                for i in 0..<n { blackHole(graph.resolve(i, from: container)) }
            }
            bench(
                "W2 resolve graph",
                parameters,
                wiring: Wiring.swinject,
                ops: objects,
                state: graph.swinjectContainer(count: n, scope: .transient)
            ) { _, container in
                for i in 0..<n { blackHole(graph.resolve(i, from: container)) }
            }
        }
    }
}
