import Dispatch
import Foundation
import Inject
import InjectTestSupport
import Testing

// A shared instance dropped while it is being built (its scope reset, or its registration replaced) with other
// resolves waiting for that build: they get the instance of the build they waited for, as its own caller does,
// instead of running the factory again (after a replacement, the old factory, whose instance nothing would release).

/// Told apart by the number of the build that made it.
private final class Connection: Sendable {
    let build: Int

    init(build: Int) {
        self.build = build
    }
}

struct DroppedDuringBuildTests {
    /// Builds `Connection` on one thread, blocked until `drop` has run, while `waiters` threads wait for that build;
    /// returns what each caller got and how many times the first registration's factory ran.
    private func buildWithWaiters(
        scope: Scope,
        waiters: Int,
        drop: @escaping @Sendable (DIContainer) -> Void
    ) async throws -> (builds: Int, instances: [Connection], releases: Int) {
        let container = DIContainer()
        let builds = Counter()
        let releases = Counter()
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        container.register(Connection.self) {
            let build = builds.increment()
            if build == 1 {
                started.signal()
                release.wait()
            }
            return Connection(build: build)
        }
        .scope(scope)
        .onRelease { _ in _ = releases.increment() }
        let instances = Collector<Connection>()

        let finished = await finishesSuspending(within: hangLimit, "a build dropped while threads wait for it") {
            // Threads of their own: the global queue's pool grows slowly past its cores while these block.
            let group = DispatchGroup()
            func resolveOnAThread() {
                group.enter()
                Thread {
                    instances.append(container.resolve(Connection.self))
                    group.leave()
                }
                .start()
            }
            resolveOnAThread()
            started.wait()
            for _ in 0..<waiters {
                resolveOnAThread()
            }
            while container.resolvesWaitingForBuild(of: Connection.self) < waiters {
                usleep(1_000)
            }
            drop(container)
            release.signal()
            group.wait()
        }

        #expect(finished)
        return (builds.value, instances.values, releases.value)
    }

    @Test func threadsWaitingForABuildWhoseRegistrationIsReplacedGetThatBuildsInstance() async throws {
        let (builds, instances, releases) = try await buildWithWaiters(scope: .singleton, waiters: 3) { container in
            container.register(Connection.self) { Connection(build: 100) }.scope(.singleton)
        }

        #expect(builds == 1, "the replaced registration's factory ran again for the threads that waited")
        #expect(instances.count == 4)
        #expect(instances.allSatisfy { $0 === instances[0] }, "\(instances.map(\.build))")
        #expect(releases == 0, "the scope never held it: it was dropped while it was built")
    }

    @Test(arguments: [Scope.cached, .session])
    func threadsWaitingForABuildWhoseScopeIsResetGetThatBuildsInstance(scope: Scope) async throws {
        let (builds, instances, _) = try await buildWithWaiters(scope: scope, waiters: 3) { container in
            container.reset(scope)
        }

        #expect(builds == 1)
        #expect(instances.allSatisfy { $0 === instances[0] }, "\(instances.map(\.build))")
    }

    @Test func theNextResolveAfterTheDropBuildsANewOne() async throws {
        let container = DIContainer()
        let builds = Counter()
        let started = AsyncGate()
        let release = AsyncGate()
        container.register(Connection.self) { (_: DIResolver) async in
            let build = builds.increment()
            if build == 1 {
                started.openGate()
                await release.wait()
            }
            return Connection(build: build)
        }
        .scope(.cached)

        let outcome = await completes("tasks waiting for a build whose scope is reset") {
            let builder = Task { try await container.resolveAsync(Connection.self) }
            await started.wait()
            let waiters = (0..<4).map { _ in Task { try await container.resolveAsync(Connection.self) } }
            let allWaiting = await eventually { container.resolvesWaitingForBuild(of: Connection.self) == 4 }
            container.reset(.cached)
            release.openGate()
            var instances = [try await builder.value]
            for waiter in waiters {
                instances.append(try await waiter.value)
            }
            let next = try await container.resolveAsync(Connection.self)
            return (allWaiting, instances, next)
        }

        let (allWaiting, instances, next) = try #require(try outcome?.get())
        #expect(allWaiting)
        #expect(instances.allSatisfy { $0 === instances[0] }, "\(instances.map(\.build))")
        #expect(next.build == 2, "the reset dropped the instance: the next resolve builds")
        #expect(builds.value == 2)
    }
}
