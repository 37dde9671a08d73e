import Inject
import Testing
import XCTest

/// Fails the current XCTest with the whole validation report when `container` has a validation error or a
/// registration validation could not build.
///
/// ```swift
/// func testWiringIsValid() {
///     assertValid(AppComposition.makeContainer(), building: { HomeViewController() })
/// }
/// ```
///
/// It runs `DIContainer.validationReport(building:)`: every registration of the container and its ancestors, and
/// each root, is built in a throwaway scope. Warnings do not fail the test, except that a registration validation
/// could not build fails it, since nothing it needs was checked: an async factory (use
/// ``assertValidAsync(_:building:file:line:)``), a `mainActorFactory` one off the main actor, an argument
/// registration without `.validationArgument(...)`.
///
/// - Parameters:
///   - container: The container to validate.
///   - roots: Objects nobody registers (screens, view controllers with `@Injected` properties) to build too, so
///     that their wrappers' dependencies are checked.
///   - file: The file the failure is reported in; the caller's by default.
///   - line: The line the failure is reported at; the caller's by default.
public func assertValid(
    _ container: DIContainer,
    building roots: (() -> Any)...,
    file: StaticString = #filePath,
    line: UInt = #line
) {
    let report = container.validationReport(roots: roots)
    if let failure = validationFailure(of: report, asyncForm: "assertValidAsync") {
        XCTFail(failure, file: file, line: line)
    }
}

/// Records a Swift Testing issue with the whole validation report when `container` has a validation error, or a
/// registration validation could not build: the Swift Testing counterpart of ``assertValid(_:building:file:line:)``.
///
/// ```swift
/// @Test func wiringIsValid() {
///     expectValid(AppComposition.makeContainer(), building: { HomeScreen() })
/// }
/// ```
///
/// - Parameters:
///   - container: The container to validate.
///   - roots: Objects nobody registers to build too, so that their wrappers' dependencies are checked.
///   - sourceLocation: Where the issue is reported; the caller's by default.
/// - Returns: The report, for further checks (on its warnings, say).
@discardableResult
public func expectValid(
    _ container: DIContainer,
    building roots: (() -> Any)...,
    sourceLocation: SourceLocation = #_sourceLocation
) -> ValidationReport {
    let report = container.validationReport(roots: roots)
    return expectValid(report, asyncForm: "expectValidAsync", sourceLocation: sourceLocation) { comment, location in
        Issue.record(comment, sourceLocation: location)
    }
}

/// Records `report` through `record` when it is not valid: what ``expectValid(_:building:sourceLocation:)`` does,
/// with the recording passed in so that this package's tests can read it without recording a real issue. `package`
/// access: a test hook, not public API.
///
/// - Parameter asyncForm: The async function to suggest for what a synchronous validation cannot build, or `nil` when
///   `report` comes from an async one.
@discardableResult
package func expectValid(
    _ report: ValidationReport,
    asyncForm: String?,
    sourceLocation: SourceLocation,
    record: (Comment, SourceLocation) -> Void
) -> ValidationReport {
    if let failure = validationFailure(of: report, asyncForm: asyncForm) {
        record(Comment(rawValue: failure), sourceLocation)
    }
    return report
}

/// Why a test that validates fails on `report`: its errors, or the registrations validation could not build, whose
/// wiring it then did not check at all (a test that passes on them would vouch for what nobody looked at); `nil`
/// when the test passes. Other warnings do not fail it.
///
/// - Parameter asyncForm: The async function to suggest for what a synchronous validation cannot build (async
///   factories, and `mainActorFactory` registrations off the main actor), or `nil` when `report` comes from one.
package func validationFailure(of report: ValidationReport, asyncForm: String?) -> String? {
    if !report.isValid {
        return "the container is not valid: \(report)"
    }
    var unbuilt: [String] = []
    for problem in report.problems where problem.kind == .notBuilt && !unbuilt.contains(problem.service) {
        unbuilt.append(problem.service)
    }
    guard !unbuilt.isEmpty else { return nil }
    let services = unbuilt.joined(separator: ", ")
    let count = unbuilt.count == 1 ? "1 registration" : "\(unbuilt.count) registrations"
    let async = asyncForm.map { " (\($0) builds async factories, and main-actor ones from any thread)" } ?? ""
    return """
        validation could not build \(count) (\(services)), so nothing \(unbuilt.count == 1 ? "it needs" : "they need") \
        was checked: fix each "not built" warning as it says\(async). \(report)
        """
}

/// Fails the current XCTest with the whole validation report when `container` has a validation error or a
/// registration validation could not build, building async factories too: ``assertValid(_:building:file:line:)`` for a container with async registrations.
///
/// ```swift
/// func testWiringIsValid() async {
///     await assertValidAsync(AppComposition.makeContainer())
/// }
/// ```
///
/// It runs `DIContainer.validationReportAsync()`, which builds `mainActorFactory` registrations on the main actor
/// too. Warnings do not fail the test, except that an argument registration validation could not build (it has no
/// `.validationArgument(...)`) fails it, since nothing it needs was checked.
///
/// - Parameters:
///   - container: The container to validate.
///   - roots: Objects nobody registers to build too, each made on the main actor (where an app makes its screens),
///     so that their wrappers' dependencies are checked.
///   - file: The file the failure is reported in; the caller's by default.
///   - line: The line the failure is reported at; the caller's by default.
public func assertValidAsync(
    _ container: DIContainer,
    building roots: (@MainActor () -> Any)...,
    file: StaticString = #filePath,
    line: UInt = #line
) async {
    let report = await container.validationReportAsync(roots: roots)
    if let failure = validationFailure(of: report, asyncForm: nil) {
        XCTFail(failure, file: file, line: line)
    }
}

/// Records a Swift Testing issue with the whole validation report when `container` has a validation error or a
/// registration validation could not build, building async factories too: ``expectValid(_:building:sourceLocation:)`` for a container with async registrations.
///
/// ```swift
/// @Test func wiringIsValid() async {
///     await expectValidAsync(AppComposition.makeContainer())
/// }
/// ```
///
/// - Parameters:
///   - container: The container to validate.
///   - roots: Objects nobody registers to build too, each made on the main actor (where an app makes its screens),
///     so that their wrappers' dependencies are checked.
///   - sourceLocation: Where the issue is reported; the caller's by default.
/// - Returns: The report, for further checks.
@discardableResult
public func expectValidAsync(
    _ container: DIContainer,
    building roots: (@MainActor () -> Any)...,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> ValidationReport {
    let report = await container.validationReportAsync(roots: roots)
    return expectValid(report, asyncForm: nil, sourceLocation: sourceLocation) { comment, location in
        Issue.record(comment, sourceLocation: location)
    }
}
