import Dispatch
import Foundation
import Inject
import InjectTestSupport
import Testing

/// The reason Inject exists: no container-wide lock around factories, singletons built once under contention,
/// resolutions that belong to their thread. Every test here fails by time-out rather than hanging.
/// A weak reference to a service, written by one thread and read after it is joined.
private final class WeakServiceReference: @unchecked Sendable {
    // @unchecked: written inside a factory, read only after the thread that ran it has been joined.
    weak var object: ThreadSafetyTests.Service?
}

struct ThreadSafetyTests {
    final class Service: Sendable {
        let id: Int

        init(id: Int = 0) {
            self.id = id
        }
    }

    final class Slow: Sendable {}
    final class Other: Sendable {}

    @Test func twoSingletonFactoriesRunAtTheSameTime() {
        let container = DIContainer()
        let firstStarted = DispatchSemaphore(value: 0)
        let secondStarted = DispatchSemaphore(value: 0)
        let sawEachOther = Counter()
        // Each factory waits for the other to have started: that only ends if they run at the same time.
        container.register(Slow.self) {
            firstStarted.signal()
            if secondStarted.wait(timeout: .now() + 5) == .success {
                sawEachOther.increment()
            }
            return Slow()
        }.scope(.singleton)
        container.register(Other.self) {
            secondStarted.signal()
            if firstStarted.wait(timeout: .now() + 5) == .success {
                sawEachOther.increment()
            }
            return Other()
        }.scope(.singleton)

        finishes(within: 15, "two singleton builds") {
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) { _ = container.resolve(Slow.self) }
            DispatchQueue.global().async(group: group) { _ = container.resolve(Other.self) }
            group.wait()
        }
        #expect(sawEachOther.value == 2, "the two factories did not run at the same time")
    }

    @Test(arguments: [Scope.singleton, .graph, .transient, .cached])
    func factoryWaitingOnAThreadThatResolvesAnotherServiceCompletes(scope: Scope) {
        let container = DIContainer()
        container.register { Other() }.scope(.singleton)
        container.register(Service.self) { r in
            // Hand work to another thread and block until it is done: the deadlock of a global resolve lock.
            guard onThread(within: 5, { container.resolve(Other.self) }) != nil else { throw TimedOut() }
            return Service()
        }.scope(scope)

        #expect(failure(resolving: Service.self, from: container, "a factory that waits on another thread") == nil)
    }

    @Test func factoryWaitingOnAThreadThatUsesItsResolverCompletes() {
        let container = DIContainer()
        container.register { Other() }.scope(.singleton)
        container.register(Service.self) { r in
            guard onThread(within: 5, { (try? r.resolve(Other.self)) != nil }) == true else { throw TimedOut() }
            return Service()
        }

        #expect(failure(resolving: Service.self, from: container, "a factory using its resolver on a thread") == nil)
    }

    /// What resolving `type` threw, in words, or `nil`; a resolve that hangs fails the test by time-out.
    private func failure<T>(
        resolving type: T.Type,
        from container: DIContainer,
        _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> String? {
        let failure = Cell<String>()
        finishes(within: 15, what, sourceLocation: sourceLocation) {
            do {
                _ = try container.resolveThrowing(T.self)
            } catch {
                failure.value = String(describing: error)
            }
        }
        return failure.value
    }

    @Test func thousandConcurrentFirstResolvesBuildTheSingletonOnce() {
        let container = DIContainer()
        let builds = Counter()
        container.register { () -> Service in
            builds.increment()
            Thread.sleep(forTimeInterval: 0.02)  // keep the build open while the other resolves arrive
            return Service()
        }.scope(.singleton)
        let seen = Collector<ObjectIdentifier>()

        finishes(within: 30, "1,000 concurrent first resolves") {
            DispatchQueue.concurrentPerform(iterations: 1000) { _ in
                seen.append(ObjectIdentifier(container.resolve(Service.self)))
            }
        }
        #expect(builds.value == 1)
        #expect(seen.values.count == 1000)
        #expect(Set(seen.values).count == 1)
    }

    @Test(arguments: [Scope.singleton, .cached, .custom("session"), .scoped, .weak])
    func manyThreadsReleasedAtOnceBuildASharedInstanceOnce(scope: Scope) {
        let container = DIContainer()
        let builds = Counter()
        container.register { () -> Service in
            builds.increment()
            Thread.sleep(forTimeInterval: 0.01)  // keep the build open while the other threads arrive
            return Service()
        }.scope(scope)
        let threads = 64
        let instances = Collector<Service>()
        finishes(within: 30, "\(threads) threads resolving at once") {
            onThreadsAtOnce(threads) { _ in instances.append(container.resolve(Service.self)) }
        }
        let all = instances.values
        #expect(all.count == threads)
        #expect(Set(all.map(ObjectIdentifier.init)).count == 1)
        #expect(builds.value == 1)
    }

    @Test func callersThatWaitedForAWeakBuildGetItsInstanceEvenWhenItsOwnCallerLetsGoAtOnce() {
        // `.weak` keeps nothing by itself: the first caller's instance may be gone before the others wake. They
        // waited for that build, so they get its instance, and the factory runs once.
        let rounds = 100
        let repeatedBuilds = Counter()
        let splitInstances = Counter()
        finishes(within: 60, "\(rounds) rounds of a .weak build that its first caller drops at once") {
            for _ in 0..<rounds {
                let container = DIContainer()
                let builds = Counter()
                let entered = DispatchSemaphore(value: 0)
                container.register { () -> Service in
                    if builds.increment() == 1 {
                        // Open until the three others wait for it (or 10 s have passed).
                        for _ in 0..<3 { entered.signal() }
                        let deadline = Date().addingTimeInterval(10)
                        while container.resolvesWaitingForBuild(of: Service.self) < 3, Date() < deadline {
                            usleep(50)
                        }
                    }
                    return Service()
                }
                .scope(.weak)
                let held = Collector<Service>()
                let builder = Thread { _ = container.resolve(Service.self) }  // dropped at once
                builder.start()
                onThreadsAtOnce(3) { _ in
                    _ = entered.wait(timeout: .now() + 20)
                    held.append(container.resolve(Service.self))
                }
                if builds.value > 1 {
                    repeatedBuilds.increment()
                }
                if Set(held.values.map(ObjectIdentifier.init)).count > 1 {
                    splitInstances.increment()
                }
            }
        }
        #expect(repeatedBuilds.value == 0, "in \(repeatedBuilds.value) of \(rounds) rounds the factory ran again")
        #expect(
            splitInstances.value == 0,
            "in \(splitInstances.value) of \(rounds) rounds the waiters got different instances"
        )
    }

    @Test func aWeakInstanceIsReleasedOnceItsHoldersLetGoEvenWhenAWaiterSleptThroughAReset() {
        // A waiter of the first build, woken while a second build (after a reset) is under way, waits on through it:
        // it must not be counted for the second build's hand-off, which would then keep that instance for good.
        let rounds = 50
        let leaked = Counter()
        finishes(within: 60, "\(rounds) rounds of a .weak build, a reset and a second build") {
            for _ in 0..<rounds {
                let container = DIContainer()
                let builds = Counter()
                let second = WeakServiceReference()
                container.register { () -> Service in
                    let build = builds.increment()
                    if build == 1 {
                        let deadline = Date().addingTimeInterval(10)
                        while container.resolvesWaitingForBuild(of: Service.self) < 1, Date() < deadline {
                            usleep(50)
                        }
                    } else {
                        Thread.sleep(forTimeInterval: 0.005)
                    }
                    let service = Service(id: build)
                    if build == 2 {
                        second.object = service
                    }
                    return service
                }
                .scope(.weak)
                let firstBuilt = DispatchSemaphore(value: 0)
                onThreadsAtOnce(2) { worker in
                    if worker == 0 {
                        _ = container.resolve(Service.self)
                        firstBuilt.signal()
                        container.reset(Service.self)
                        _ = container.resolve(Service.self)
                    } else {
                        usleep(200)
                        _ = container.resolve(Service.self)  // waits for the first build, dropped at once
                    }
                }
                _ = firstBuilt.wait(timeout: .now() + 10)
                if second.object != nil {
                    leaked.increment()
                }
            }
        }
        #expect(leaked.value == 0, "in \(leaked.value) of \(rounds) rounds nobody held the instance and it lived on")
    }

    @Test func registeringWhileOtherThreadsResolveIsSafe() {
        let container = DIContainer()
        container.register { Service(id: -1) }.scope(.singleton)
        container.register(Int.self, name: "base") { 7 }
        let failures = Counter()

        finishes(within: 60, "registering and resolving at once") {
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                if worker.isMultiple(of: 2) {
                    // Writers: enough new keys to make the table grow several times under the readers.
                    for index in 0..<300 {
                        let name = DIContainer.Name("w\(worker)-\(index)")
                        container.register(Int.self, name: name) { index }
                        if container.resolve(Int.self, name: name) != index {
                            failures.increment()
                        }
                        // Re-registering replaces the entry while readers may hold the old one.
                        container.register(Service.self, name: name) { Service(id: index) }.scope(.singleton)
                    }
                } else {
                    for _ in 0..<3_000 {
                        if container.resolve(Service.self).id != -1 || container.resolve(Int.self, name: "base") != 7 {
                            failures.increment()
                        }
                    }
                }
            }
        }
        #expect(failures.value == 0)
        #expect(container.resolve(Service.self, name: "w0-299").id == 299)
    }

    final class Shared: Sendable {}

    final class Left: Sendable {
        let shared: Shared

        init(shared: Shared) {
            self.shared = shared
        }
    }

    final class Right: Sendable {
        let shared: Shared

        init(shared: Shared) {
            self.shared = shared
        }
    }

    final class Root: Sendable {
        let left: Left
        let right: Right

        init(left: Left, right: Right) {
            self.left = left
            self.right = right
        }
    }

    @Test func concurrentResolutionsNeverShareAGraphOrSeeAFalseCycle() {
        let container = DIContainer()
        container.register { Shared() }  // .graph, the default
        container.register { r in
            Thread.sleep(forTimeInterval: 0.0005)  // widen the window in which two resolutions overlap
            return Left(shared: try r.resolve())
        }
        container.register { r in Right(shared: try r.resolve()) }
        container.register { r in Root(left: try r.resolve(), right: try r.resolve()) }.scope(.transient)
        let roots = Collector<Root>()
        let errors = Collector<String>()

        finishes(within: 60, "concurrent graph resolutions") {
            DispatchQueue.concurrentPerform(iterations: 400) { _ in
                do {
                    roots.append(try container.resolveThrowing(Root.self))
                } catch {
                    errors.append(String(describing: error))
                }
            }
        }
        #expect(errors.values == [], "no resolution may report a cycle or fail")
        let all = roots.values
        #expect(all.count == 400)
        #expect(all.allSatisfy { $0.left.shared === $0.right.shared }, "one resolution shares one graph instance")
        #expect(Set(all.map { ObjectIdentifier($0.left.shared) }).count == 400, "resolutions never share a graph")
    }

    final class Hop: Sendable {
        let shared: Shared
        let sharedOnAnotherThread: Shared

        init(shared: Shared, sharedOnAnotherThread: Shared) {
            self.shared = shared
            self.sharedOnAnotherThread = sharedOnAnotherThread
        }
    }

    @Test func aResolutionOnAnotherThreadStartsItsOwnGraph() throws {
        let container = DIContainer()
        container.register { Shared() }
        container.register { r in
            let shared: Shared = try r.resolve()
            let other = Cell<Shared>()
            let done = DispatchSemaphore(value: 0)
            Thread {
                other.value = container.resolve(Shared.self)
                done.signal()
            }.start()
            guard done.wait(timeout: .now() + 5) == .success, let sharedOnAnotherThread = other.value else {
                throw TimedOut()
            }
            return Hop(shared: shared, sharedOnAnotherThread: sharedOnAnotherThread)
        }
        let hop = try container.resolveThrowing(Hop.self)
        #expect(hop.shared !== hop.sharedOnAnotherThread)
    }

    final class Chicken: Sendable {
        init(egg: Egg) {}
    }

    final class Egg: Sendable {
        init(chicken: Chicken) {}
    }

    @Test func singletonsThatNeedEachOtherOnTwoThreadsReportACycleInsteadOfDeadlocking() {
        let container = DIContainer()
        // Both first builds start together, so each thread holds one singleton's build while asking for the other.
        let bothStarted = DispatchGroup()
        bothStarted.enter()
        bothStarted.enter()
        let firstRound = Counter()
        container.register { r in
            if firstRound.increment() <= 2 {
                bothStarted.leave()
                _ = bothStarted.wait(timeout: .now() + 5)
            }
            return Chicken(egg: try r.resolve())
        }.scope(.singleton)
        container.register { r in
            if firstRound.increment() <= 2 {
                bothStarted.leave()
                _ = bothStarted.wait(timeout: .now() + 5)
            }
            return Egg(chicken: try r.resolve())
        }.scope(.singleton)
        let errors = Collector<ResolutionError>()

        finishes(within: 20, "two singletons that need each other, built on two threads") {
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                do {
                    _ = try container.resolveThrowing(Chicken.self)
                } catch let error as ResolutionError {
                    errors.append(error)
                } catch {}
            }
            DispatchQueue.global().async(group: group) {
                do {
                    _ = try container.resolveThrowing(Egg.self)
                } catch let error as ResolutionError {
                    errors.append(error)
                } catch {}
            }
            group.wait()
        }
        let all = errors.values
        #expect(all.count == 2, "both resolves fail")
        #expect(all.allSatisfy { $0.kind == .cycle })
        #expect(all.allSatisfy { $0.description.contains("Chicken") && $0.description.contains("Egg") })
        // At least one thread found the cycle across the two threads: the builds did overlap, so the wait-for check
        // (not a same-thread stack check after a time-out) ended the deadlock.
        #expect(all.contains { $0.description.contains("across threads") }, "\(all)")
    }

    @Test func resettingWhileOtherThreadsResolveHandsOutWholeInstances() {
        let container = DIContainer()
        container.register { Service(id: 42) }.scope(.cached)
        container.register { Other() }.scope(.scoped)
        let child = container.makeChild()
        let wrong = Counter()

        finishes(within: 60, "reset racing resolves") {
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                for _ in 0..<2_000 {
                    switch worker {
                    case 0:
                        container.reset(.cached)
                    case 1:
                        child.reset(.scoped)
                    default:
                        if child.resolve(Service.self).id != 42 {
                            wrong.increment()
                        }
                        _ = child.resolve(Other.self)
                    }
                }
            }
        }
        #expect(wrong.value == 0)
    }

    @Test func aSingletonReRegisteredWhileThreadsResolveIsBuiltAtMostOncePerRegistration() {
        let container = DIContainer()
        let builds = Collector<Int>()
        let versions = 500
        container.register { Service(id: 0) }.scope(.singleton)
        let done = Cell<Bool>()
        let resolved = Counter()

        finishes(within: 60, "re-registering a singleton while four threads resolve it") {
            onThreadsAtOnce(5) { worker in
                if worker == 0 {
                    for version in 1...versions {
                        container.register {
                            builds.append(version)
                            Thread.sleep(forTimeInterval: 0.000_02)  // long enough for others to wait for it
                            return Service(id: version)
                        }
                        .scope(.singleton)
                        // Let the resolvers reach this registration before the next one replaces it.
                        let before = resolved.value
                        while resolved.value < before + 4 {
                            sched_yield()
                        }
                    }
                    done.value = true
                } else {
                    while done.value != true {
                        _ = container.resolve(Service.self)
                        _ = resolved.increment()
                    }
                }
            }
        }

        let counts = Dictionary(builds.values.map { ($0, 1) }, uniquingKeysWith: +)
        let twice = counts.filter { $0.value > 1 }.keys.sorted()
        #expect(twice.isEmpty, "\(twice.count) registrations' factories ran more than once, e.g. \(twice.prefix(5))")
        #expect(resolved.value >= 4 * versions, "the resolves did not overlap the registrations")
    }

    @Test func lazySingletonBuildsOnceAcrossThreads() {
        let builds = Counter()
        let lazy = LazySingleton { () -> Service in
            builds.increment()
            Thread.sleep(forTimeInterval: 0.01)
            return Service()
        }
        let seen = Collector<ObjectIdentifier>()
        finishes(within: 30, "concurrent LazySingleton reads") {
            DispatchQueue.concurrentPerform(iterations: 500) { _ in
                seen.append(ObjectIdentifier(lazy.value))
            }
        }
        #expect(builds.value == 1)
        #expect(Set(seen.values).count == 1)
    }
}

struct TimedOut: Error {}
