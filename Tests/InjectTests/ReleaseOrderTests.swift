import Foundation
import Inject
import InjectTestSupport
import InjectTesting
import Testing

// Instances that leave their scope together are released newest first: a service before what it was built from.

/// The order `onRelease` closures ran in.
private final class ReleaseLog: @unchecked Sendable {
    // @unchecked: `names` is only touched under `lock`.
    private let lock = NSLock()
    private var names: [Int] = []

    func append(_ index: Int) {
        lock.withLock { names.append(index) }
    }

    var order: [Int] {
        lock.withLock { names }
    }
}

private enum L0 {}
private enum L1 {}
private enum L2 {}
private enum L3 {}
private enum L4 {}
private enum L5 {}
private enum L6 {}
private enum L7 {}

/// One link of a chain: link `n` is built from link `n - 1`, so its build ends after that one's.
private final class Link<Tag>: Sendable {
    let index: Int
    let below: (any Sendable)?

    init(index: Int, below: (any Sendable)?) {
        self.index = index
        self.below = below
    }
}

/// Registers links 0 to 7 (each built from the one before it), the last first, so that registration order is not
/// build order; each logs its index when released.
private func registerChain(in container: DIContainer, scope: Scope, log: ReleaseLog) {
    func link<Tag, Below>(_: Tag.Type, _ index: Int, below: Below.Type) {
        container.register(Link<Tag>.self) { r in
            Link(index: index, below: Below.self == Void.self ? nil : try r.resolve(Link<Below>.self))
        }
        .scope(scope)
        .onRelease { log.append($0.index) }
    }
    link(L7.self, 7, below: L6.self)
    link(L6.self, 6, below: L5.self)
    link(L5.self, 5, below: L4.self)
    link(L4.self, 4, below: L3.self)
    link(L3.self, 3, below: L2.self)
    link(L2.self, 2, below: L1.self)
    link(L1.self, 1, below: L0.self)
    link(L0.self, 0, below: Void.self)
}

private let newestFirst = Array((0...7).reversed())

struct ReleaseOrderTests {
    @Test func aChildContainersScopedInstancesAreReleasedNewestFirst() {
        let app = DIContainer()
        let log = ReleaseLog()
        registerChain(in: app, scope: .scoped, log: log)
        var session: DIContainer? = app.makeChild()
        _ = session!.resolve(Link<L7>.self)

        session = nil

        #expect(log.order == newestFirst)
    }

    @Test(arguments: [Scope.scoped, .cached, .session])
    func aResetOfAScopeReleasesItsInstancesNewestFirst(scope: Scope) {
        let container = DIContainer()
        let log = ReleaseLog()
        registerChain(in: container, scope: scope, log: log)
        _ = container.resolve(Link<L7>.self)

        container.reset(scope)

        #expect(log.order == newestFirst)
    }

    @Test func aReleasedRootReleasesItsInstancesNewestFirst() {
        let log = ReleaseLog()
        var container: DIContainer? = DIContainer()
        registerChain(in: container!, scope: .singleton, log: log)
        _ = container!.resolve(Link<L7>.self)

        container = nil

        #expect(log.order == newestFirst)
    }

    @Test func whatATestOverrideBuiltIsReleasedNewestFirstWhenItEnds() {
        let container = DIContainer()
        let log = ReleaseLog()
        registerChain(in: container, scope: .cached, log: log)

        withOverrides(in: container) { _ in
        } operation: {
            _ = container.resolve(Link<L7>.self)
        }

        #expect(log.order == newestFirst)
    }

    @Test func oneInstancePerArgumentValueIsReleasedNewestFirst() {
        let container = DIContainer()
        let log = ReleaseLog()
        container.register(Link<L0>.self) { (_: DIResolver, index: Int) in Link(index: index, below: nil) }
            .scope(.cached)
            .onRelease { log.append($0.index) }
        for index in [3, 0, 7, 5, 1, 6, 2, 4] {
            _ = container.resolve(Link<L0>.self, argument: index)
        }

        container.reset(Link<L0>.self)

        #expect(log.order == [4, 2, 6, 1, 5, 7, 0, 3])
    }

    @Test func independentServicesAreReleasedInTheReverseOfTheOrderTheyWereResolved() {
        let app = DIContainer()
        let log = ReleaseLog()
        registerChain(in: app, scope: .scoped, log: log)
        var session: DIContainer? = app.makeChild()
        // Link 0 first on its own, then the rest of the chain from the top.
        _ = session!.resolve(Link<L0>.self)
        _ = session!.resolve(Link<L3>.self)
        _ = session!.resolve(Link<L7>.self)

        session = nil

        #expect(log.order == newestFirst)
    }
}
