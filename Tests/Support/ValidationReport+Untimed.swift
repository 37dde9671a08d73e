import Inject

extension ValidationReport {
    /// The problems, without slow-factory warnings: whether a factory's own time passes 50 ms depends on how busy the
    /// machine is (a CI run under the thread sanitizer, next to other builds), and unit tests do not assert timing.
    package var untimedProblems: [ValidationProblem] {
        problems.filter { $0.kind != .slowFactory }
    }
}
