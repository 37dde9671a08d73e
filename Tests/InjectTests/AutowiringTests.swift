import Inject
import InjectTestSupport
import Testing

// Autowiring: `register(autowired: T.init)` resolves each initializer parameter by type, through the factory's
// resolver, exactly as the hand-written factory would.

private final class Clock: Sendable {}
private final class Network: Sendable {}
private final class Storage: Sendable {}

private final class NoDependencies: Sendable {
    init() {}
}

private final class OneDependency: Sendable {
    let clock: Clock

    init(clock: Clock) {
        self.clock = clock
    }
}

private final class FourDependencies: Sendable {
    let clock: Clock
    let network: Network
    let storage: Storage
    let widget: Widget

    init(clock: Clock, network: Network, storage: Storage, widget: Widget) {
        self.clock = clock
        self.network = network
        self.storage = storage
        self.widget = widget
    }
}

private protocol Feed: Sendable {
    var network: Network { get }
}

private final class LiveFeed: Feed {
    let network: Network

    init(network: Network) {
        self.network = network
    }
}

/// Takes a value, not a service: autowiring it asks the container for an `Int`.
private final class RetryingLoader: Sendable {
    let network: Network
    let retries: Int

    init(network: Network, retries: Int) {
        self.network = network
        self.retries = retries
    }
}

/// Takes an optional service: autowiring it asks the container for an `Optional<Clock>`.
private final class MaybeTimed: Sendable {
    let network: Network
    let clock: Clock?

    init(network: Network, clock: Clock?) {
        self.network = network
        self.clock = clock
    }
}

/// Needs a `Storage`, which the tests that check errors leave unregistered.
/// One optional parameter and nothing else: an example must not add a parameter it does not have.
private final class Logged: Sendable {
    let clock: Clock?

    init(logger clock: Clock?) {
        self.clock = clock
    }
}

private final class NeedsStorage: Sendable {
    let storage: Storage

    init(storage: Storage) {
        self.storage = storage
    }
}

struct AutowiringTests {
    @Test func aFactoryClosureWithSeveralArgumentsSaysToPassOneTupleNotToRegisterDIResolver() throws {
        let container = DIContainer()
        // A Swinject factory with two arguments, ported as it was: Swift takes it as register(autowired:).
        container.register(Widget.self) { (_: DIResolver, serial: Int, _: String) in Widget(serial: serial) }

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(Widget.self) }

        #expect(error.description.contains("so it was taken as register(autowired:)"), "\(error)")
        #expect(error.description.contains("fix: pass several runtime arguments as one tuple or struct"), "\(error)")
        #expect(!error.description.contains("fix: register DIResolver"), "\(error)")
    }

    @Test func validationReportsSuchAClosureOnceNotEachOfItsRuntimeArgumentsAsMissing() throws {
        let container = DIContainer()
        container.register(Widget.self) { (_: DIResolver, serial: Int, _: String) in Widget(serial: serial) }

        let report = container.validationReport()

        #expect(report.errors.count == 1, "\(report)")
        #expect(report.description.contains("so it was taken as register(autowired:)"), "\(report)")
        #expect(!report.description.contains("nothing is registered for Int"), "\(report)")
    }

    @Test func aClosureWithoutAResolverResolvedWithAnArgumentSaysItWasTakenAsAutowiring() throws {
        let container = DIContainer()
        // A runtime argument without the resolver: Swift takes it as register(autowired:).
        container.register(Widget.self) { (serial: Int) in Widget(serial: serial) }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(Widget.self, argument: 7)
        }

        #expect(error.description.contains("takes no argument, but was resolved with an argument of type Int"))
        #expect(
            error.description.contains(
                "Widget is registered with register(autowired:), which resolves each parameter of its function (Int)"
            ),
            "\(error)"
        )
        #expect(error.description.contains("register { (r: DIResolver, argument: Int) in ... }"), "\(error)")
    }

    @Test func anInitializerWithoutParametersIsAutowired() {
        let container = DIContainer()
        container.register(autowired: NoDependencies.init).scope(.singleton)

        #expect(container.resolve(NoDependencies.self) === container.resolve(NoDependencies.self))
    }

    @Test func eachParameterIsResolvedByItsType() {
        let container = DIContainer()
        let clock = Clock()
        container.register(Clock.self) { clock }
        container.register(autowired: OneDependency.init)
        container.register(Network.self) { Network() }.scope(.singleton)
        container.register(Storage.self) { Storage() }
        container.register(Widget.self) { Widget(serial: 4) }
        container.register(autowired: FourDependencies.init)

        let one = container.resolve(OneDependency.self)
        let four = container.resolve(FourDependencies.self)

        #expect(one.clock === clock)
        #expect(four.clock === clock)
        #expect(four.network === container.resolve(Network.self))
        #expect(four.widget.serial == 4)
    }

    @Test func registrationOptionsChainOnAnAutowiredRegistration() {
        let container = DIContainer()
        container.register(Network.self) { Network() }
        let released = Counter()
        container.register(LiveFeed.self, name: .live, autowired: LiveFeed.init)
            .scope(.cached)
            .implements(Feed.self, name: .live)
            .onRelease { _ in released.increment() }

        let feed = container.resolve(Feed.self, name: .live)

        #expect(feed as? LiveFeed === container.resolve(LiveFeed.self, name: .live))
        container.reset(.cached)
        #expect(released.value == 1)
    }

    @Test func aProtocolCanBeRegisteredWithAConcreteInitializer() {
        let container = DIContainer()
        container.register(Network.self) { Network() }
        container.register(Feed.self, autowired: LiveFeed.init).scope(.singleton)

        #expect(container.resolve(Feed.self) is LiveFeed)
    }

    @Test func aMissingDependencyFailsAsAHandWrittenFactoryWould() throws {
        let autowired = DIContainer()
        autowired.register(autowired: NeedsStorage.init)
        let handWritten = DIContainer()
        handWritten.register { r in NeedsStorage(storage: try r.resolve()) }

        let autowiredError = try #require(throws: ResolutionError.self) {
            try autowired.resolveThrowing(NeedsStorage.self)
        }
        let handWrittenError = try #require(throws: ResolutionError.self) {
            try handWritten.resolveThrowing(NeedsStorage.self)
        }

        #expect(autowiredError.kind == .notRegistered)
        #expect(autowiredError.path == handWrittenError.path)
        #expect(autowiredError.path == ["NeedsStorage", "Storage"])
        #expect(autowiredError.description.contains("asked by: NeedsStorage's factory, registered at"))
    }

    @Test func aParameterThatIsAValueSaysAutowiringResolvesEveryParameterAndHowToWriteTheFactory() throws {
        let container = DIContainer()
        container.register(Network.self) { Network() }
        container.register(autowired: RetryingLoader.init(network:retries:))

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(RetryingLoader.self) }

        #expect(error.path == ["RetryingLoader", "Int"])
        #expect(
            error.description.contains(
                "RetryingLoader is registered with register(autowired:), which resolves every parameter of the initializer by its type, unnamed, those with a default value too (a reference to an initializer does not carry its defaults): one of them is Int."
            ),
            "\(error)"
        )
        #expect(
            error.description.contains("write RetryingLoader's factory by hand instead of register(autowired:)"),
            "\(error)"
        )
        #expect(error.description.contains("with the initializer's own labels"), "\(error)")
        #expect(!error.description.contains("count: 3"), "no made-up labels: \(error)")
    }

    @Test func aRegistrationUnderAProtocolIsWrittenByHandUnderThatProtocolNotByInitialisingIt() throws {
        let container = DIContainer()
        container.register(Feed.self, name: "live", autowired: LiveFeed.init)

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(Feed.self, name: "live")
        }

        #expect(
            error.description.contains(
                """
                register(Feed.self, name: "live") { r in try <the implementation you passed>(<label>: r.resolve(), \
                <label>: <the value>) }
                """
            ),
            "\(error)"
        )
        #expect(!error.description.contains("try Feed("), "a protocol has no initializer: \(error)")
    }

    @Test func anOptionalParameterWithNothingRegisteredSaysToWriteTheFactoryWithOptional() throws {
        let container = DIContainer()
        container.register(Network.self) { Network() }
        container.register(autowired: MaybeTimed.init)

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(MaybeTimed.self) }

        #expect(error.path == ["MaybeTimed", "Optional<Clock>"])
        #expect(
            error.description.contains(
                """
                  fix: register Clock (a request for Optional<Clock> falls back to it); or, where nil is an answer, \
                write MaybeTimed's factory by hand instead of register(autowired:), resolving that parameter with try \
                r.optional(), which gives nil when nothing is registered, and the others with try r.resolve(): \
                register { r in try MaybeTimed(<label>: r.resolve(), <label>: r.optional()) }, with the \
                initializer's own labels.
                """
            ),
            "\(error)"
        )
        #expect(!error.description.contains("or call optional("), "an autowired registration cannot: \(error)")
    }

    @Test func theExampleForAnOptionalParameterHasTheInitializersParametersAndInventsNoLabel() throws {
        let container = DIContainer()
        container.register(autowired: Logged.init)

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(Logged.self) }

        #expect(error.description.contains("register { r in try Logged(<label>: r.optional()) }"), "\(error)")
        #expect(!error.description.contains("service:"), "no made-up labels: \(error)")
        #expect(!error.description.contains("clock:"), "a label guessed from the type: \(error)")
    }

    @Test func aDependencyMissingDeeperDownIsNotBlamedOnAutowiring() throws {
        let container = DIContainer()
        container.register(autowired: NeedsStorage.init)
        container.register(Storage.self) { r in
            _ = try r.resolve(Clock.self)
            return Storage()
        }

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(NeedsStorage.self) }

        #expect(error.path == ["NeedsStorage", "Storage", "Clock"])
        #expect(!error.description.contains("register(autowired:)"), "Storage's own factory asked: \(error)")
    }

    @Test func validationSeesAnAutowiredRegistrationsEdges() throws {
        let container = DIContainer()
        container.register(autowired: NeedsStorage.init)
        container.register(autowired: OneDependency.init)
        container.register(Clock.self) { Clock() }

        let report = container.validationReport()

        let missing = try onlyProblem(ofKind: .missingRegistration, in: report)
        #expect(missing.message.contains("Storage"))
        let graph = DrawnGraph(dot: report.dot())
        #expect(graph.edge(from: graph.node("OneDependency"), to: graph.node("Clock")) != nil, "\(report.dot())")
    }

    @Test func validationReportsEveryParameterThatCannotBeResolvedNotOnlyTheFirst() throws {
        let container = DIContainer()
        let line = #line + 1
        container.register(autowired: FourDependencies.init)
        container.register(Network.self) { Network() }

        let report = container.validationReport()

        let missing = report.problems(ofKind: .missingRegistration)
        #expect(missing.map(\.service).sorted() == ["Clock", "Storage", "Widget"], "\(report)")
        #expect(missing.allSatisfy { $0.location == registeredAt(line) }, "\(report)")
        // Outside validation the resolve still stops at the first.
        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(FourDependencies.self) }
        #expect(error.path == ["FourDependencies", "Clock"])
    }
}
