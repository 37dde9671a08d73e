import Baselines
import Benchmark
import Dispatch
import Graphs
import Inject
import Swinject

/// W5: a cached singleton (L999) resolved from two threads at once. Each sample runs two threads
/// (`DispatchQueue.concurrentPerform(iterations: 2)`), each resolving it `ops` times; the one-thread variant runs
/// the same loop once, on the benchmark's thread. Perfect scaling gives the two-thread sample the one-thread time.
/// References: hand-written (two threads reading one shared instance: its reference counting is the floor),
/// a mutex-guarded dictionary, and Swinject behind `synchronize()`. The containers are W3's.
/// Goal: Inject's two-thread time ≤ 3× hand-written's two-thread time.
func registerW5TwoThreads() {
    for threads in [1, 2] {
        // Runs `body` (a loop over `range`) on `threads` threads at once.
        func run(_ range: Range<Int>, _ body: @Sendable (Range<Int>) -> Void) {
            if threads == 1 {
                body(range)
            } else {
                DispatchQueue.concurrentPerform(iterations: threads) { _ in body(range) }
            }
        }
        // A million resolves per thread dwarf the cost of starting the threads; Swinject's resolve is slow enough
        // for a thousand.
        func singleton<State>(
            _ wiring: String,
            _ state: @autoclosure @escaping () -> State,
            scaling: BenchmarkScalingFactor = .mega,
            body: @escaping (Benchmark, State) -> Void
        ) {
            let parameters = [threads == 1 ? "1 thread" : "\(threads) threads"]
            bench(
                "W5 singleton",
                parameters,
                wiring: wiring,
                ops: scaling.rawValue,
                scaling: scaling,
                state: state(),
                body: body
            )
        }

        singleton(Wiring.handWritten, sharedL999()) { benchmark, shared in
            run(benchmark.scaledIterations) { range in for _ in range { blackHole(shared.get()) } }
        }
        singleton(Wiring.mutex, lockedSingletons()) { benchmark, container in
            run(benchmark.scaledIterations) { range in for _ in range { blackHole(container.resolve(L999.self)) } }
        }
        singleton(Wiring.inject, injectSingletons()) { benchmark, container in
            run(benchmark.scaledIterations) { range in for _ in range { blackHole(container.resolve(L999.self)) } }
        }
        singleton(Wiring.swinjectSynchronized, synchronizedSingletons(), scaling: .kilo) { benchmark, swinject in
            run(benchmark.scaledIterations) { range in
                for _ in range { blackHole(swinject.resolver.resolve(L999.self)!) }
            }
        }
    }
}

/// Swinject's `synchronize()` makes a resolver safe to share between threads, but its type does not say so.
struct SynchronizedResolver: @unchecked Sendable {
    let resolver: Resolver
}

/// W3's Swinject container behind `synchronize()`.
func synchronizedSingletons() -> SynchronizedResolver {
    SynchronizedResolver(resolver: swinjectSingletons().synchronize())
}
