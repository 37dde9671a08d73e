import Dispatch
import Foundation
import Inject
import InjectTestSupport
import Testing

// A build that throws while other resolves wait for it: they get its error, and do not run the failing factory
// again one after another (a remote config that times out after 10 s, needed by four services, would hold a
// launch for 40 s); the next resolve builds again.

private final class RemoteConfig: Sendable {}

private final class Feature: Sendable {
    init(config: RemoteConfig) {}
}

struct SharedBuildFailureTests {
    @Test func tasksThatWaitedForAFailingAsyncBuildGetItsErrorAndTheNextResolveBuildsAgain() async throws {
        let container = DIContainer()
        let attempts = Counter()
        let started = AsyncGate()
        let release = AsyncGate()
        container.register(RemoteConfig.self) { _ in
            if attempts.increment() == 1 {
                started.openGate()
                await release.wait()
                throw FixtureError(text: "the config server timed out")
            }
            return RemoteConfig()
        }
        .scope(.singleton)

        let outcome = await completes("a failing build with five tasks waiting for it") {
            let builder = Task { try await container.resolveAsync(RemoteConfig.self) }
            await started.wait()
            let waiters = (0..<5).map { _ in Task { try await container.resolveAsync(RemoteConfig.self) } }
            let allWaiting = await eventually { container.resolvesWaitingForBuild(of: RemoteConfig.self) == 5 }
            release.openGate()
            var results = [await builder.result]
            for waiter in waiters {
                results.append(await waiter.result)
            }
            return (allWaiting, results)
        }

        let (allWaiting, results) = try #require(try outcome?.get())
        #expect(allWaiting, "the five tasks never all waited for the build")
        #expect(attempts.value == 1, "the failing factory ran again for the tasks that waited for it")
        for result in results {
            #expect(throws: ResolutionError.self) { try result.get() }
        }
        let waited = results.dropFirst().compactMap { result -> String? in
            guard case .failure(let error) = result else { return nil }
            return String(describing: error)
        }
        #expect(waited.count == 5)
        #expect(waited.allSatisfy { $0.contains("the config server timed out") && $0.contains("waited for by:") })
        _ = try await container.resolveAsync(RemoteConfig.self)
        #expect(attempts.value == 2, "the next resolve builds again")
    }

    @Test func aResolveThatWaitedForABuildThatFailedOnAnAsyncServiceBuiltSinceBuildsAgain() async throws {
        let container = DIContainer()
        container.register(RemoteConfig.self) { () async throws -> RemoteConfig in RemoteConfig() }.scope(.singleton)
        // The first build of Feature reads the config before it is built, fails, and is held (still under way)
        // until the test lets it end.
        let failed = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let builds = Counter()
        container.register(Feature.self) { r in
            let build = builds.increment()
            do {
                return Feature(config: try r.resolve())
            } catch {
                if build == 1 {
                    failed.signal()
                    _ = release.wait(timeout: .now() + hangLimit)
                }
                throw error
            }
        }
        .scope(.singleton)
        let first = Cell<Result<Feature, any Error>>()
        Thread { first.value = Result { try container.resolveThrowing(Feature.self) } }.start()
        #expect(waits(for: failed, "the first build's failure"))

        _ = try await container.resolveAsync(RemoteConfig.self)
        let second = Cell<Result<Feature, any Error>>()
        Thread { second.value = Result { try container.resolveThrowing(Feature.self) } }.start()
        #expect(await eventually { container.resolvesWaitingForBuild(of: Feature.self) == 1 })
        release.signal()

        #expect(await eventually { first.value != nil && second.value != nil })
        #expect(throws: ResolutionError.self) { try first.value?.get() }
        // The config is built now: the failure it waited for no longer holds, so it built Feature itself.
        #expect(throws: Never.self) { try second.value?.get() }
        #expect(builds.value == 2)
    }

    @Test func threadsThatWaitedForAFailingBuildGetItsErrorAndTheNextResolveBuildsAgain() async throws {
        let container = DIContainer()
        let attempts = Counter()
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        container.register(RemoteConfig.self) {
            if attempts.increment() == 1 {
                started.signal()
                release.wait()
                throw FixtureError(text: "the keychain is locked")
            }
            return RemoteConfig()
        }
        .scope(.singleton)
        let errors = Collector<String>()

        let finished = await finishesSuspending(within: hangLimit, "a failing build with three threads waiting") {
            let group = DispatchGroup()
            for _ in 0..<4 {
                group.enter()
                Thread {
                    do {
                        _ = try container.resolveThrowing(RemoteConfig.self)
                    } catch {
                        errors.append(String(describing: error))
                    }
                    group.leave()
                }
                .start()
                if attempts.value == 0 {
                    started.wait()
                }
            }
            let deadline = Date().addingTimeInterval(hangLimit)
            while container.resolvesWaitingForBuild(of: RemoteConfig.self) < 3, Date() < deadline {
                usleep(1_000)
            }
            release.signal()
            group.wait()
        }

        #expect(finished)
        #expect(attempts.value == 1, "the failing factory ran again for the threads that waited for it")
        #expect(errors.values.count == 4)
        #expect(errors.values.filter { $0.contains("waited for by:") }.count == 3)
        _ = try container.resolveThrowing(RemoteConfig.self)
        #expect(attempts.value == 2, "the next resolve builds again")
    }

    @Test func warmUpRunsAFailingSharedDependencyOnceAndItsReportCountsTheTimeItTook() async throws {
        let container = DIContainer()
        let attempts = Counter()
        container.register(RemoteConfig.self) { _ in
            _ = attempts.increment()
            try await Task.sleep(nanoseconds: 50_000_000)
            throw FixtureError(text: "the config server timed out")
        }
        .scope(.singleton)
        for name in ["search", "checkout", "profile", "feed"] {
            container.register(Feature.self, name: DIContainer.Name(name)) { r in
                Feature(config: try await r.resolveAsync())
            }
            .scope(.singleton)
            .eager()
        }

        let outcome = await completes("a warm-up whose shared dependency fails") { try await container.warmUp() }

        let failure = try #require(outcome)
        let error = try #require(throws: StartupError.self) { try failure.get() }
        #expect(error.report.failures.count == 4)
        #expect(attempts.value == 1, "each eager service that waited ran the failing factory again")
        #expect(error.report.wallSeconds >= 0.05, "the 50 ms the failing build took are part of the warm-up")
        #expect(error.description.hasPrefix("Inject: warm-up failed: warm-up: no build succeeded, in "), "\(error)")
    }

    @Test func aCancelledBuilderGetsCancellationErrorAndATaskThatWaitedBuildsAgain() async throws {
        let container = DIContainer()
        let attempts = Counter()
        let started = AsyncGate()
        container.register(RemoteConfig.self) { _ in
            if attempts.increment() == 1 {
                started.openGate()
                try await Task.sleep(nanoseconds: 60_000_000_000)  // until cancelled
            }
            return RemoteConfig()
        }
        .scope(.singleton)

        let outcome = await completes("a cancelled builder and a task waiting for it") {
            let builder = Task { try await container.resolveAsync(RemoteConfig.self) }
            await started.wait()
            let waiter = Task { try await container.resolveAsync(RemoteConfig.self) }
            let waiting = await eventually { container.resolvesWaitingForBuild(of: RemoteConfig.self) == 1 }
            builder.cancel()
            return (waiting, await builder.result, await waiter.result)
        }

        let (waiting, cancelled, waited) = try #require(try outcome?.get())
        #expect(waiting)
        #expect(throws: CancellationError.self, "the cancelled caller gets the cancellation as it is") {
            try cancelled.get()
        }
        #expect(throws: Never.self, "the build stopped for its cancelled caller, not for the one waiting") {
            try waited.get()
        }
        #expect(attempts.value == 2)
    }
}
