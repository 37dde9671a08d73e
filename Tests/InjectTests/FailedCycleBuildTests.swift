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
}
