/// Thrown by ``DIContainer/validate()`` when the report has at least one problem of severity
/// ``ValidationProblem/Severity/error``; its description is the whole report.
public struct ValidationError: Error, CustomStringConvertible {
    /// Everything validation found, warnings included.
    public let report: ValidationReport

    /// The whole report, prefixed with "validation failed".
    public var description: String {
        "Inject: validation failed: " + report.description
    }
}
