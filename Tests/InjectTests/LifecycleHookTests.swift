import Foundation
import Inject
import InjectTestSupport
import InjectTesting
import Testing

// Per-registration reset, onRelease and onBuild.

/// Stands for a session's network connections: `onRelease` must close them.
private final class SocketPool: @unchecked Sendable {
    // @unchecked: `closed` is only touched under `lock`.
    private let lock = NSLock()
    private var closed = 0

    func closeAll() {
        lock.withLock { closed += 1 }
    }

    var closeCount: Int {
        lock.withLock { closed }
    }
}

private final class FeedCache: Sendable {}

private protocol Store: Sendable {}
private final class DiskStore: Store {}

/// Holds a `FeedCache`: what `onBuild` paths are checked with.
private final class FeedScreen: Sendable {
    let cache: FeedCache

    init(cache: FeedCache) {
        self.cache = cache
    }
}

/// Collects build events from many threads.
private final class Events: @unchecked Sendable {
    // @unchecked: `events` is only touched under `lock`.
    private let lock = NSLock()
    private var events: [BuildEvent] = []

    func append(_ event: BuildEvent) {
        lock.withLock { events.append(event) }
    }

    var all: [BuildEvent] {
        lock.withLock { events }
    }

    var services: [String] {
        all.map(\.service)
    }
}

struct ResetRegistrationTests {
    @Test(arguments: [Scope.cached, .session, .weak])
    func resetOfOneRegistrationDropsOnlyItsInstance(scope: Scope) {
        let container = DIContainer()
        container.register(FeedCache.self) { FeedCache() }.scope(scope)
        container.register(Widget.self) { Widget() }.scope(scope)
        let cache = container.resolve(FeedCache.self)
        let widget = container.resolve(Widget.self)

        container.reset(FeedCache.self)

        #expect(container.resolve(FeedCache.self) !== cache)
        #expect(container.resolve(Widget.self) === widget)
    }

    @Test func resetOfAScopedRegistrationDropsThisContainersInstanceOnly() {
        let root = DIContainer()
        root.register(FeedCache.self) { FeedCache() }.scope(.scoped)
        let a = root.makeChild()
        let b = root.makeChild()
        let inA = a.resolve(FeedCache.self)
        let inB = b.resolve(FeedCache.self)

        a.reset(FeedCache.self)

        #expect(a.resolve(FeedCache.self) !== inA)
        #expect(b.resolve(FeedCache.self) === inB)
    }

    @Test func resetThroughAProtocolResetsTheRegistrationItForwardsTo() {
        let container = DIContainer()
        container.register(DiskStore.self) { DiskStore() }.scope(.cached).implements(Store.self)
        let store = container.resolve(Store.self)

        container.reset(Store.self)

        #expect(container.resolve(Store.self) as AnyObject !== store as AnyObject)
    }

    @Test func resetUnderAnOverrideDropsTheOverridesInstanceAndLeavesTheContainers() {
        let container = DIContainer()
        container.register(FeedCache.self) { FeedCache() }.scope(.cached)
        let outside = container.resolve(FeedCache.self)

        withOverrides(in: container) { _ in
        } operation: {
            let first = container.resolve(FeedCache.self)
            container.reset(FeedCache.self)
            #expect(container.resolve(FeedCache.self) !== first)
        }

        #expect(container.resolve(FeedCache.self) === outside)
    }

    @Test func resetOfASingletonTrapsSayingWhy() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = DIContainer()
            container.register(FeedCache.self) { FeedCache() }.scope(.singleton)
            container.reset(FeedCache.self)
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("is a .singleton, and a singleton lives as long as its container"), "\(stderr)")
        #expect(stderr.contains("fix: register it .cached"), "\(stderr)")
    }

    @Test func resetOfANamedSingletonNamesItInTheCallAndTheFix() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = DIContainer()
            container.register(FeedCache.self, name: "offline") { FeedCache() }.scope(.singleton)
            container.reset(FeedCache.self, name: "offline")
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("Inject: reset(FeedCache.self, name: \"offline\") at"), "\(stderr)")
        #expect(stderr.contains("or reset(FeedCache.self, name: \"offline\") renews it"), "\(stderr)")
    }

    @Test func resetOfSomethingNotRegisteredTraps() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            DIContainer().reset(FeedCache.self)
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("nothing is registered for FeedCache"), "\(stderr)")
        #expect(stderr.contains("a registration made in a child container is reset through that child"))
    }

    @Test func resetUnderAMisspeltNameListsTheNamesThatAreRegistered() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = DIContainer()
            container.register(FeedCache.self, name: "images") { FeedCache() }.scope(.cached)
            container.reset(FeedCache.self, name: "image")
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("nothing is registered for FeedCache named \"image\""), "\(stderr)")
        #expect(stderr.contains("registered: FeedCache[\"images\"] at"), "\(stderr)")
    }
}

/// A request's service with lazy wrappers: they must not keep the request's container alive.
private final class Auditor: @unchecked Sendable {
    // @unchecked: the wrappers are set once, in init, and synchronise their own reads.
    @LazyInjected var pool: SocketPool
    @WeakInjected var cache: FeedCache?
}

/// Gets an ``Auditor`` in `resolveProperties`, after its async factory returned.
private final class AuditLog: @unchecked Sendable {
    // @unchecked: `auditor` is set once, by resolveProperties, before the instance is handed out.
    var auditor: Auditor?
}

private final class WeakBox<Object: AnyObject>: @unchecked Sendable {
    // @unchecked: written once, before it is shared.
    weak var object: Object?
}

struct OnReleaseTests {
    @Test(arguments: [false, true])
    func aScopedServiceWithLazyWrappersDoesNotKeepItsChildAlive(readFirst: Bool) {
        let server = DIContainer()
        let released = Counter()
        server.register(SocketPool.self) { SocketPool() }.scope(.scoped)
        server.register(FeedCache.self) { FeedCache() }.scope(.scoped)
        server.register(Auditor.self) { Auditor() }.scope(.scoped).onRelease { _ in _ = released.increment() }
        let child = WeakBox<DIContainer>()
        do {
            let request = server.makeChild()
            child.object = request
            let auditor = request.resolve(Auditor.self)
            if readFirst {
                #expect(auditor.pool === request.resolve(SocketPool.self))
                #expect(auditor.cache === request.resolve(FeedCache.self))
            }
        }

        #expect(child.object == nil, "the request's container was kept alive by its own service's wrappers")
        #expect(released.value == 1)
    }

    @Test func aLazyPropertyReadAfterItsContainerWasReleasedTrapsSayingWhy() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let server = DIContainer()
            server.register(SocketPool.self) { SocketPool() }.scope(.scoped)
            server.register(Auditor.self) { Auditor() }
            var request: DIContainer? = server.makeChild()
            let auditor = request!.resolve(Auditor.self)
            request = nil
            _ = auditor.pool
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("@LazyInjected SocketPool at InjectTests/LifecycleHookTests.swift:"), "\(stderr)")
        #expect(stderr.contains("is read after the container it resolves through was released"), "\(stderr)")
        #expect(stderr.contains("@LazyInjected(container: ...)"), "\(stderr)")
    }

    @Test func aLazyPropertyOfAnObjectWhoseRootContainerWasNotKeptStillResolves() async {
        // In a child process: on a weak reference to the root, the read would trap.
        await #expect(processExitsWith: .success) {
            func makeAuditor() -> Auditor {
                let root = DIContainer()
                root.register(SocketPool.self) { SocketPool() }.scope(.singleton)
                root.register(FeedCache.self) { FeedCache() }.scope(.singleton)
                root.register(Auditor.self) { Auditor() }
                return root.resolve(Auditor.self)
            }
            let auditor = makeAuditor()
            // Read first while the root is only held by the wrappers: neither read traps.
            precondition(auditor.cache != nil)
            precondition(auditor.pool.closeCount == 0)
        }
    }

    @Test func anObjectWhoseRootWasNotKeptKeepsItAliveSoWhatItReadsIsNotReleasedUnderIt() {
        let closed = Counter()
        let root = WeakBox<DIContainer>()
        func makeAuditor() -> Auditor {
            let container = DIContainer()
            root.object = container
            container.register(SocketPool.self) { SocketPool() }.scope(.cached).onRelease { _ in _ = closed.increment()
            }
            container.register(FeedCache.self) { FeedCache() }.scope(.singleton)
            container.register(Auditor.self) { Auditor() }
            return container.resolve(Auditor.self)
        }
        var auditor: Auditor? = makeAuditor()

        #expect(auditor?.cache != nil, "the root's singleton, still alive")
        #expect(auditor?.pool.closeCount == 0)
        auditor?.$pool.reset()
        #expect(auditor?.pool.closeCount == 0, "read again after reset, through the same root")
        #expect(closed.value == 0, "the root released its instances while the object used them")
        auditor = nil

        #expect(root.object == nil, "the object kept the root alive after it went")
        #expect(closed.value == 1)
    }

    @Test func aRootWhoseCachedServiceHasLazyPropertiesIsReleased() {
        let released = Counter()
        let root = WeakBox<DIContainer>()
        do {
            let container = DIContainer()
            root.object = container
            container.register(SocketPool.self) { SocketPool() }.scope(.cached)
            container.register(FeedCache.self) { FeedCache() }.scope(.cached)
            container.register(Auditor.self) { Auditor() }.scope(.cached).onRelease { _ in _ = released.increment() }
            let auditor = container.resolve(Auditor.self)
            #expect(auditor.pool === container.resolve(SocketPool.self))
            #expect(auditor.cache === container.resolve(FeedCache.self))
        }

        #expect(root.object == nil, "the root was kept alive by its own service's lazy properties")
        #expect(released.value == 1)
    }

    @Test func aRootWhoseAsyncSingletonMakesLazyPropertiesInResolvePropertiesIsReleased() async throws {
        let root = WeakBox<DIContainer>()
        do {
            let container = DIContainer()
            root.object = container
            container.register(SocketPool.self) { SocketPool() }.scope(.cached)
            container.register(FeedCache.self) { FeedCache() }.scope(.cached)
            container.register(AuditLog.self) { () async -> AuditLog in AuditLog() }
                .scope(.singleton)
                .resolveProperties { _, log in log.auditor = Auditor() }
            let log = try await container.resolveAsync(AuditLog.self)
            #expect(log.auditor?.pool === container.resolve(SocketPool.self), "resolved through the build's container")
        }

        #expect(root.object == nil, "the root was kept alive by its own singleton's lazy properties")
    }

    @Test func aLazyReadAfterTheRootThatKeptItsObjectWasReleasedSaysToKeepTheRoot() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            func makeAuditor() -> Auditor {
                let container = DIContainer()
                container.register(SocketPool.self) { SocketPool() }.scope(.singleton)
                container.register(FeedCache.self) { FeedCache() }.scope(.singleton)
                container.register(Auditor.self) { Auditor() }.scope(.singleton)
                return container.resolve(Auditor.self)
            }
            _ = makeAuditor().pool
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("is read after the root container it resolves through was released"), "\(stderr)")
        #expect(stderr.contains("fix: keep the container alive as long as objects it built are in use"), "\(stderr)")
    }

    @Test func aSessionsSocketsAreClosedWhenTheLastReferenceToTheSessionGoes() {
        let app = DIContainer()
        app.register(SocketPool.self) { SocketPool() }.scope(.scoped).onRelease { $0.closeAll() }
        var session: DIContainer? = app.makeChild()
        let pool = session!.resolve(SocketPool.self)
        let appPool = app.resolve(SocketPool.self)

        #expect(pool.closeCount == 0)
        session = nil

        #expect(pool.closeCount == 1, "released with its child scope")
        #expect(appPool.closeCount == 0, "the app's own instance stays")
    }

    @Test func aChildsOwnRegistrationsAreReleasedWithIt() {
        var session: DIContainer? = DIContainer().makeChild()
        session!.register(SocketPool.self) { SocketPool() }.scope(.singleton).onRelease { $0.closeAll() }
        let pool = session!.resolve(SocketPool.self)

        session = nil

        #expect(pool.closeCount == 1)
    }

    @Test(arguments: [Scope.cached, .session, .scoped])
    func resetOfTheScopeReleasesEachInstanceOnce(scope: Scope) {
        let container = DIContainer()
        container.register(SocketPool.self) { SocketPool() }.scope(scope).onRelease { $0.closeAll() }
        let pool = container.resolve(SocketPool.self)

        container.reset(scope)
        container.reset(scope)

        #expect(pool.closeCount == 1)
        #expect(container.resolve(SocketPool.self) !== pool)
    }

    @Test func resetOfTheRegistrationReleasesIt() {
        let container = DIContainer()
        container.register(SocketPool.self) { SocketPool() }.scope(.cached).onRelease { $0.closeAll() }
        let pool = container.resolve(SocketPool.self)

        container.reset(SocketPool.self)

        #expect(pool.closeCount == 1)
    }

    @Test(arguments: [Scope.transient, .graph, .weak])
    func instancesTheContainerDoesNotHoldAreNeverReleasedByIt(scope: Scope) {
        let released = Counter()
        var container: DIContainer? = DIContainer()
        container!.register(SocketPool.self) { SocketPool() }.scope(scope).onRelease { _ in released.increment() }
        let pool = container!.resolve(SocketPool.self)

        container!.reset(scope)
        container = nil

        #expect(released.value == 0)
        _ = pool
    }

    @Test func onReleaseRunsWithNoLockHeldSoItMayUseTheContainer() {
        let container = DIContainer()
        let resolvedInside = Cell<FeedCache>()
        container.register(FeedCache.self) { FeedCache() }.scope(.singleton)
        container.register(SocketPool.self) { SocketPool() }.scope(.cached).onRelease { _ in
            resolvedInside.value = container.resolve(FeedCache.self)
            container.reset(.cached)  // re-entrant: would deadlock under a held lock
        }
        _ = container.resolve(SocketPool.self)

        finishes("an onRelease that resolves and resets") {
            container.reset(.cached)
        }

        #expect(resolvedInside.value === container.resolve(FeedCache.self))
    }

    @Test func anInstanceBuiltUnderAnOverrideIsReleasedWhenTheOverrideEnds() {
        let container = DIContainer()
        container.register(SocketPool.self) { SocketPool() }.scope(.singleton).onRelease { $0.closeAll() }

        let inside = withOverrides(in: container) { _ in
        } operation: {
            container.resolve(SocketPool.self)
        }

        #expect(inside.closeCount == 1)
        #expect(container.resolve(SocketPool.self).closeCount == 0)
    }
}

struct OnBuildTests {
    @Test func anObserverSeesEveryBuildWithItsScopeAndPathButNoCachedRead() throws {
        let container = DIContainer()
        let events = Events()
        container.onBuild { events.append($0) }
        container.register(FeedCache.self) { FeedCache() }.scope(.singleton)
        container.register { r in FeedScreen(cache: try r.resolve()) }

        _ = container.resolve(FeedScreen.self)
        _ = container.resolve(FeedCache.self)

        #expect(events.services == ["FeedCache", "FeedScreen"])
        let cache = try #require(events.all.first)
        #expect(cache.scope == .singleton)
        #expect(cache.path == ["FeedScreen", "FeedCache"])
        #expect(events.all[1].path == ["FeedScreen"])
        #expect(events.all.allSatisfy { $0.seconds >= 0 && $0.seconds < 1 })
    }

    @Test func aBuildsOwnTimeLeavesOutWhatItAskedFor() throws {
        let container = DIContainer()
        let events = Events()
        container.onBuild { events.append($0) }
        container.register(FeedCache.self) {
            Thread.sleep(forTimeInterval: 0.05)
            return FeedCache()
        }
        container.register { r in FeedScreen(cache: try r.resolve()) }

        _ = container.resolve(FeedScreen.self)

        let cache = try #require(events.all.first { $0.service == "FeedCache" })
        let screen = try #require(events.all.first { $0.service == "FeedScreen" })
        #expect(cache.seconds >= 0.05)
        #expect(screen.seconds < 0.04, "FeedScreen's own time must not include FeedCache's 50 ms")
    }

    @Test func aParentsObserverSeesBuildsThroughItsChildrenAndAChildsDoesNotSeeItsSiblings() {
        let root = DIContainer()
        let rootEvents = Events()
        root.onBuild { rootEvents.append($0) }
        root.register(FeedCache.self) { FeedCache() }.scope(.scoped)
        let a = root.makeChild()
        let b = root.makeChild()
        let aEvents = Events()
        a.onBuild { aEvents.append($0) }

        _ = a.resolve(FeedCache.self)
        _ = b.resolve(FeedCache.self)

        #expect(rootEvents.services == ["FeedCache", "FeedCache"])
        #expect(aEvents.services == ["FeedCache"])
    }

    @Test func anObserverSetWhileAResolveIsUnderWaySeesEveryBuildOfTheResolvesAfterIt() {
        let root = DIContainer()
        let child = root.makeChild()
        let events = Events()
        let screensBuilt = Counter()
        root.register(FeedCache.self) { FeedCache() }.scope(.singleton)
        root.register(Widget.self) { Widget() }
        root.register(FeedScreen.self) { r in
            if screensBuilt.increment() == 1 {
                child.onBuild { events.append($0) }  // no observer anywhere when this resolve began
            }
            return FeedScreen(cache: try r.resolve())
        }
        _ = child.resolve(FeedScreen.self)
        let before = events.services.count

        _ = child.resolve(Widget.self)
        _ = child.resolve(FeedScreen.self)

        #expect(Array(events.services.dropFirst(before)) == ["Widget", "FeedScreen"])
    }

    @Test func anObserverMayResolveBecauseNoLockIsHeld() {
        let container = DIContainer()
        let seen = Counter()
        container.register(FeedCache.self) { FeedCache() }.scope(.singleton)
        container.register(Widget.self) { Widget() }
        container.onBuild { event in
            if event.service == "Widget" {
                _ = container.resolve(FeedCache.self)
            }
            seen.increment()
        }

        finishes("an observer that resolves") {
            _ = container.resolve(Widget.self)
        }

        #expect(seen.value == 1, "Widget's build; FeedCache's, which the observer made, is not an event")
        #expect(container.resolve(FeedCache.self) === container.resolve(FeedCache.self))
    }

    @Test func anObserverThatResolvesAGraphServiceIsNotCalledForItsOwnBuilds() {
        let container = DIContainer()
        let seen = Collector<String>()
        container.register(Widget.self) { Widget() }
        container.register(FeedCache.self) { FeedCache() }
        container.onBuild { event in
            seen.append(event.service)
            _ = container.resolve(Widget.self)  // a new Widget each time: its build must not call this again
        }

        _ = container.resolve(FeedCache.self)
        _ = container.resolve(Widget.self)

        #expect(seen.values == ["FeedCache", "Widget"])
    }

    @Test func anObserverOfAnAsyncResolutionMayResolveToo() async throws {
        let container = DIContainer()
        let seen = Collector<String>()
        container.register(Widget.self) { Widget() }
        container.register(FeedCache.self) { (_: DIResolver) async in FeedCache() }
        container.onBuild { event in
            seen.append(event.service)
            _ = container.resolve(Widget.self)
        }

        _ = try await container.resolveAsync(FeedCache.self)

        #expect(seen.values == ["FeedCache"])
    }

    @Test func anImplementsForwardIsNotABuildOfItsOwn() {
        let container = DIContainer()
        let events = Events()
        container.onBuild { events.append($0) }
        container.register(DiskStore.self) { DiskStore() }.scope(.singleton).implements(Store.self)

        _ = container.resolve(Store.self)

        #expect(events.services == ["DiskStore"])
    }

    @Test func validationsThrowawayBuildsAreNotEvents() {
        let container = DIContainer()
        let events = Events()
        container.onBuild { events.append($0) }
        container.register(FeedCache.self) { FeedCache() }.scope(.singleton)

        _ = container.validationReport()

        #expect(events.all.isEmpty)
    }
}
