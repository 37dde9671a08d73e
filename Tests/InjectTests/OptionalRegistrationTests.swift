import Inject
import InjectTestSupport
import Testing

// A factory that returns `T?` registers `Optional<T>`: the Resolver way of a service that may not exist. The optional
// requests (`optional`, `r.optional()`, `@OptionalInjected`) resolve it, and a request for `T` itself says why it
// does not.

private protocol CrashTracker: Sendable {}
private final class FirebaseCrashTracker: CrashTracker {}

private final class Checkout: Sendable {
    let tracker: (any CrashTracker)?

    init(tracker: (any CrashTracker)?) {
        self.tracker = tracker
    }
}

private final class CheckoutScreen: @unchecked Sendable {
    // @unchecked: set once, in init.
    @OptionalInjected var tracker: (any CrashTracker)?

    init(container: DIContainer) {
        _tracker = OptionalInjected(container: container)
    }
}

struct OptionalRegistrationTests {
    private static func container(trackingEnabled: Bool) -> DIContainer {
        let container = DIContainer()
        container.register { () -> (any CrashTracker)? in trackingEnabled ? FirebaseCrashTracker() : nil }
            .scope(.singleton)
        container.register { r in Checkout(tracker: try r.optional()) }
        return container
    }

    @Test func everyOptionalRequestResolvesAFactoryThatReturnsAnOptional() {
        let container = Self.container(trackingEnabled: true)

        #expect(container.optional((any CrashTracker).self) is FirebaseCrashTracker)
        #expect(container.resolve(Checkout.self).tracker is FirebaseCrashTracker)
        #expect(CheckoutScreen(container: container).tracker is FirebaseCrashTracker)
        let asOptional: (any CrashTracker)? = container.resolve()
        #expect(asOptional is FirebaseCrashTracker)
    }

    @Test func itsNilIsTheAnswerOfEveryOptionalRequest() {
        let container = Self.container(trackingEnabled: false)

        #expect(container.optional((any CrashTracker).self) == nil)
        #expect(container.resolve(Checkout.self).tracker == nil)
        #expect(CheckoutScreen(container: container).tracker == nil)
    }

    @Test func aRequestForTheWrappedTypeNamesTheOptionalRegistrationAndTheFix() throws {
        let container = Self.container(trackingEnabled: true)

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing((any CrashTracker).self)
        }

        #expect(error.kind == .notRegistered)
        #expect(error.description.contains("a factory that returns an optional"), "\(error)")
        #expect(error.description.contains("OptionalRegistrationTests.swift:"), "\(error)")
        #expect(error.description.contains("fix: ask with optional(CrashTracker.self)"), "\(error)")
    }

    @Test func validationFindsNothingWrongWithIt() {
        let container = Self.container(trackingEnabled: true)

        let report = container.validationReport()

        #expect(report.untimedProblems.isEmpty, "\(report)")
    }
}
