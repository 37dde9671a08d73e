import Dispatch
import Foundation
import Inject
import InjectTestSupport
import Testing

/// `reset` while a build is under way, and a registration replaced after its instance was built: the instance of the
/// build goes to its caller and to everyone who waited for it, the factory runs once for all of them, and
/// `onRelease` runs only for instances the scope really held, exactly once. Every test fails by time-out rather than
/// hanging.
struct ResetDuringBuildTests {
    final class Pool: @unchecked Sendable {
        // @unchecked: `closed` is only touched under `lock`.
        let number: Int
        private let lock = NSLock()
        private var closed = false

        init(_ number: Int) {
            self.number = number
        }

        func close() {
            lock.withLock { closed = true }
        }

        var isClosed: Bool {
            lock.withLock { closed }
        }
    }

    /// A factory that holds its first build until `proceed` is signalled, after telling `entered`.
    final class HeldBuild: Sendable {
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let builds = Counter()

        func make() -> Pool {
            let number = builds.increment()
            if number == 1 {
                entered.signal()
                _ = proceed.wait(timeout: .now() + 20)
            }
            return Pool(number)
        }
    }

    enum Reset: CaseIterable, Sendable {
        case scope
        case registration
    }

    private static func reset(_ how: Reset, _ scope: Scope, in container: DIContainer) {
        switch how {
        case .scope: container.reset(scope)
        case .registration: container.reset(Pool.self)
        }
    }

    @Test(arguments: [Scope.scoped, .cached, .custom("session")], Reset.allCases)
    func aResetDuringABuildDoesNotReleaseTheInstanceItsCallerGets(scope: Scope, how: Reset) throws {
        let root = DIContainer()
        let held = HeldBuild()
        let released = Counter()
        root.register { held.make() }.scope(scope).onRelease { pool in
            released.increment()
            pool.close()
        }
        let container = scope == .scoped ? root.makeChild() : root
        try Self.expectResetDuringBuildKeepsTheCallersInstance(how, scope, in: container, held, released) {
            $0.resolve(Pool.self)
        }
    }

    @Test(arguments: [Scope.scoped, .cached, .custom("session")], Reset.allCases)
    func aResetDuringABuildOfOneArgumentValueDoesNotReleaseTheInstanceItsCallerGets(scope: Scope, how: Reset) throws {
        let root = DIContainer()
        let held = HeldBuild()
        let released = Counter()
        root.register { (_: DIResolver, id: String) in held.make() }.scope(scope).onRelease { pool in
            released.increment()
            pool.close()
        }
        let container = scope == .scoped ? root.makeChild() : root
        try Self.expectResetDuringBuildKeepsTheCallersInstance(how, scope, in: container, held, released) {
            $0.resolve(Pool.self, argument: "n42")
        }
    }

    /// Resolves on a thread of its own, resets while the build is held, then checks that the caller's instance was
    /// neither released nor kept, and that the next one is released by the next reset, once.
    private static func expectResetDuringBuildKeepsTheCallersInstance(
        _ how: Reset,
        _ scope: Scope,
        in container: DIContainer,
        _ held: HeldBuild,
        _ released: Counter,
        resolve: @escaping @Sendable (DIContainer) -> Pool
    ) throws {
        let got = Cell<Pool>()
        let thread = Thread { got.value = resolve(container) }
        thread.start()
        #expect(waits(for: held.entered, "the build started"))
        reset(how, scope, in: container)
        held.proceed.signal()
        #expect(finishes(within: 20, "the caller's resolve") { while got.value == nil { usleep(1_000) } })
        let pool = try #require(got.value)
        #expect(!pool.isClosed, "the caller's instance was never held by the scope")
        #expect(released.value == 0)
        // Not kept: the next resolve builds anew, and a later reset releases that one, once.
        let next = resolve(container)
        #expect(next !== pool)
        reset(how, scope, in: container)
        #expect(released.value == 1)
        #expect(next.isClosed && !pool.isClosed)
    }

    @Test(arguments: Reset.allCases)
    func aWeakServiceResetDuringItsBuildIsHandedToTheCallersThatWaitedForIt(how: Reset) throws {
        let container = DIContainer()
        let held = HeldBuild()
        container.register { held.make() }.scope(.weak)
        let first = Cell<Pool>()
        let second = Cell<Pool>()
        let firstThread = Thread { first.value = container.resolve(Pool.self) }
        firstThread.start()
        #expect(waits(for: held.entered, "the first build started"))
        let secondThread = Thread { second.value = container.resolve(Pool.self) }
        secondThread.start()
        // The second caller waits for the first build: give it time to get there (if it has not, it builds anew
        // after the reset, which the build count below tells apart).
        Thread.sleep(forTimeInterval: 0.2)
        Self.reset(how, .weak, in: container)
        held.proceed.signal()
        #expect(
            finishes(within: 20, "both resolves") { while first.value == nil || second.value == nil { usleep(1_000) } }
        )
        let a = try #require(first.value)
        let b = try #require(second.value)
        #expect(held.builds.value == 1, "the factory ran once for both callers")
        #expect(a === b)
    }

    @Test func reRegisteringAScopedServiceReleasesTheContainersInstanceOfTheOldRegistration() {
        let container = DIContainer()
        let released = Collector<Int>()
        container.register { Pool(1) }.scope(.scoped).onRelease { released.append($0.number) }
        let old = container.resolve(Pool.self)
        container.register { Pool(2) }.scope(.scoped).onRelease { released.append($0.number) }
        #expect(released.values == [1], "the old registration's instance left its scope with the registration")
        #expect(container.resolve(Pool.self).number == 2)
        #expect(old.number == 1)
    }
}
