import Dispatch
import Foundation
import Inject
import InjectTestSupport
import Testing

/// A seeded, bounded soak of a churning tree of containers: workers on threads and in tasks resolve every scope
/// through random containers while others register into live children, make and drop children, reset, override,
/// validate and seal. Every result is checked against the guarantees of `Docs/ThreadSafety.md`,
/// `Docs/ChildScopes.md` and `Docs/Testing.md`; the whole run fails by time-out rather than hanging.
///
/// `INJECT_SOAK_SEED` replays a seed, `INJECT_SOAK_SCALE` scales the number of operations (CI runs 0.1 under the
/// thread sanitizer).
struct SoakTests {
    /// Async, so that waiting for the workers suspends instead of blocking one of the concurrency pool's threads
    /// for the whole run: with two cores the pool has two, and the soak's own tasks and the tests running beside it
    /// need them.
    @Test func aChurningTreeOfContainersKeepsEveryGuaranteeUnderASeededSoak() async {
        let configuration = SoakConfiguration.fromEnvironment()
        print("soak: \(configuration)")
        let world = SoakWorld(ledger: SoakLedger())
        let overlap = Guarded((running: 0, most: 0))
        let start = DispatchTime.now().uptimeNanoseconds
        // Only a hang should run out of this: the suite's other tests share the two cores, and the thread sanitizer
        // makes every operation several times slower.
        let limit = 150 + 300 * configuration.scale
        let finished = await finishesSuspending(within: limit, "the soak (\(configuration))") {
            Self.run(world, configuration, overlap: overlap)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let report = world.ledger.report(configuration, seconds: seconds)
        print(report)
        #expect(finished, "seed \(configuration.seedText)")
        #expect(overlap.snapshot.most > 1, "the workers never ran at the same time: the soak tested nothing")
        #expect(world.ledger.total == 0, "\(report)")
    }

    /// Starts every worker at once and waits for all of them.
    private static func run(
        _ world: SoakWorld,
        _ configuration: SoakConfiguration,
        overlap: Guarded<(running: Int, most: Int)>
    ) {
        let seed = SeededGenerator(seed: configuration.seed)
        let done = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        let workers = configuration.threads + configuration.tasks
        @Sendable func running(_ body: () -> Void) {
            overlap.withLock {
                $0.running += 1
                $0.most = max($0.most, $0.running)
            }
            body()
            overlap.withLock { $0.running -= 1 }
        }
        for index in 0..<configuration.threads {
            done.enter()
            let thread = Thread {
                let worker = SoakWorker(index: index, world: world, generator: seed.stream(index))
                go.wait()
                running { worker.run(operations: configuration.operationsPerWorker) }
                done.leave()
            }
            thread.start()
        }
        for index in configuration.threads..<workers {
            done.enter()
            @Sendable func work() async {
                let worker = SoakWorker(index: index, world: world, generator: seed.stream(index))
                overlap.withLock {
                    $0.running += 1
                    $0.most = max($0.most, $0.running)
                }
                await worker.runAsync(operations: configuration.operationsPerWorker)
                overlap.withLock { $0.running -= 1 }
                done.leave()
            }
            // Off the shared pool, which the other async tests running beside the soak need (see SoakExecutor).
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
                Task(executorPreference: SoakExecutor.shared) { await work() }
            } else {
                Task.detached { await work() }
            }
        }
        for _ in 0..<configuration.threads {
            go.signal()
        }
        done.wait()
    }
}
