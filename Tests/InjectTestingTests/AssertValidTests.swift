import Foundation
import InjectTestSupport
import InjectTesting
import Testing
import XCTest

/// A service whose registration always throws.
private final class Exploding: Sendable {}

/// The service of the one deliberately broken container whose issue the run shows as a known issue.
private final class DeliberatelyBroken: Sendable {}

/// What a widget is forwarded as, with `implements`.
private protocol WidgetMaking: Sendable {}
extension Widget: WidgetMaking {}

/// A screen made with `init()` whose wrapper needs a service nothing registers in `DIContainer.shared`.
private final class ScreenNeedingAnUnregisteredService {
    @Injected var exploding: Exploding
}

/// Two errors: a `Gadget` that needs an unregistered `Widget`, and a factory that throws.
private func makeInvalidContainer() -> DIContainer {
    let container = DIContainer()
    container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }
    container.register(Exploding.self) { () throws -> Exploding in throw FixtureError(text: "the factory exploded") }
    return container
}

private func makeValidContainer() -> DIContainer {
    let container = DIContainer()
    container.register(Widget.self) { Widget(serial: 0) }
    container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }
    return container
}

/// Only a warning, and everything built: a singleton that holds a `.cached` service (a captive dependency).
private func makeContainerWithOnlyWarnings() -> DIContainer {
    let container = DIContainer()
    container.register(Widget.self) { Widget(serial: 0) }.scope(.cached)
    container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }.scope(.singleton)
    return container
}

/// Valid as far as validation can tell, with one registration it cannot build (and so does not check): an argument
/// registration without a sample argument, whose factory needs a service nothing registers.
private func makeContainerWithAnUnbuiltArgumentRegistration() -> DIContainer {
    let container = DIContainer()
    container.register(Gadget.self) { (r: DIResolver, _: Int) in Gadget(widget: try r.resolve()) }
    return container
}

/// The same with an async factory, which only the async forms build.
private func makeContainerWithAnAsyncFactory() -> DIContainer {
    let container = DIContainer()
    container.register(Gadget.self) { r in
        await Task.yield()
        return Gadget(widget: try r.resolve())
    }
    .scope(.singleton)
    return container
}

/// The same with a `mainActorFactory` registration, which a synchronous validation builds only on the main actor.
private func makeContainerWithAMainActorFactory() -> DIContainer {
    let container = DIContainer()
    container.register(mainActorFactory: { r in Gadget(widget: try r.resolve()) })
    return container
}

/// The descriptions of the report's errors, which every failure must list (and which, unlike the timings of some
/// warnings, come out the same every time the container is validated).
private func errorDescriptions(of container: DIContainer) -> [String] {
    container.validationReport().problems.filter { $0.severity == .error }.map(\.description)
}

// MARK: - XCTest: assertValid

/// `assertValid` on an invalid container: the one test of this class captures the failure it records instead of
/// failing, to check its text.
final class AssertValidFailureTests: XCTestCase {
    private struct Failure {
        let description: String
        let file: String
        let line: Int
    }

    private var capturing = false
    private var captured: [Failure] = []

    /// The failures `body` records; failures outside `body` fail the test as usual.
    private func failures(of body: () -> Void) -> [Failure] {
        captured = []
        capturing = true
        body()
        capturing = false
        return captured
    }

    #if os(Linux)
    override func recordFailure(
        withDescription description: String,
        inFile filePath: String,
        atLine lineNumber: Int,
        expected: Bool
    ) {
        if capturing {
            captured.append(Failure(description: description, file: filePath, line: lineNumber))
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }
    #else
    override func record(_ issue: XCTIssue) {
        if capturing {
            let location = issue.sourceCodeContext.location
            captured.append(
                Failure(
                    description: issue.compactDescription,
                    file: location?.fileURL.path ?? "",
                    line: location?.lineNumber ?? 0
                )
            )
        } else {
            super.record(issue)
        }
    }
    #endif

    func testAssertValidFailsOnAnInvalidContainerWithTheWholeReport() {
        let container = makeInvalidContainer()
        let errors = errorDescriptions(of: container)
        XCTAssertEqual(errors.count, 2, "the fixture should have two errors: \(errors)")
        var callLine = 0

        let failures = failures {
            callLine = #line
            assertValid(container)
        }

        XCTAssertEqual(failures.count, 1, "assertValid must record exactly one failure: \(failures.map(\.description))")
        guard let failure = failures.first else { return }
        for error in errors {
            XCTAssertTrue(failure.description.contains(error), "the failure does not list \(error): \(failure)")
        }
        XCTAssertTrue(failure.description.contains("Widget"), "the failure does not name the missing service")
        XCTAssertTrue(failure.description.contains("the factory exploded"), "the failure does not give the error")
        XCTAssertEqual(failure.line, callLine + 1, "the failure is not reported at the call")
        XCTAssertTrue(failure.file.hasSuffix("AssertValidTests.swift"), "the failure is reported in \(failure.file)")
    }

    func testAssertValidBuildsTheRootsItIsGiven() {
        let failures = failures {
            assertValid(makeValidContainer(), building: { ScreenNeedingAnUnregisteredService() })
        }

        XCTAssertEqual(failures.count, 1, "\(failures.map(\.description))")
        XCTAssertTrue(failures.first?.description.contains("@Injected Exploding at") == true)
    }

    func testAssertValidFailsWhenARegistrationCouldNotBeBuilt() {
        let failures = failures {
            assertValid(makeContainerWithAnAsyncFactory())
        }

        XCTAssertEqual(failures.count, 1, "\(failures.map(\.description))")
        let text = failures.first?.description ?? ""
        XCTAssertTrue(text.contains("validation could not build 1 registration (Gadget)"), text)
        XCTAssertTrue(text.contains("assertValidAsync"), text)
    }

    func testAssertValidAsyncBuildsTheRootsItIsGiven() async {
        captured = []
        capturing = true
        await assertValidAsync(makeValidContainer(), building: { ScreenNeedingAnUnregisteredService() })
        capturing = false

        XCTAssertEqual(captured.count, 1, "\(captured.map(\.description))")
        XCTAssertTrue(captured.first?.description.contains("@Injected Exploding at") == true)
    }
}

/// `assertValid` on containers it must pass: a failure here fails the test.
final class AssertValidTests: XCTestCase {
    func testAssertValidPassesOnAValidContainer() {
        assertValid(makeValidContainer())
    }

    func testAssertValidPassesWhenThereAreOnlyWarnings() {
        let container = makeContainerWithOnlyWarnings()
        let report = container.validationReport()
        XCTAssertTrue(report.isValid)
        XCTAssertTrue(report.untimedProblems.contains { $0.severity == .warning }, "the fixture should have a warning")

        assertValid(container)
    }
}

// MARK: - Swift Testing: expectValid

struct ExpectValidTests {
    @Test func expectValidRecordsAnIssueWithTheWholeReportOnAnInvalidContainer() {
        let container = makeInvalidContainer()
        let errors = errorDescriptions(of: container)
        #expect(errors.count == 2, "the fixture should have two errors: \(errors)")
        var recorded: [String] = []

        // Through the hook that expectValid records with, so that the run does not print the report as an issue.
        let returned = expectValid(
            container.validationReport(),
            asyncForm: "expectValidAsync",
            sourceLocation: #_sourceLocation
        ) { comment, _ in
            recorded.append(comment.rawValue)
        }

        #expect(recorded.count == 1, "expectValid must record exactly one issue: \(recorded)")
        let text = recorded.joined(separator: "\n")
        #expect(!errors.isEmpty && errors.allSatisfy { text.contains($0) }, "\(text)")
        #expect(text.contains("the factory exploded"))
        #expect(returned.isValid == false, "expectValid must return the report")
        #expect(returned.untimedProblems.count == errors.count)
    }

    @Test func expectValidRecordsTheIssueAtTheCallersLocation() {
        // The one real issue this suite records on purpose (a known issue in the run's output): it shows where
        // expectValid reports, which only a real recording can.
        let container = DIContainer()
        container.register(DeliberatelyBroken.self) { () throws -> DeliberatelyBroken in
            throw FixtureError(text: "deliberately broken: this known issue checks where expectValid reports")
        }
        let location = Cell<SourceLocation>()
        var callLine = 0

        withKnownIssue("expectValid reporting a deliberately broken container, to check the issue's location") {
            callLine = #line
            expectValid(container)
        } matching: { issue in
            location.value = issue.sourceLocation
            return true
        }

        #expect(location.value?.line == callLine + 1)
        #expect(location.value?.fileID == #fileID)
    }

    @Test func expectValidBuildsTheRootsItIsGiven() {
        let container = makeValidContainer()
        var recorded: [String] = []

        let report = expectValid(
            container.validationReport(building: { ScreenNeedingAnUnregisteredService() }),
            asyncForm: "expectValidAsync",
            sourceLocation: #_sourceLocation
        ) { comment, _ in recorded.append(comment.rawValue) }

        #expect(!report.isValid)
        #expect(recorded.joined().contains("@Injected Exploding at"), "\(recorded)")
        #expect(expectValid(container, building: { Widget(serial: 1) }).isValid)
    }

    @Test func expectValidAsyncBuildsTheRootsItIsGiven() async {
        let built = Counter()

        let report = await expectValidAsync(
            makeValidContainer(),
            building: {
                built.increment()
                return Widget(serial: 1)
            }
        )

        #expect(report.isValid)
        #expect(built.value == 1, "the root was not built")
    }

    @Test func expectValidPassesOnAValidContainerAndReturnsTheReport() {
        let report = expectValid(makeValidContainer())
        #expect(report.isValid)
        #expect(report.untimedProblems.isEmpty)
        #expect(report.checkedCount == 2)
    }

    @Test(arguments: [
        ("an async factory", makeContainerWithAnAsyncFactory),
        ("a main-actor factory off the main actor", makeContainerWithAMainActorFactory),
        ("an argument registration without a sample", makeContainerWithAnUnbuiltArgumentRegistration),
    ])
    func expectValidRecordsAnIssueWhenARegistrationCouldNotBeBuilt(
        _ what: String,
        _ makeContainer: @Sendable () -> DIContainer
    ) {
        let report = makeContainer().validationReport()
        #expect(report.isValid, "a registration that is not built has no error of its own: \(report)")
        var recorded: [String] = []

        expectValid(report, asyncForm: "expectValidAsync", sourceLocation: #_sourceLocation) { comment, _ in
            recorded.append(comment.rawValue)
        }

        #expect(recorded.count == 1, "\(what): \(recorded)")
        let text = recorded.joined()
        #expect(text.contains("validation could not build 1 registration (Gadget)"), "\(text)")
        #expect(text.contains("expectValidAsync builds async factories"), "\(text)")
        #expect(text.contains("not built"), "\(text)")
    }

    @Test func expectValidAsyncFindsWhatTheSynchronousFormCouldNotBuild() async {
        for makeContainer in [makeContainerWithAnAsyncFactory, makeContainerWithAMainActorFactory] {
            let report = await makeContainer().validationReportAsync()
            var recorded: [String] = []

            expectValid(report, asyncForm: nil, sourceLocation: #_sourceLocation) { comment, _ in
                recorded.append(comment.rawValue)
            }

            #expect(
                recorded.count == 1 && recorded.joined().contains("nothing is registered for Widget"),
                "\(recorded)"
            )
        }
    }

    @Test func expectValidAsyncRecordsAnIssueForAnArgumentRegistrationWithoutASample() async {
        let report = await makeContainerWithAnUnbuiltArgumentRegistration().validationReportAsync()
        var recorded: [String] = []

        expectValid(report, asyncForm: nil, sourceLocation: #_sourceLocation) { comment, _ in
            recorded.append(comment.rawValue)
        }

        #expect(recorded.count == 1, "\(recorded)")
        #expect(recorded.joined().contains(".validationArgument(...)"), "\(recorded)")
        #expect(!recorded.joined().contains("builds async factories"), "the async form has nothing better to suggest")
    }

    @Test func aParentsAsyncRegistrationThatTheChildRegistersAgainDoesNotFailTheChildsValidation() {
        // Nothing a resolve through the child does reaches the root's async Widget: the child's own is used.
        let root = DIContainer()
        root.register(Widget.self) { _ in
            await Task.yield()
            return Widget(serial: 1)
        }
        .scope(.singleton)
        let child = root.makeChild()
        child.register(Widget.self) { Widget(serial: 2) }.scope(.singleton)
        child.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }
        var recorded: [String] = []

        let report = expectValid(
            child.validationReport(),
            asyncForm: "expectValidAsync",
            sourceLocation: #_sourceLocation
        ) {
            comment,
            _ in recorded.append(comment.rawValue)
        }

        #expect(recorded.isEmpty, "\(recorded)")
        #expect(!report.problems.contains { $0.kind == .notBuilt }, "\(report)")
        // Validating the root itself still says its async registration was not built.
        #expect(root.validationReport().problems.contains { $0.kind == .notBuilt })
    }

    @Test func anImplementsForwardOfARegistrationThatCouldNotBeBuiltIsNotCountedOrWarnedAboutAgain() {
        let container = makeContainerWithAnAsyncFactory()
        container.register(Widget.self) { (_: DIResolver) async in Widget(serial: 1) }.scope(.singleton)
            .implements(WidgetMaking.self)
        var recorded: [String] = []

        let report = expectValid(
            container.validationReport(),
            asyncForm: "expectValidAsync",
            sourceLocation: #_sourceLocation
        ) {
            comment,
            _ in recorded.append(comment.rawValue)
        }

        #expect(report.problems.filter { $0.kind == .notBuilt }.count == 2, "one for Gadget, one for Widget: \(report)")
        #expect(report.checkedCount == 0, "\(report)")
        #expect(recorded.joined().contains("could not build 2 registrations (Gadget, Widget)"), "\(recorded)")
    }

    @Test func expectValidPassesWhenThereAreOnlyWarnings() {
        let report = expectValid(makeContainerWithOnlyWarnings())
        #expect(report.isValid)
        #expect(report.untimedProblems.contains { $0.severity == .warning }, "the fixture should have a warning")
    }
}
