import Inject
import InjectTestSupport
import Testing

// A captive dependency: a long-lived service (.singleton, .cached, custom scope) holding a service whose lifetime is
// ended explicitly (.cached or custom scope, renewed by reset; .scoped, ended with its child) and differs from its
// own. Holding .transient, .graph or .weak services is not flagged.

/// The service held.
private final class Held: Sendable {}

/// A service with no dependencies, for the clean app.
private final class Database: Sendable {}

/// A service whose factory resolves a ``Held`` and keeps it.
private final class Holder: Sendable {
    let held: Held

    init(held: Held) {
        self.held = held
    }
}

/// A service between a holder and what it ends up holding.
private final class Middle: Sendable {
    let held: Held

    init(held: Held) {
        self.held = held
    }
}

/// A service that holds a protocol-typed dependency.
private final class Announcer: Sendable {
    let greeter: Greeter

    init(greeter: Greeter) {
        self.greeter = greeter
    }
}

/// A service that gets its ``Held`` after it is built, in `resolveProperties`.
private final class LateHolder: @unchecked Sendable {
    // @unchecked: `held` is set once, by `resolveProperties`, before the instance is handed out.
    var held: Held?
}

/// A singleton that holds a transient and a graph service.
private final class Dashboard: Sendable {
    let held: Held
    let logger: Logger

    init(held: Held, logger: Logger) {
        self.held = held
        self.logger = logger
    }
}

// `@Injected(container:)` needs its container at declaration: each holder class below has its own, used by one test.

private let injectedBridgeContainer = DIContainer()

/// Holds its session service through `@Injected`, initialised when its factory constructs it.
private final class InjectedBridge: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in the implicit initialiser, and never reassigned.
    @Injected(container: injectedBridgeContainer) var held: Held
}

private let injectedGreeterContainer = DIContainer()

/// Holds a protocol through `@Injected`; the protocol is forwarded by `implements` to a session registration.
private final class InjectedGreeterBridge: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in the implicit initialiser, and never reassigned.
    @Injected(container: injectedGreeterContainer) var greeter: Greeter
}

private let weakBridgeContainer = DIContainer()

/// Holds its session service weakly: when a reset drops it, the property reads `nil`, never a stale one.
private final class WeakBridge: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in the implicit initialiser, and never reassigned.
    @WeakInjected(container: weakBridgeContainer) var held: Held?
}

private let weakScopedBridgeContainer = DIContainer()

/// Holds a `.scoped` service weakly from the root: it reads the root's own instance, which no child scope shares.
private final class WeakScopedBridge: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in the implicit initialiser, and never reassigned.
    @WeakInjected(container: weakScopedBridgeContainer) var held: Held?
}

private let lazyBridgeContainer = DIContainer()

/// Holds its session service through `@LazyInjected`: strongly, once read.
private final class LazyBridge: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in the implicit initialiser; it guards its own first read.
    @LazyInjected(container: lazyBridgeContainer) var held: Held
}

struct CaptiveDependencyTests {
    // MARK: Flagged

    @Test(arguments: [
        (Scope.singleton, Scope.session),
        (.singleton, .cached),
        (.singleton, .scoped),
        (.cached, .session),
        (.custom("a"), .custom("b")),
        (.session, .cached),
        (.scoped, .cached),
        (.scoped, .session),
        (.weak, .scoped),
        (.weak, .cached),
    ])
    func aLongLivedServiceHoldingAResettableServiceIsCaptive(holderScope: Scope, heldScope: Scope) throws {
        let container = DIContainer()
        container.register(Held.self) { Held() }.scope(heldScope)
        let holderLine = #line + 1
        container.register(Holder.self) { r in Holder(held: try r.resolve()) }.scope(holderScope)

        let report = container.validationReport()

        let problem = try onlyProblem(ofKind: .captiveDependency, in: report)
        #expect(problem.severity == .warning)
        #expect(problem.location == registeredAt(holderLine))
        #expect(problem.message.contains("Holder"), "\(problem)")
        #expect(problem.message.contains("Held"), "\(problem)")
        #expect(problem.message.contains("\(holderScope)"), "\(problem)")
        #expect(problem.message.contains("\(heldScope)"), "\(problem)")
        #expect(report.isValid)
        try container.validate()
    }

    @Test func aSingletonHoldingAScopedServiceIsNotToldToInjectAClosure() throws {
        let container = DIContainer()
        container.register(Held.self) { Held() }.scope(.scoped)
        container.register(Holder.self) { r in Holder(held: try r.resolve()) }.scope(.singleton)

        let problem = try onlyProblem(ofKind: .captiveDependency, in: container.validationReport())

        // A closure made in the singleton's factory would resolve the root's Held, never a child's.
        #expect(!problem.description.contains("inject a closure"), "\(problem)")
        #expect(
            problem.description.contains(
                "fix: give Holder the scope .scoped too, or pass Held to the methods that need it, from code that resolves it through the child container"
            ),
            "\(problem)"
        )
    }

    @Test func theWarningNamesBothServicesAndBothScopes() throws {
        let container = DIContainer()
        container.register(Held.self) { Held() }.scope(.session)
        let holderLine = #line + 1
        container.register(Holder.self) { r in Holder(held: try r.resolve()) }.scope(.singleton)

        let report = container.validationReport()

        let problem = try #require(report.problems(ofKind: .captiveDependency).first, "\(report)")
        #expect(problem.service == "Holder")
        #expect(problem.message.contains("Holder (.singleton)"), "\(problem)")
        #expect(problem.message.contains("Held (.custom(\"session\"))"), "\(problem)")
        #expect(report.description.contains("\(registeredAt(holderLine)): warning:"), "\(report)")
        #expect(report.description.contains(problem.description))
    }

    @Test func aSingletonHoldingAScopedServiceSaysTheChildScopeEnds() throws {
        let container = DIContainer()
        container.register(Held.self) { Held() }.scope(.scoped)
        container.register(Holder.self) { r in Holder(held: try r.resolve()) }.scope(.singleton)

        let report = container.validationReport()

        let problem = try #require(report.problems(ofKind: .captiveDependency).first, "\(report)")
        #expect(problem.message.contains(".scoped"), "\(problem)")
        #expect(problem.message.contains(".singleton"), "\(problem)")
    }

    @Test(arguments: [Scope.cached, .scoped])
    func aSingletonHoldingAWeakServiceThatHoldsAResettableOneIsCaptive(staleScope: Scope) throws {
        // The singleton keeps the .weak Middle alive for good, so Middle's Held is never renewed: everyone who
        // resolves Middle gets the stale one too.
        let container = DIContainer()
        container.register(Held.self) { Held() }.scope(staleScope)
        container.register(Middle.self) { r in Middle(held: try r.resolve()) }.scope(.weak)
        container.register(Holder.self) { r in Holder(held: try r.resolve(Middle.self).held) }.scope(.singleton)

        let report = container.validationReport()

        let captives = report.problems(ofKind: .captiveDependency)
        let problem = try #require(captives.first { $0.service == "Holder" }, "\(report)")
        #expect(problem.message.contains("through Middle (.weak)"), "\(problem)")
        // Middle is flagged on its own too: while anyone holds it, every resolve gets it and its stale Held.
        #expect(captives.map(\.service).sorted() == ["Holder", "Middle"], "\(report)")
    }

    // MARK: Not flagged

    @Test(arguments: [
        (Scope.singleton, Scope.transient),
        (.singleton, .graph),
        (.singleton, .weak),
        (.singleton, .singleton),
        (.session, .session),
        (.cached, .cached),
        (.cached, .singleton),
        (.session, .singleton),
        (.scoped, .scoped),
        (.scoped, .singleton),
        (.scoped, .transient),
    ])
    func holdingAServiceOfAnUnflaggedLifetimeIsNotCaptive(holderScope: Scope, heldScope: Scope) {
        let container = DIContainer()
        container.register(Held.self) { Held() }.scope(heldScope)
        container.register(Holder.self) { r in Holder(held: try r.resolve()) }.scope(holderScope)

        let report = container.validationReport()

        #expect(report.problems(ofKind: .captiveDependency).isEmpty, "\(report)")
        #expect(report.untimedProblems.isEmpty, "\(report)")
    }

    @Test func aSingletonHoldingTransientAndGraphServicesIsNotFlagged() {
        let container = DIContainer()
        container.register(Held.self) { Held() }.scope(.transient)
        container.register(Logger.self) { Logger(tag: "graph") }.scope(.graph)
        container.register(Dashboard.self) { r in Dashboard(held: try r.resolve(), logger: try r.resolve()) }
            .scope(.singleton)

        let report = container.validationReport()

        #expect(report.untimedProblems.isEmpty, "\(report)")
        #expect(report.checkedCount == 3)
    }

    @Test func aCleanAppShowsNoWarning() {
        let container = DIContainer()
        container.register(Database.self) { Database() }.scope(.singleton)
        container.register(Logger.self) { Logger(tag: "app") }.scope(.weak)
        container.register(Held.self) { Held() }.scope(.session)
        container.register(Holder.self) { r in Holder(held: try r.resolve()) }.scope(.session)
        container.register(Middle.self) { r in Middle(held: try r.resolve()) }.scope(.transient)
        container.register(Reporter.self) { r in Reporter(logger: try r.resolve()) }.scope(.cached)
        container.register(Announcer.self) { r in Announcer(greeter: try r.resolve()) }.scope(.singleton)
        container.register(EnglishGreeter.self) { EnglishGreeter() }.scope(.singleton).implements(Greeter.self)
        container.register(Dashboard.self) { r in Dashboard(held: try r.resolve(), logger: try r.resolve()) }

        let report = container.validationReport()

        #expect(report.untimedProblems.isEmpty, "\(report)")
    }

    // MARK: Seen through other registrations

    @Test func aCaptiveReachedThroughImplementsCountsWithTheForwardedRegistrationsScope() throws {
        let container = DIContainer()
        let announcerLine = #line + 1
        container.register(Announcer.self) { r in Announcer(greeter: try r.resolve()) }.scope(.singleton)
        container.register(EnglishGreeter.self) { EnglishGreeter() }.scope(.session).implements(Greeter.self)

        let report = container.validationReport()

        let problem = try onlyProblem(ofKind: .captiveDependency, in: report)
        #expect(problem.location == registeredAt(announcerLine))
        #expect(problem.message.contains("Announcer"), "\(problem)")
        #expect(problem.message.contains("EnglishGreeter"), "\(problem)")
        #expect(problem.message.contains(".singleton"), "\(problem)")
        #expect(problem.message.contains(".custom(\"session\")"), "\(problem)")
    }

    @Test func aCaptiveHeldThroughAnInjectedPropertyIsFlagged() throws {
        let container = injectedBridgeContainer
        container.register(Held.self) { Held() }.scope(.session)
        let bridgeLine = #line + 1
        container.register(InjectedBridge.self) { InjectedBridge() }.scope(.singleton)

        let report = container.validationReport()

        let problem = try onlyProblem(ofKind: .captiveDependency, in: report)
        #expect(problem.location == registeredAt(bridgeLine))
        #expect(problem.message.contains("InjectedBridge"), "\(problem)")
        #expect(problem.message.contains("Held"), "\(problem)")
    }

    @Test func aCaptiveHeldThroughALazyInjectedPropertyIsFlagged() throws {
        let container = lazyBridgeContainer
        container.register(Held.self) { Held() }.scope(.session)
        container.register(LazyBridge.self) { LazyBridge() }.scope(.singleton)

        let report = container.validationReport()

        let problem = try onlyProblem(ofKind: .captiveDependency, in: report)
        #expect(problem.message.contains("LazyBridge"), "\(problem)")
    }

    @Test func aHolderOfTheSameScopeInAChildIsToldToMoveNotToTakeTheScopeItHas() throws {
        // A child's .cached service holding the root's .cached one: reset(.cached) on the root spares the child's.
        let root = DIContainer()
        root.register(Held.self) { Held() }.scope(.cached)
        let child = root.makeChild()
        child.register(Holder.self) { r in Holder(held: try r.resolve()) }.scope(.cached)

        let report = child.validationReport()

        let problem = try onlyProblem(ofKind: .captiveDependency, in: report)
        #expect(!problem.description.contains("give Holder the scope .cached too"), "\(problem)")
        #expect(problem.description.contains("fix: register Holder in the container that registers Held"), "\(problem)")
    }

    @Test func aScopedHolderOfACachedServiceIsNotToldToBecomeCached() throws {
        // Giving a per-session service the scope .cached would make it one for the whole app.
        let container = DIContainer()
        container.register(Held.self) { Held() }.scope(.cached)
        container.register(Holder.self) { r in Holder(held: try r.resolve()) }.scope(.scoped)

        let report = container.makeChild().validationReport()

        let problem = try onlyProblem(ofKind: .captiveDependency, in: report)
        #expect(!problem.description.contains("give Holder the scope .cached too"), "\(problem)")
        #expect(problem.description.contains("fix: keep Holder .scoped (one per child scope)"), "\(problem)")
    }

    @Test func aServiceHeldThroughAWeakInjectedPropertyIsNotCaptive() throws {
        let container = weakBridgeContainer
        container.register(Held.self) { Held() }.scope(.session)
        container.register(WeakBridge.self) { WeakBridge() }.scope(.singleton)

        let report = container.validationReport()

        #expect(report.problems(ofKind: .captiveDependency).isEmpty, "\(report)")
        // What the warning would have said does not happen: after the reset the property reads nil, not a stale one.
        let bridge = container.resolve(WeakBridge.self)
        #expect(bridge.held != nil)
        container.reset(.session)
        #expect(bridge.held == nil)
    }

    @Test func anApplicationWideServiceReadingTheRootsScopedServiceWeaklyIsFlagged() throws {
        let container = weakScopedBridgeContainer
        container.register(Held.self) { Held() }.scope(.scoped)
        container.register(WeakScopedBridge.self) { WeakScopedBridge() }.scope(.singleton)

        let report = container.validationReport()

        let problem = try onlyProblem(ofKind: .captiveDependency, in: report)
        #expect(problem.description.contains("reads the root container's own Held"), "\(problem)")
    }

    @Test func aCaptiveReachedThroughImplementsAndAnInjectedPropertyIsFlagged() throws {
        let container = injectedGreeterContainer
        container.register(EnglishGreeter.self) { EnglishGreeter() }.scope(.session).implements(Greeter.self)
        let bridgeLine = #line + 1
        container.register(InjectedGreeterBridge.self) { InjectedGreeterBridge() }.scope(.singleton)

        let report = container.validationReport()

        let problem = try onlyProblem(ofKind: .captiveDependency, in: report)
        #expect(problem.location == registeredAt(bridgeLine))
        #expect(problem.message.contains("InjectedGreeterBridge"), "\(problem)")
        #expect(problem.message.contains("EnglishGreeter"), "\(problem)")
        #expect(problem.message.contains(".custom(\"session\")"), "\(problem)")
    }

    @Test func aCaptiveSetByResolvePropertiesIsFlagged() throws {
        let container = DIContainer()
        container.register(Held.self) { Held() }.scope(.session)
        let holderLine = #line + 1
        container.register(LateHolder.self) { LateHolder() }.scope(.singleton)
            .resolveProperties { r, holder in holder.held = try r.resolve() }

        let report = container.validationReport()

        let problem = try #require(report.problems(ofKind: .captiveDependency).first, "\(report)")
        #expect(problem.location == registeredAt(holderLine))
        #expect(problem.message.contains("LateHolder"), "\(problem)")
    }

    @Test(arguments: [Scope.transient, .graph])
    func aCaptiveReachedThroughAnIntermediaryIsFlaggedNamingTheRoute(middleScope: Scope) throws {
        let container = DIContainer()
        let holderLine = #line + 1
        container.register(Holder.self) { r in Holder(held: try r.resolve(Middle.self).held) }.scope(.singleton)
        container.register(Middle.self) { r in Middle(held: try r.resolve()) }.scope(middleScope)
        container.register(Held.self) { Held() }.scope(.session)

        let report = container.validationReport()

        let problem = try onlyProblem(ofKind: .captiveDependency, in: report)
        #expect(problem.location == registeredAt(holderLine))
        #expect(problem.message.contains("Holder"), "\(problem)")
        #expect(problem.message.contains("Middle"), "\(problem)")
        #expect(problem.message.contains("Held"), "\(problem)")
    }

    @Test func aCaptiveReachedFromSeveralRegistrationsIsReportedOnce() {
        let container = DIContainer()
        container.register(Held.self) { Held() }.scope(.session)
        container.register(Holder.self) { r in Holder(held: try r.resolve()) }.scope(.singleton)
        container.register(Middle.self) { r in Middle(held: try r.resolve(Holder.self).held) }
        container.register(Dashboard.self) { r in
            Dashboard(held: try r.resolve(Holder.self).held, logger: Logger(tag: ""))
        }

        let report = container.validationReport()

        #expect(report.problems(ofKind: .captiveDependency).count == 1, "\(report)")
    }
}
