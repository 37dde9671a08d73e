import Inject
import Testing
import XCTest

/// Fails the current XCTest with the whole validation report when `container` has a validation error.
///
/// ```swift
/// func testWiringIsValid() {
///     assertValid(AppComposition.makeContainer(), building: { HomeViewController() })
/// }
/// ```
///
/// It runs `DIContainer.validationReport(building:)`: every registration of the container and its ancestors, and
/// each root, is built in a throwaway scope. Warnings alone do not fail the test.
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
    if !report.isValid {
        XCTFail("the container is not valid: \(report)", file: file, line: line)
    }
}

/// Records a Swift Testing issue with the whole validation report when `container` has a validation error: the
/// Swift Testing counterpart of ``assertValid(_:building:file:line:)``.
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
    expectValid(container.validationReport(roots: roots), sourceLocation: sourceLocation) { comment, location in
        Issue.record(comment, sourceLocation: location)
    }
}

/// Records `report` through `record` when it is not valid: what ``expectValid(_:building:sourceLocation:)`` does,
/// with the recording passed in so that this package's tests can read it without recording a real issue. `package`
/// access: a test hook, not public API.
package func expectValid(
    _ report: ValidationReport,
    sourceLocation: SourceLocation,
    record: (Comment, SourceLocation) -> Void
) -> ValidationReport {
    if !report.isValid {
        record("the container is not valid: \(report)", sourceLocation)
    }
    return report
}

/// Fails the current XCTest with the whole validation report when `container` has a validation error, building
/// async factories too: ``assertValid(_:building:file:line:)`` for a container with async registrations.
///
/// ```swift
/// func testWiringIsValid() async {
///     await assertValidAsync(AppComposition.makeContainer())
/// }
/// ```
///
/// It runs `DIContainer.validationReportAsync()`. Warnings alone do not fail the test.
///
/// - Parameters:
///   - container: The container to validate.
///   - roots: Objects nobody registers to build too, so that their wrappers' dependencies are checked.
///   - file: The file the failure is reported in; the caller's by default.
///   - line: The line the failure is reported at; the caller's by default.
public func assertValidAsync(
    _ container: DIContainer,
    building roots: (() -> Any)...,
    file: StaticString = #filePath,
    line: UInt = #line
) async {
    let report = await container.validationReportAsync(roots: roots)
    if !report.isValid {
        XCTFail("the container is not valid: \(report)", file: file, line: line)
    }
}

/// Records a Swift Testing issue with the whole validation report when `container` has a validation error, building
/// async factories too: ``expectValid(_:building:sourceLocation:)`` for a container with async registrations.
///
/// ```swift
/// @Test func wiringIsValid() async {
///     await expectValidAsync(AppComposition.makeContainer())
/// }
/// ```
///
/// - Parameters:
///   - container: The container to validate.
///   - roots: Objects nobody registers to build too, so that their wrappers' dependencies are checked.
///   - sourceLocation: Where the issue is reported; the caller's by default.
/// - Returns: The report, for further checks.
@discardableResult
public func expectValidAsync(
    _ container: DIContainer,
    building roots: (() -> Any)...,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> ValidationReport {
    let report = await container.validationReportAsync(roots: roots)
    return expectValid(report, sourceLocation: sourceLocation) { comment, location in
        Issue.record(comment, sourceLocation: location)
    }
}
