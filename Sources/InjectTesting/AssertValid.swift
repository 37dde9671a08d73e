import Inject
import Testing
import XCTest

/// Fails the current XCTest with the whole validation report when `container` has a validation error.
///
/// ```swift
/// func testWiringIsValid() {
///     assertValid(AppComposition.makeContainer())
/// }
/// ```
///
/// It runs `DIContainer.validationReport()`: every registration of the container and its ancestors is
/// built in a throwaway scope. Warnings alone do not fail the test.
///
/// - Parameters:
///   - container: The container to validate.
///   - file: The file the failure is reported in; the caller's by default.
///   - line: The line the failure is reported at; the caller's by default.
public func assertValid(_ container: DIContainer, file: StaticString = #filePath, line: UInt = #line) {
    let report = container.validationReport()
    if !report.isValid {
        XCTFail("the container is not valid: \(report)", file: file, line: line)
    }
}

/// Records a Swift Testing issue with the whole validation report when `container` has a validation error: the
/// Swift Testing counterpart of ``assertValid(_:file:line:)``.
///
/// ```swift
/// @Test func wiringIsValid() {
///     expectValid(AppComposition.makeContainer())
/// }
/// ```
///
/// - Parameters:
///   - container: The container to validate.
///   - sourceLocation: Where the issue is reported; the caller's by default.
/// - Returns: The report, for further checks (on its warnings, say).
@discardableResult
public func expectValid(
    _ container: DIContainer,
    sourceLocation: SourceLocation = #_sourceLocation
) -> ValidationReport {
    let report = container.validationReport()
    if !report.isValid {
        Issue.record("the container is not valid: \(report)", sourceLocation: sourceLocation)
    }
    return report
}
