import Benchmark
import Graphs
import Inject

/// W10: the cost of async resolution where nothing awaits, against W3 Inject (a cached singleton read with the
/// synchronous `resolve`) measured in the same run; 1,000 resolves per sample, as in W3.
/// - "W10 built singleton, sync factory, resolveAsync": `try await container.resolveAsync(L999.self)` in W3's
///   container (L999 built in setup), from the async benchmark body. Goal: ≤ 3× W3 Inject and 0 mallocs (no
///   allocation, no task hop).
/// - "W10 built singleton, async factory, resolve": the synchronous `container.resolve(L999.self)` in W3's
///   container where L999 is registered instead with an async factory (`{ (r: DIResolver) async throws -> L999
///   in ... }`, `.singleton`), built in setup with `resolveAsync`. Goal: within noise of W3 Inject (ratios.py:
///   within 1.1×) and 0 mallocs: a built async singleton is read through the same lock-free path as any.
func registerW10ResolveAsync() {
    let scaling = BenchmarkScalingFactor.kilo
    benchAsync(
        "W10 built singleton",
        ["sync factory", "resolveAsync"],
        wiring: Wiring.inject,
        ops: scaling.rawValue,
        scaling: scaling,
        setup: { injectSingletons() }
    ) { benchmark, container in
        for _ in benchmark.scaledIterations { blackHole(try await container.resolveAsync(L999.self)) }
    }
    // A synchronous body with an async setup: package-benchmark's own initializer, named and configured as `bench`.
    let body: (Benchmark, DIContainer) -> Void = { benchmark, container in
        for _ in benchmark.scaledIterations { blackHole(container.resolve(L999.self)) }
    }
    Benchmark(
        benchName("W10 built singleton", ["async factory", "resolve"], Wiring.inject),
        configuration: benchConfiguration(scaling.rawValue, scaling, .seconds(1), .standard, []),
        closure: body,
        setup: { try await asyncL999Singletons() }
    )
}

/// W3's container with L999 registered by an async factory instead, and built.
func asyncL999Singletons() async throws -> DIContainer {
    let container = Graph.light.injectContainer(count: LightGraph.count, scope: .singleton)
    container.register(L999.self) { (r: DIResolver) async throws -> L999 in
        try L999(d0: r.resolve(), d1: r.resolve())
    }
    .scope(.singleton)
    let built = try await container.resolveAsync(L999.self)
    precondition(container.resolve(L999.self) === built, "W10: the async singleton was not kept")
    return container
}
