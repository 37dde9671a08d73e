import Foundation
import Inject
import InjectTestSupport
import Testing

// Services for the validation tests: each factory resolves what its type holds, so a report's paths read like an
// app's. Types only these tests use.

private final class Database: Sendable {}

private final class Repository: Sendable {
    let database: Database

    init(database: Database) {
        self.database = database
    }
}

private final class ListScreen: Sendable {
    let repository: Repository

    init(repository: Repository) {
        self.repository = repository
    }
}

private final class DetailScreen: Sendable {
    let repository: Repository

    init(repository: Repository) {
        self.repository = repository
    }
}

/// Three registrations whose factories ask for each other: `CycleA -> CycleB -> CycleC -> CycleA`.
private final class CycleA: Sendable {}
private final class CycleB: Sendable {}
private final class CycleC: Sendable {}

@MainActor
private final class ProfileScreenModel {
    let title: String

    init(title: String) {
        self.title = title
    }
}

private let lazyProfileContainer = DIContainer()

/// Not isolated to the main actor, with a lazy property of the main-actor model: its first read works only there.
private final class LazyProfileHolder: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in init, and synchronises its own first read.
    @LazyInjected(container: lazyProfileContainer) var model: ProfileScreenModel
}

/// A protocol the main-actor model is also registered as, with `implements`.
private protocol ProfileTitled: AnyObject {}
extension ProfileScreenModel: ProfileTitled {}

/// Holds a main-actor service, with a plain factory: resolvable only on the main actor.
private final class ProfileFormatter: @unchecked Sendable {
    // @unchecked: a test fixture that only holds the reference.
    let model: ProfileScreenModel

    init(model: ProfileScreenModel) {
        self.model = model
    }
}

/// Holds a widget weakly, made by a factory: its wrapper resolves through that factory's container.
private final class WeakWidgetHolder: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in init, and synchronises its own reads.
    @WeakInjected var widget: Widget?
}

private protocol Gizmo: AnyObject, Sendable {}
extension Widget: Gizmo {}

/// Holds a gizmo weakly, asked for by its protocol.
private final class WeakGizmoHolder: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in init, and synchronises its own reads.
    @WeakInjected var gizmo: Gizmo?
}

/// Holds a value type weakly, which its first read traps on.
private struct Reading: Sendable {}

private final class WeakReadingHolder: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in init, and synchronises its own reads.
    @WeakInjected var reading: Reading?
}

private let weakReadingDeclaration = "\(#fileID):\(#line - 3)"

struct WeakInjectedValueTypeValidationTests {
    @Test(arguments: [Scope.singleton, .transient])
    func aWeakInjectedPropertyOfAValueTypeIsAnErrorAtItsDeclaration(scope: Scope) throws {
        let container = DIContainer()
        container.register(Reading.self) { Reading() }.scope(scope)
        container.register(WeakReadingHolder.self) { WeakReadingHolder() }.scope(.singleton)

        let report = container.validationReport()

        let problem = try #require(report.errors.first, "\(report)")
        #expect(problem.location == weakReadingDeclaration, "\(problem)")
        #expect(problem.message.contains("got a Reading, which is not a class"), "\(problem)")
        #expect(problem.description.contains("fix: use @Injected or @LazyInjected for value types."), "\(problem)")
    }
}

struct ForwardedArgumentRegistrationTests {
    @Test func anImplementsForwardOfAnArgumentRegistrationIsBuiltWithItsSample() throws {
        let container = DIContainer()
        container.register(Widget.self) { (_: DIResolver, serial: Int) in Widget(serial: serial) }
            .implements(Gizmo.self)
            .validationArgument(3)

        let report = container.validationReport()

        #expect(report.untimedProblems.isEmpty, "\(report)")
        let graph = DrawnGraph(dot: report.dot())
        #expect(graph.edge(from: graph.node("Gizmo"), to: graph.node("Widget")) != nil, "\(report.dot())")
        #expect((try container.resolveThrowing(Gizmo.self, argument: 4) as? Widget)?.serial == 4)
    }

    @Test func anImplementsForwardOfAnArgumentRegistrationWithoutASampleIsOnlyItsRegistrationsWarning() throws {
        let container = DIContainer()
        container.register(Widget.self) { (_: DIResolver, serial: Int) in Widget(serial: serial) }
            .implements(Gizmo.self)

        let report = container.validationReport()

        #expect(report.isValid, "\(report)")
        #expect(report.untimedProblems.count == 1, "\(report)")
        #expect(report.untimedProblems.first?.message.contains("Widget takes a runtime argument of type Int") == true)
    }
}

struct WeakPropertyOfANewInstanceTests {
    @Test(arguments: [Scope.graph, .transient])
    func aWeakPropertyOfAServiceThatNothingKeepsIsAWarning(scope: Scope) throws {
        let container = DIContainer()
        container.register(Widget.self) { Widget() }.scope(scope)
        container.register(WeakWidgetHolder.self) { WeakWidgetHolder() }

        let report = container.validationReport()

        let problem = try #require(
            report.untimedProblems.first { $0.message.contains("holds Widget weakly") },
            "\(report)"
        )
        #expect(problem.severity == .warning)
        #expect(problem.location.hasPrefix("InjectTests/ValidationTests.swift:"), "the property's line: \(problem)")
        #expect(problem.message.contains("is \(scope)"), "\(problem)")
        #expect(problem.message.contains("so the property is nil at once"), "\(problem)")
        #expect(container.resolve(WeakWidgetHolder.self).widget == nil, "what the warning says")
    }

    @Test(arguments: [Scope.singleton, .cached, .weak])
    func aWeakPropertyOfAServiceThatIsKeptIsNot(scope: Scope) {
        let container = DIContainer()
        container.register(Widget.self) { Widget() }.scope(scope)
        container.register(WeakWidgetHolder.self) { WeakWidgetHolder() }

        #expect(container.validationReport().untimedProblems.isEmpty, "\(container.validationReport())")
    }

    @Test func aWeakPropertyOfAForwardToASingletonIsNot() {
        let container = DIContainer()
        container.register(Widget.self) { Widget() }.scope(.singleton).implements(Gizmo.self)
        container.register(WeakGizmoHolder.self) { WeakGizmoHolder() }

        #expect(container.validationReport().untimedProblems.isEmpty, "\(container.validationReport())")
        #expect(container.resolve(WeakGizmoHolder.self).gizmo != nil)
    }
}

struct ValidationTests {
    // MARK: A clean container

    @Test func aCleanContainerHasNoProblemsAndValidates() throws {
        let container = DIContainer()
        container.register(Database.self) { Database() }.scope(.singleton)
        container.register(Repository.self) { r in Repository(database: try r.resolve()) }
        container.register(ListScreen.self) { r in ListScreen(repository: try r.resolve()) }.scope(.transient)

        let report = container.validationReport()

        #expect(report.untimedProblems.isEmpty, "\(report)")
        #expect(report.isValid)
        #expect(report.checkedCount == 3)
        try container.validate()
    }

    @Test func anEmptyContainerIsValid() throws {
        let report = DIContainer().validationReport()

        #expect(report.untimedProblems.isEmpty)
        #expect(report.isValid)
        #expect(report.checkedCount == 0)
        try DIContainer().validate()
    }

    // MARK: Missing registrations

    @Test func aMissingRegistrationIsAnErrorWithThePathAndTheAskingRegistration() throws {
        let container = DIContainer()
        let reporterLine = #line + 1
        container.register(Reporter.self) { r in Reporter(logger: try r.resolve()) }

        let report = container.validationReport()

        let problem = try #require(report.untimedProblems.first, "\(report)")
        #expect(report.untimedProblems.count == 1, "\(report)")
        #expect(problem.kind == .missingRegistration)
        #expect(problem.severity == .error)
        #expect(problem.service == "Logger")
        #expect(problem.location == registeredAt(reporterLine))
        #expect(problem.message.contains("Logger"))
        #expect(problem.description.contains("path: Reporter -> Logger"), "\(problem)")
        #expect(problem.description.hasPrefix("\(registeredAt(reporterLine)): error:"), "\(problem)")
        #expect(!report.isValid)
    }

    @Test func aMissingNamedRegistrationNamesTheNameAndTheOtherNames() throws {
        let container = DIContainer()
        container.register(Reporter.self) { r in Reporter(logger: try r.resolve(name: .live)) }
        let mockLine = #line + 1
        container.register(Logger.self, name: .mock) { Logger(tag: "mock") }

        let report = container.validationReport()

        let problem = try #require(report.problems(ofKind: .missingRegistration).first, "\(report)")
        #expect(problem.service == "Logger[\"live\"]")
        #expect(problem.description.contains("live"))
        #expect(problem.description.contains(registeredAt(mockLine)), "\(problem)")
        #expect(report.checkedCount == 2)
    }

    @Test func aMissingServiceNeededThroughASharedDependencyIsReportedOnce() throws {
        let container = DIContainer()
        container.register(ListScreen.self) { r in ListScreen(repository: try r.resolve()) }
        container.register(DetailScreen.self) { r in DetailScreen(repository: try r.resolve()) }
        let repositoryLine = #line + 1
        container.register(Repository.self) { r in Repository(database: try r.resolve()) }

        let report = container.validationReport()

        #expect(report.untimedProblems.count == 1, "\(report)")
        let problem = try #require(report.problems(ofKind: .missingRegistration).first)
        #expect(problem.service == "Database")
        #expect(problem.location == registeredAt(repositoryLine))
        #expect(problem.description.contains("Repository -> Database"), "\(problem)")
        #expect(report.checkedCount == 3)
    }

    // MARK: Cycles

    @Test func aCycleIsAnErrorNamingEveryStep() throws {
        let container = DIContainer()
        let aLine = #line + 1
        container.register(CycleA.self) { r in
            _ = try r.resolve(CycleB.self)
            return CycleA()
        }
        let bLine = #line + 1
        container.register(CycleB.self) { r in
            _ = try r.resolve(CycleC.self)
            return CycleB()
        }
        let cLine = #line + 1
        container.register(CycleC.self) { r in
            _ = try r.resolve(CycleA.self)
            return CycleC()
        }

        let report = container.validationReport()

        let problem = try #require(report.problems(ofKind: .cycle).first, "\(report)")
        #expect(problem.severity == .error)
        let rotations = [
            "CycleA -> CycleB -> CycleC -> CycleA",
            "CycleB -> CycleC -> CycleA -> CycleB",
            "CycleC -> CycleA -> CycleB -> CycleC",
        ]
        #expect(rotations.contains { problem.message.contains($0) }, "\(problem)")
        #expect([aLine, bLine, cLine].map { registeredAt($0) }.contains(problem.location), "\(problem)")
        #expect(!report.isValid)
    }

    @Test func aCycleFoundFromEachOfItsMembersIsReportedOnce() {
        let container = DIContainer()
        container.register(CycleA.self) { r in
            _ = try r.resolve(CycleB.self)
            return CycleA()
        }
        container.register(CycleB.self) { r in
            _ = try r.resolve(CycleC.self)
            return CycleB()
        }
        container.register(CycleC.self) { r in
            _ = try r.resolve(CycleA.self)
            return CycleC()
        }

        let report = container.validationReport()

        #expect(report.checkedCount == 3)
        #expect(report.untimedProblems.count == 1, "\(report)")
        #expect(report.problems(ofKind: .cycle).count == 1, "\(report)")
    }

    @Test func aFactoryAskingForItselfIsACycle() throws {
        let container = DIContainer()
        let line = #line + 1
        container.register(CycleA.self) { r in
            _ = try r.resolve(CycleA.self)
            return CycleA()
        }

        let report = container.validationReport()

        let problem = try #require(report.problems(ofKind: .cycle).first, "\(report)")
        #expect(problem.message.contains("CycleA -> CycleA"), "\(problem)")
        #expect(problem.location == registeredAt(line))
    }

    // MARK: Factories that throw

    @Test func aThrowingFactoryIsAnErrorWithItsErrorsText() throws {
        let container = DIContainer()
        let line = #line + 1
        container.register(Widget.self) { () throws -> Widget in throw FixtureError(text: "the disk is on fire") }

        let report = container.validationReport()

        let problem = try #require(report.untimedProblems.first, "\(report)")
        #expect(report.untimedProblems.count == 1)
        #expect(problem.kind == .factoryThrew)
        #expect(problem.severity == .error)
        #expect(problem.service == "Widget")
        #expect(problem.location == registeredAt(line))
        #expect(problem.message.contains("the disk is on fire"), "\(problem)")
        #expect(report.checkedCount == 1)
    }

    @Test func aThrowingResolvePropertiesClosureIsAnError() throws {
        let container = DIContainer()
        let line = #line + 1
        container.register(Widget.self) { Widget() }
            .resolveProperties { _, _ in throw FixtureError(text: "properties failed") }

        let report = container.validationReport()

        let problem = try #require(report.problems(ofKind: .factoryThrew).first, "\(report)")
        #expect(problem.severity == .error)
        #expect(problem.location == registeredAt(line))
        #expect(problem.message.contains("properties failed"), "\(problem)")
    }

    @Test func aThrowingDependencyReachedFromSeveralRegistrationsIsReportedOnce() throws {
        let container = DIContainer()
        container.register(ListScreen.self) { r in ListScreen(repository: try r.resolve()) }
        container.register(DetailScreen.self) { r in DetailScreen(repository: try r.resolve()) }
        let line = #line + 1
        container.register(Repository.self) { () throws -> Repository in throw FixtureError(text: "no network") }

        let report = container.validationReport()

        #expect(report.untimedProblems.count == 1, "\(report)")
        let problem = try #require(report.problems(ofKind: .factoryThrew).first)
        #expect(problem.location == registeredAt(line))
    }

    // MARK: Registrations that cannot work as written

    @Test func aWeakRegistrationOfAValueTypeIsAWarningBecauseItWorksAsTransient() throws {
        let container = DIContainer()
        let line = #line + 1
        container.register(Point.self) { Point(x: 1, y: 2) }.scope(.weak)

        let report = container.validationReport()

        let problem = try #require(report.untimedProblems.first, "\(report)")
        #expect(problem.kind == .invalidRegistration)
        #expect(problem.severity == .warning)
        #expect(problem.location == registeredAt(line))
        #expect(report.isValid)
    }

    @Test func implementsOfAProtocolTheInstanceDoesNotAdoptIsAnInvalidRegistration() throws {
        let container = DIContainer()
        let line = #line + 1
        container.register(Widget.self) { Widget() }.implements(Greeter.self)

        let report = container.validationReport()

        let problem = try #require(report.problems(ofKind: .invalidRegistration).first, "\(report)")
        #expect(problem.severity == .error)
        #expect(problem.location == registeredAt(line))
        #expect(problem.message.contains("Greeter"))
        #expect(problem.message.contains("Widget"))
    }

    // MARK: Argument registrations

    @Test func anArgumentRegistrationWithoutASampleIsAWarningAndIsNotBuilt() throws {
        let container = DIContainer()
        let made = Counter()
        let line = #line + 1
        container.register(Widget.self) { (_: DIResolver, serial: Int) in
            made.increment()
            return Widget(serial: serial)
        }

        let report = container.validationReport()

        let problem = try #require(report.untimedProblems.first, "\(report)")
        #expect(report.untimedProblems.count == 1)
        #expect(problem.kind == .notBuilt)
        #expect(problem.severity == .warning)
        #expect(problem.location == registeredAt(line))
        #expect(problem.message.contains("Int"), "\(problem)")
        #expect(made.value == 0)
        #expect(report.checkedCount == 0)
        #expect(report.isValid)
        try container.validate()
    }

    @Test func anArgumentRegistrationIsBuiltWithItsSample() {
        let container = DIContainer()
        let given = Collector<Int>()
        container.register(Widget.self) { (_: DIResolver, serial: Int) in
            given.append(serial)
            return Widget(serial: serial)
        }
        .validationArgument(42)

        let report = container.validationReport()

        #expect(report.untimedProblems.isEmpty, "\(report)")
        #expect(given.values == [42])
        #expect(report.checkedCount == 1)
    }

    @Test func aSampleOfTheWrongTypeIsAnErrorNamingBothTypes() throws {
        let container = DIContainer()
        let made = Counter()
        let line = #line + 1
        container.register(Widget.self) { (_: DIResolver, serial: Int) in
            made.increment()
            return Widget(serial: serial)
        }
        .validationArgument("forty-two")

        let report = container.validationReport()

        let problem = try #require(report.untimedProblems.first, "\(report)")
        #expect(problem.kind == .invalidRegistration)
        #expect(problem.severity == .error)
        #expect(problem.location == registeredAt(line))
        #expect(problem.message.contains("Int"), "\(problem)")
        #expect(problem.message.contains("String"), "\(problem)")
        #expect(problem.description.contains("its validationArgument sample is of type String"), "\(problem)")
        #expect(problem.description.contains("fix: pass a sample of type Int to .validationArgument."), "\(problem)")
        #expect(made.value == 0)
        #expect(throws: ValidationError.self) { try container.validate() }
    }

    @Test func aTransientArgumentRegistrationIsBuiltWithEveryArgumentItIsAskedWith() throws {
        // Gadget's factory asks Widget for -1, whose build needs a named Widget nothing registers; Widget's own
        // sample, 1, does not. Registered first, Widget was built once with its sample and never with -1.
        let container = DIContainer()
        container.register(Point.self, name: "memory") { Point(x: 0, y: 0) }
        container.register(Widget.self) { (r: DIResolver, serial: Int) in
            _ = try r.resolve(Point.self, name: serial < 0 ? "disk" : "memory")
            return Widget(serial: serial)
        }
        .validationArgument(1)
        container.register(Gadget.self) { r in Gadget(widget: try r.resolve(Widget.self, argument: -1)) }

        let report = container.validationReport()

        #expect(!report.isValid, "\(report)")
        #expect(report.description.contains("nothing is registered for Point named \"disk\""), "\(report)")
        #expect(report.description.contains("Gadget -> Widget -> Point[\"disk\"]"), "\(report)")
    }

    @Test func aSampleOfTheWrongTypeForACachedArgumentRegistrationBlamesTheSampleNotTheCaller() throws {
        let container = DIContainer()
        container.register(Widget.self) { (_: DIResolver, serial: Int) in Widget(serial: serial) }
            .scope(.cached)
            .validationArgument("forty-two")

        let report = container.validationReport()

        let problem = try #require(report.untimedProblems.first, "\(report)")
        #expect(problem.description.contains("its validationArgument sample is of type String"), "\(problem)")
        #expect(!problem.description.contains("a resolve call outside any factory"), "\(problem)")
    }

    // MARK: Main-actor registrations

    @Test func aMainActorRegistrationOffTheMainActorIsAWarningAndIsNotBuilt() throws {
        let container = DIContainer()
        let line = #line + 1
        container.register(ProfileScreenModel.self, mainActorFactory: { _ in ProfileScreenModel(title: "profile") })
        container.register(Widget.self) { Widget() }

        let report = container.validationReport()

        let problem = try #require(report.untimedProblems.first, "\(report)")
        #expect(report.untimedProblems.count == 1)
        #expect(problem.kind == .notBuilt)
        #expect(problem.severity == .warning)
        #expect(problem.location == registeredAt(line))
        #expect(report.checkedCount == 1)
        #expect(report.isValid)
    }

    @Test @MainActor func aMainActorRegistrationIsBuiltOnTheMainActor() {
        let container = DIContainer()
        let made = Counter()
        container.register(
            ProfileScreenModel.self,
            mainActorFactory: { _ in
                made.increment()
                return ProfileScreenModel(title: "profile")
            }
        )

        let report = container.validationReport()

        #expect(report.untimedProblems.isEmpty, "\(report)")
        #expect(report.checkedCount == 1)
        #expect(made.value == 1)
    }

    @Test @MainActor func aPlainFactoryThatNeedsAMainActorServiceIsAWarningAndAnErrorWhenEager() throws {
        let container = DIContainer()
        container.register(ProfileScreenModel.self, mainActorFactory: { _ in ProfileScreenModel(title: "profile") })
            .scope(.singleton)
        let line = #line + 1
        container.register(ProfileFormatter.self) { r in ProfileFormatter(model: try r.resolve()) }

        let report = container.validationReport()

        let problem = try #require(report.untimedProblems.first { $0.service == "ProfileFormatter" }, "\(report)")
        #expect(problem.severity == .warning)
        #expect(problem.location == registeredAt(line))
        #expect(problem.message.contains("it can be resolved only from the main actor"), "\(problem)")
        #expect(report.isValid)

        container.register(ProfileFormatter.self) { r in ProfileFormatter(model: try r.resolve()) }
            .scope(.singleton).eager()
        let eager = container.validationReport()

        #expect(!eager.isValid, "warmUp() would build it off the main actor: \(eager)")
        #expect(eager.description.contains("warmUp() builds synchronous factories off the main actor"), "\(eager)")
    }

    @Test @MainActor func aPlainFactoryReachingAMainActorServiceThroughImplementsIsFlaggedToo() throws {
        let container = DIContainer()
        container.register(ProfileScreenModel.self, mainActorFactory: { _ in ProfileScreenModel(title: "profile") })
            .scope(.singleton)
            .implements(ProfileTitled.self)
        container.register(Widget.self) { r in
            _ = try r.resolve(ProfileTitled.self)
            return Widget()
        }

        let report = container.validationReport()

        let problem = try #require(report.untimedProblems.first { $0.service == "Widget" }, "\(report)")
        #expect(problem.severity == .warning)
        #expect(problem.message.contains("it can be resolved only from the main actor"), "\(problem)")
    }

    @Test @MainActor func aLazyPropertyOfAMainActorServiceInAnObjectThatIsNotIsAWarning() throws {
        let container = lazyProfileContainer
        container.register(ProfileScreenModel.self, mainActorFactory: { _ in ProfileScreenModel(title: "profile") })
            .scope(.singleton)
        let line = #line + 1
        container.register(LazyProfileHolder.self) { LazyProfileHolder() }.scope(.singleton)

        let report = container.validationReport()

        let problem = try #require(report.untimedProblems.first { $0.service == "LazyProfileHolder" }, "\(report)")
        #expect(problem.severity == .warning)
        #expect(problem.location == registeredAt(line))
        #expect(problem.message.contains("has a @LazyInjected property of ProfileScreenModel"), "\(problem)")
        #expect(report.isValid)
    }

    @Test func offTheMainActorAMainActorRegistrationAndItsForwardAreOneWarning() async throws {
        let report = await Task.detached {
            let container = DIContainer()
            container.register(ProfileScreenModel.self, mainActorFactory: { _ in ProfileScreenModel(title: "profile") })
                .scope(.singleton)
                .implements(ProfileTitled.self)
            return container.validationReport()
        }
        .value

        let problem = try #require(report.untimedProblems.first, "\(report)")
        #expect(report.untimedProblems.count == 1, "\(report)")
        #expect(problem.kind == .notBuilt, "\(problem)")
        #expect(!problem.description.contains("resolved from another thread"), "\(problem)")
        #expect(problem.description.contains("in a test, mark the test @MainActor"), "\(problem)")
        #expect(problem.description.contains("expectValidAsync or assertValidAsync in a test"), "\(problem)")
    }

    @Test @MainActor func aMainActorRegistrationAskingForAnotherIsNotFlagged() {
        let container = DIContainer()
        container.register(ProfileScreenModel.self, mainActorFactory: { _ in ProfileScreenModel(title: "profile") })
            .scope(.singleton)
        container.register(
            ProfileFormatter.self,
            mainActorFactory: { r in ProfileFormatter(model: try r.resolve()) }
        )

        let report = container.validationReport()

        #expect(report.untimedProblems.isEmpty, "\(report)")
    }

    // MARK: Slow factories

    @Test func aFactorySlowerThan50MillisecondsIsAWarningWithItsTime() throws {
        let container = DIContainer()
        let slowLine = #line + 1
        container.register(Logger.self) {
            sleepLikeASlowFactory()
            return Logger(tag: "slow")
        }
        container.register(Widget.self) { Widget() }

        let report = container.validationReport()

        let problem = try onlyProblem(ofKind: .slowFactory, in: report)
        #expect(problem.severity == .warning)
        #expect(problem.service == "Logger")
        #expect(problem.location == registeredAt(slowLine))
        #expect(problem.message.contains(" ms"), "\(problem)")
        #expect(report.isValid)
        try container.validate()
    }

    @Test func aFastFactoryIsNotFlaggedAsSlow() {
        let container = DIContainer()
        container.register(Widget.self) { Widget() }
        container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }

        let report = container.validationReport()

        #expect(report.problems(ofKind: .slowFactory).isEmpty, "\(report)")
    }

    @Test func onlyTheSlowFactoryItselfIsFlaggedNotTheOnesWaitingForIt() throws {
        let container = DIContainer()
        container.register(Widget.self) {
            sleepLikeASlowFactory()
            return Widget()
        }
        container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }

        let report = container.validationReport()

        let slow = report.problems(ofKind: .slowFactory)
        #expect(slow.map(\.service) == ["Widget"], "\(report)")
    }

    @Test func aSlowResolvePropertiesClosureIsNamedInTheWarning() throws {
        let container = DIContainer()
        container.register(Widget.self) { Widget() }.resolveProperties { _, _ in sleepLikeASlowFactory() }

        let report = container.validationReport()

        let problem = try onlyProblem(ofKind: .slowFactory, in: report)
        #expect(problem.message.contains("Widget's factory and resolveProperties closure took"), "\(problem)")
    }

    @Test func aBuildThatFailedIsNeitherSlowNorAmongTheSlowestRegistrations() throws {
        struct Unavailable: Error {}
        let container = DIContainer()
        container.register(Logger.self) { () throws -> Logger in
            sleepLikeASlowFactory()
            throw Unavailable()
        }
        container.register(Widget.self) { Widget() }

        let report = container.validationReport()

        #expect(report.errors.count == 1, "\(report)")
        #expect(report.problems(ofKind: .slowFactory).isEmpty, "\(report)")
        #expect(!report.buildTimes.contains { $0.service == "Logger" }, "\(report)")
    }

    // MARK: All at once

    @Test func everyProblemIsReportedInOnePass() throws {
        let container = DIContainer()
        let reporterLine = #line + 1
        container.register(Reporter.self) { r in Reporter(logger: try r.resolve()) }
        container.register(CycleA.self) { r in
            _ = try r.resolve(CycleB.self)
            return CycleA()
        }
        container.register(CycleB.self) { r in
            _ = try r.resolve(CycleA.self)
            return CycleB()
        }
        let throwingLine = #line + 1
        container.register(Widget.self) { () throws -> Widget in throw FixtureError(text: "widget factory broke") }
        container.register(Point.self) { Point(x: 0, y: 0) }

        let error = try #require(throws: ValidationError.self) { try container.validate() }

        let report = error.report
        #expect(report.untimedProblems.count == 3, "\(report)")
        #expect(Set(report.untimedProblems.map(\.kind)) == [.missingRegistration, .cycle, .factoryThrew], "\(report)")
        #expect(report.untimedProblems.allSatisfy { $0.severity == .error })
        #expect(report.problems(ofKind: .missingRegistration).first?.location == registeredAt(reporterLine))
        #expect(report.problems(ofKind: .factoryThrew).first?.location == registeredAt(throwingLine))
        #expect(report.problems(ofKind: .factoryThrew).first?.message.contains("widget factory broke") == true)
        #expect(report.checkedCount == 5)
    }

    // MARK: What validate() throws

    @Test func validateThrowsAValidationErrorCarryingTheReport() throws {
        let container = DIContainer()
        container.register(Reporter.self) { r in Reporter(logger: try r.resolve()) }
        container.register(Widget.self) { () throws -> Widget in throw FixtureError(text: "broken") }
        container.register(Gadget.self) { (_: DIResolver, widget: Widget) in Gadget(widget: widget) }

        let report = container.validationReport()
        let error = try #require(throws: ValidationError.self) { try container.validate() }

        #expect(error.report.untimedProblems.map(\.description) == report.untimedProblems.map(\.description))
        #expect(error.report.checkedCount == report.checkedCount)
        #expect(error.report.isValid == false)
        #expect(error.description.contains(report.untimedProblems[0].description), "\(error)")
    }

    @Test func validateDoesNotThrowForWarningsAlone() throws {
        let container = DIContainer()
        container.register(Gadget.self) { (_: DIResolver, widget: Widget) in Gadget(widget: widget) }
        container.register(Logger.self) { Logger(tag: "session") }.scope(.session)
        container.register(Reporter.self) { r in Reporter(logger: try r.resolve()) }.scope(.singleton)

        let report = container.validationReport()

        #expect(Set(report.untimedProblems.map(\.kind)) == [.notBuilt, .captiveDependency], "\(report)")
        #expect(report.untimedProblems.allSatisfy { $0.severity == .warning }, "\(report)")
        #expect(report.isValid)
        try container.validate()
    }

    // MARK: What is counted

    @Test func checkedCountCountsEveryRegistrationTriedButNotTheSkippedOnes() {
        let container = DIContainer()
        container.register(Widget.self) { Widget() }
        container.register(Logger.self) { () throws -> Logger in throw FixtureError(text: "no logger") }
        container.register(Reporter.self) { r in Reporter(logger: try r.resolve()) }
        container.register(Gadget.self) { (_: DIResolver, widget: Widget) in Gadget(widget: widget) }
        container.register(Point.self) { (_: DIResolver, x: Int) in Point(x: x, y: 0) }.validationArgument(3)

        let report = container.validationReport()

        #expect(report.checkedCount == 4, "\(report)")
        #expect(report.problems(ofKind: .notBuilt).count == 1)
    }

    @Test func implementsForwardsAreBuiltToo() {
        let container = DIContainer()
        let made = Counter()
        container.register(EnglishGreeter.self) {
            made.increment()
            return EnglishGreeter()
        }
        .implements(Greeter.self)
        .implements(Greeter.self, name: .live)

        let report = container.validationReport()

        #expect(report.untimedProblems.isEmpty, "\(report)")
        #expect(report.checkedCount == 3)
        // One build per registration per run: the forwards resolve the instance validation already built, and each
        // is checked, as its edge to the registration shows.
        #expect(made.value == 1)
        #expect(report.dot().split(separator: "\n").filter { $0.contains(" -> ") }.count == 2, "\(report.dot())")
    }

    // MARK: Ancestors

    @Test func validatingAChildBuildsItsAncestorsRegistrationsAndItsOwn() {
        let root = DIContainer()
        let parent = root.makeChild()
        let child = parent.makeChild()
        let rootMade = Counter()
        let parentMade = Counter()
        let childMade = Counter()
        root.register(Database.self) {
            rootMade.increment()
            return Database()
        }
        parent.register(Logger.self) {
            parentMade.increment()
            return Logger(tag: "parent")
        }
        child.register(Widget.self) { Widget(serial: childMade.increment()) }

        let report = child.validationReport()

        #expect(report.untimedProblems.isEmpty, "\(report)")
        #expect(report.checkedCount == 3)
        #expect(rootMade.value == 1)
        #expect(parentMade.value == 1)
        #expect(childMade.value == 1)
    }

    @Test func aProblemInAnAncestorIsReportedWhenValidatingAChild() throws {
        let parent = DIContainer()
        let line = #line + 1
        parent.register(Widget.self) { () throws -> Widget in throw FixtureError(text: "parent's widget") }
        let child = parent.makeChild()
        child.register(Logger.self) { Logger(tag: "child") }

        let report = child.validationReport()

        let problem = try #require(report.problems(ofKind: .factoryThrew).first, "\(report)")
        #expect(problem.location == registeredAt(line))
        #expect(throws: ValidationError.self) { try child.validate() }
    }

    @Test func validatingAParentDoesNotBuildItsChildrensRegistrations() {
        let parent = DIContainer()
        parent.register(Logger.self) { Logger(tag: "parent") }
        let child = parent.makeChild()
        let childMade = Counter()
        child.register(Widget.self) { Widget(serial: childMade.increment()) }
        child.register(Reporter.self) { r in Reporter(logger: try r.resolve(name: .live)) }

        let report = parent.validationReport()

        #expect(report.untimedProblems.isEmpty, "\(report)")
        #expect(report.checkedCount == 1)
        #expect(childMade.value == 0)
    }

    @Test func aParentsRegistrationIsBuiltAsAResolveThroughTheChildWould() {
        let parent = DIContainer()
        parent.register(Reporter.self) { r in Reporter(logger: try r.resolve()) }
        let child = parent.makeChild()
        child.register(Logger.self) { Logger(tag: "child") }

        let childReport = child.validationReport()
        let parentReport = parent.validationReport()

        #expect(childReport.untimedProblems.isEmpty, "a .graph Reporter resolved through the child gets its Logger")
        #expect(parentReport.problems(ofKind: .missingRegistration).map(\.service) == ["Logger"], "\(parentReport)")
    }

    @Test func aParentsSingletonIsBuiltFromTheParentEvenWhenValidatingAChild() throws {
        let parent = DIContainer()
        let line = #line + 1
        parent.register(Reporter.self) { r in Reporter(logger: try r.resolve()) }.scope(.singleton)
        let child = parent.makeChild()
        child.register(Logger.self) { Logger(tag: "child") }

        let report = child.validationReport()

        let problem = try #require(report.problems(ofKind: .missingRegistration).first, "\(report)")
        #expect(problem.service == "Logger")
        #expect(problem.location == registeredAt(line))
    }

    // MARK: The throwaway scope

    @Test(arguments: [Scope.singleton, .cached, .session])
    func anInstanceValidationBuiltIsBuiltAgainOnTheFirstResolve(scope: Scope) {
        let container = DIContainer()
        let made = Counter()
        let builtByValidation = Collector<Widget>()
        container.register(Widget.self) {
            let widget = Widget(serial: made.increment())
            builtByValidation.append(widget)
            return widget
        }
        .scope(scope)

        let report = container.validationReport()
        let validationBuilds = made.value
        let validated = builtByValidation.values

        #expect(report.untimedProblems.isEmpty, "\(report)")
        #expect(validationBuilds >= 1, "validation did not build the \(scope) registration")
        let first = container.resolve(Widget.self)
        #expect(made.value == validationBuilds + 1, "the first resolve after validation did not build")
        #expect(!validated.contains { $0 === first })
        #expect(container.resolve(Widget.self) === first)
        #expect(made.value == validationBuilds + 1)
    }

    @Test func aDependentSingletonGetsNoInstanceValidationBuilt() {
        let container = DIContainer()
        let builtByValidation = Collector<Widget>()
        container.register(Widget.self) {
            let widget = Widget()
            builtByValidation.append(widget)
            return widget
        }
        .scope(.singleton)
        container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }.scope(.singleton)

        _ = container.validationReport()
        let validated = builtByValidation.values

        let gadget = container.resolve(Gadget.self)
        #expect(!validated.contains { $0 === gadget.widget })
        #expect(container.resolve(Widget.self) === gadget.widget)
    }

    @Test func nothingValidationBuiltOutlivesIt() {
        let container = DIContainer()
        let built = WeakReferences()
        container.register(Widget.self) {
            let widget = Widget()
            built.append(widget)
            return widget
        }
        .scope(.singleton)
        container.register(Logger.self) {
            let logger = Logger(tag: "cached")
            built.append(logger)
            return logger
        }
        .scope(.cached)
        container.register(Gadget.self) { r in
            let gadget = Gadget(widget: try r.resolve())
            built.append(gadget)
            return gadget
        }
        .scope(.session)

        let report = container.validationReport()

        #expect(report.untimedProblems.isEmpty, "\(report)")
        #expect(built.count >= 3)
        #expect(built.alive == 0, "instances built by validation are still alive after it")
    }

    @Test(arguments: [Scope.singleton, .cached, .session])
    func anInstanceResolvedBeforeValidationIsTheSameAfterIt(scope: Scope) {
        let container = DIContainer()
        let made = Counter()
        container.register(Widget.self) { Widget(serial: made.increment()) }.scope(scope)
        let before = container.resolve(Widget.self)

        let report = container.validationReport()

        #expect(report.untimedProblems.isEmpty, "\(report)")
        #expect(made.value >= 2, "validation did not build a \(scope) instance of its own")
        let builds = made.value
        #expect(container.resolve(Widget.self) === before)
        #expect(made.value == builds)
    }

    @Test func aChildsScopedInstanceIsTheSameAfterValidatingTheChild() {
        let parent = DIContainer()
        let made = Counter()
        let builtByValidation = Collector<Widget>()
        let validating = Cell<Bool>(false)
        parent.register(Widget.self) {
            let widget = Widget(serial: made.increment())
            if validating.value == true {
                builtByValidation.append(widget)
            }
            return widget
        }
        .scope(.scoped)
        let child = parent.makeChild()
        let before = child.resolve(Widget.self)
        let sibling = parent.makeChild()

        validating.value = true
        let childReport = child.validationReport()
        let siblingReport = sibling.validationReport()
        validating.value = false
        let validated = builtByValidation.values

        #expect(childReport.untimedProblems.isEmpty && siblingReport.untimedProblems.isEmpty)
        #expect(validated.count >= 2, "validation did not build the .scoped registration")
        #expect(child.resolve(Widget.self) === before)
        let builds = made.value
        let fresh = sibling.resolve(Widget.self)
        #expect(made.value == builds + 1, "the sibling's first resolve after validation did not build")
        #expect(!validated.contains { $0 === fresh })
        #expect(fresh !== before)
    }

    @Test func validatingAChildLeavesItsParentsCachesEmpty() {
        let parent = DIContainer()
        let made = Counter()
        parent.register(Widget.self) { Widget(serial: made.increment()) }.scope(.singleton)
        let child = parent.makeChild()

        _ = child.validationReport()
        let validationBuilds = made.value

        #expect(validationBuilds >= 1)
        _ = parent.resolve(Widget.self)
        #expect(made.value == validationBuilds + 1)
    }
}
