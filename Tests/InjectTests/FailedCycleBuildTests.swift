import Foundation
import Inject
import InjectTestSupport
import Testing

/// A build whose `resolveProperties` throws leaves nothing behind, also inside a cycle: an instance built on the way
/// that got the failed build's unfinished instance back (its `resolveProperties` closed the cycle) is not kept, or
/// it would hold an instance that is not the service's, for good.
struct FailedCycleBuildTests {
    struct Flaky: Error {}

    final class Account: @unchecked Sendable {
        // @unchecked: set once by resolveProperties, before the instance is handed out.
        var ledger: Ledger?
    }

    final class Ledger: @unchecked Sendable {
        // @unchecked: set once by resolveProperties, before the instance is handed out.
        var account: Account?
    }

    @Test(arguments: [Scope.singleton, .cached, .scoped, .custom("session")])
    func aServiceThatGotTheFailedBuildsInstanceBackIsNotKept(scope: Scope) throws {
        let root = DIContainer()
        let failing = Cell<Bool>(true)
        let releasedLedgers = Counter()
        root.register { Account() }.scope(scope)
            .resolveProperties { r, account in
                account.ledger = try r.resolve()
                if failing.value == true {
                    throw Flaky()
                }
            }
        root.register { Ledger() }.scope(scope)
            .resolveProperties { r, ledger in ledger.account = try r.resolve() }
            .onRelease { _ in releasedLedgers.increment() }
        let container = scope == .scoped ? root.makeChild() : root

        #expect(throws: ResolutionError.self) { try container.resolveThrowing(Account.self) }
        #expect(releasedLedgers.value == 1, "the Ledger built on the way was dropped, once")

        failing.value = false
        let ledger = container.resolve(Ledger.self)
        let account = container.resolve(Account.self)
        #expect(ledger.account === account, "the Ledger holds the Account the container hands out")
        #expect(account.ledger === ledger)
    }

    @Test func whatWasBuiltBeforeTheInstanceWasLentStays() throws {
        // Account's resolveProperties builds Clock before anything gets Account back: Clock does not depend on the
        // failed build, and stays.
        let container = DIContainer()
        let clocks = Counter()
        container.register { clocks.increment() }.scope(.singleton)
        container.register { Account() }.scope(.singleton)
            .resolveProperties { r, account in
                _ = try r.resolve(Int.self)
                account.ledger = try r.resolve()
                throw Flaky()
            }
        container.register { Ledger() }.scope(.singleton)
            .resolveProperties { r, ledger in ledger.account = try r.resolve() }

        #expect(throws: ResolutionError.self) { try container.resolveThrowing(Account.self) }
        #expect(container.resolve(Int.self) == 1)
        #expect(clocks.value == 1)
    }

    @Test func aResolveInTheDroppedServicesOnReleaseStartsAfreshInsteadOfJoiningTheFailingBuild() throws {
        let container = DIContainer()
        let failing = Cell<Bool>(true)
        let rebuilt = Collector<Ledger>()
        container.register { Account() }.scope(.singleton)
            .resolveProperties { r, account in
                account.ledger = try r.resolve()
                if failing.value == true {
                    failing.value = false
                    throw Flaky()
                }
            }
        container.register { Ledger() }.scope(.singleton)
            .resolveProperties { r, ledger in ledger.account = try r.resolve() }
            .onRelease { [weak container] _ in
                // Only while the container lives: its own release lets go of the Ledger too.
                if let container, rebuilt.values.isEmpty {
                    rebuilt.append(container.resolve(Ledger.self))
                }
            }

        #expect(throws: ResolutionError.self) { try container.resolveThrowing(Account.self) }

        let account = container.resolve(Account.self)
        let ledger = container.resolve(Ledger.self)
        #expect(rebuilt.values.count == 1)
        #expect(rebuilt.values.first === ledger)
        #expect(ledger.account === account, "the Ledger the onRelease built holds the Account the container hands out")
        #expect(account.ledger === ledger)
    }

    final class Router: @unchecked Sendable {
        // @unchecked: set once by resolveProperties, before the instance is handed out.
        var coordinator: Coordinator?
    }

    final class Coordinator: @unchecked Sendable {
        // @unchecked: set once by resolveProperties, before the instance is handed out.
        var router: Router?
    }

    @Test func anAsyncBuildWhoseResolvePropertiesThrowsLeavesNothingBehindEither() async throws {
        let container = DIContainer()
        let failing = Cell<Bool>(true)
        let releasedCoordinators = Counter()
        container.register { () async throws -> Router in Router() }.scope(.singleton)
            .resolveProperties { r, router in
                router.coordinator = try r.resolve()
                if failing.value == true {
                    throw Flaky()
                }
            }
        container.register { Coordinator() }.scope(.singleton)
            .resolveProperties { r, coordinator in coordinator.router = try r.resolve() }
            .onRelease { _ in releasedCoordinators.increment() }

        await #expect(throws: ResolutionError.self) { try await container.resolveAsync(Router.self) }
        #expect(releasedCoordinators.value == 1)

        failing.value = false
        let router = try await container.resolveAsync(Router.self)
        let coordinator = container.resolve(Coordinator.self)
        #expect(coordinator.router === router)
        #expect(router.coordinator === coordinator)
    }

    final class Hub: @unchecked Sendable {
        // @unchecked: set once by resolveProperties, before the instance is handed out.
        var left: Left?
        var right: Right?
    }

    final class Left: @unchecked Sendable {
        // @unchecked: set once by resolveProperties, before the instance is handed out.
        var hub: Hub?
    }

    final class Right: @unchecked Sendable {
        // @unchecked: set once by resolveProperties, before the instance is handed out.
        var hub: Hub?
    }

    @Test func aWarmUpRetryDoesNotKeepWhatWasBuiltOnTheFirstTrysInstance() async throws {
        // Hub (async) gets Left, built on Hub's first instance, then Right, which warmUp() builds beside it and which
        // is not built yet: Hub's first try fails with .notBuiltYet, and the retry builds a second Hub. Left must
        // not keep the first.
        let container = DIContainer()
        container.register { () async throws -> Hub in
            try await Task.sleep(nanoseconds: 10_000_000)
            return Hub()
        }
        .scope(.singleton).eager()
        .resolveProperties { r, hub in
            hub.left = try r.resolve()
            hub.right = try r.resolve()
        }
        container.register { Left() }.scope(.singleton).eager()
            .resolveProperties { r, left in left.hub = try r.resolve() }
        container.register { () -> Right in
            usleep(50_000)
            return Right()
        }
        .scope(.singleton).eager()
        .resolveProperties { r, right in right.hub = try r.resolve() }

        let outcome = await completes("the warm-up") { try await container.warmUp() }

        _ = try #require(try outcome?.get())
        let hub = container.resolve(Hub.self)
        #expect(container.resolve(Left.self).hub === hub)
        #expect(container.resolve(Right.self).hub === hub)
        #expect(hub.left === container.resolve(Left.self))
        #expect(hub.right === container.resolve(Right.self))
    }

    final class Logger: Sendable {}

    @Test func aServiceBuiltBesideTheCycleIsKeptWhenTheLenderFails() throws {
        // Account lends its instance to Ledger, then asks for Logger, which holds nothing of the cycle: Logger is
        // built once and kept, whatever becomes of Account.
        let container = DIContainer()
        let failing = Cell<Bool>(true)
        let loggers = Counter()
        let releasedLoggers = Counter()
        container.register { () -> Logger in
            loggers.increment()
            return Logger()
        }
        .scope(.singleton).onRelease { _ in releasedLoggers.increment() }
        container.register { Account() }.scope(.singleton)
            .resolveProperties { r, account in
                account.ledger = try r.resolve()
                _ = try r.resolve(Logger.self)
                if failing.value == true {
                    throw Flaky()
                }
            }
        container.register { Ledger() }.scope(.singleton)
            .resolveProperties { r, ledger in ledger.account = try r.resolve() }

        #expect(throws: ResolutionError.self) { try container.resolveThrowing(Account.self) }
        failing.value = false
        _ = container.resolve(Account.self)
        _ = container.resolve(Logger.self)
        #expect(loggers.value == 1, "Logger was built once")
        #expect(releasedLoggers.value == 0)
    }

    @Test(arguments: [false, true])
    func aResolveInTheOnReleaseOfAServiceDroppedInAnAsyncResolutionDoesNotHang(warmUp: Bool) async throws {
        let container = DIContainer()
        let failing = Cell<Bool>(true)
        let rebuilt = Collector<Ledger>()
        do {
            // In a block of its own: an open registration chain is seen only by the task that holds it.
            let account = container.register { Account() }.scope(.singleton)
                .resolveProperties { r, account in
                    account.ledger = try r.resolve()
                    if failing.value == true {
                        failing.value = false
                        throw Flaky()
                    }
                }
            if warmUp {
                account.eager()
            }
        }
        container.register { Ledger() }.scope(.singleton)
            .resolveProperties { r, ledger in ledger.account = try r.resolve() }
            .onRelease { [weak container] _ in
                if let container, rebuilt.values.isEmpty {
                    rebuilt.append(container.resolve(Ledger.self))
                }
            }

        #expect(failing.value == true)
        let outcome = await completes("the async resolution whose lender failed") {
            if warmUp {
                _ = try? await container.warmUp()
            } else {
                _ = try? await container.resolveAsync(Account.self)
            }
        }
        #expect(outcome != nil)
        #expect(failing.value == false, "the async resolution's first build failed")
        let ledger = container.resolve(Ledger.self)
        let resolved = container.resolve(Account.self)
        #expect(rebuilt.values.first === ledger)
        #expect(ledger.account === resolved)
        #expect(resolved.ledger === ledger)
    }
}
