/// What ``DIContainer/validationReport()`` found: every problem at once, the registrations built and how long their
/// factories took, and the dependency graph it saw.
///
/// Its ``description`` is what a person reads at startup:
///
/// ```text
/// checked 12 registrations: 1 error, 1 warning
/// App/Composition.swift:14: error: nothing is registered for Logger.
///   ...
/// App/Session.swift:9: warning: captive dependency: SessionBridge (.singleton) holds SessionStore (.custom("session"))
///   ...
/// slowest registrations:
///   ImageCache  61.2 ms  App/Composition.swift:30
/// ```
public struct ValidationReport: CustomStringConvertible, Sendable {
    /// Every problem: errors first, then warnings, each group in the order validation found them.
    public let problems: [ValidationProblem]
    /// How many registrations validation built (or tried to): those it could not build are warnings instead.
    public let checkedCount: Int
    /// How long each registration's own factory took, slowest first: the factory alone, without the registrations
    /// it asked for.
    public let buildTimes: [BuildTime]
    let graph: DependencyGraph

    /// The time one registration's factory took during validation.
    public struct BuildTime: Sendable {
        /// The service, as in a path: `APIClient`, or `Store["live"]`.
        public let service: String
        /// The registration's `file:line`.
        public let location: String
        /// The factory's own time, in nanoseconds.
        public let nanoseconds: UInt64

        /// The time in milliseconds.
        public var milliseconds: Double { Double(nanoseconds) / 1_000_000 }
    }

    /// Whether no problem has severity ``ValidationProblem/Severity/error``; warnings alone leave a report valid.
    public var isValid: Bool {
        !problems.contains { $0.severity == .error }
    }

    /// The problems of severity ``ValidationProblem/Severity/error``.
    public var errors: [ValidationProblem] { problems.filter { $0.severity == .error } }

    /// The problems of severity ``ValidationProblem/Severity/warning``.
    public var warnings: [ValidationProblem] { problems.filter { $0.severity == .warning } }

    /// How many of the slowest registrations ``description`` lists.
    static let slowestListed = 5

    /// The summary line, each problem with its `file:line`, then the slowest registrations.
    public var description: String {
        let errorCount = errors.count
        let warningCount = warnings.count
        // The summary line's format is fixed, "checked N registrations: E errors, W warnings", so that tools can
        // read it; each noun agrees with its count ("1 error").
        var lines = [
            "checked \(Self.count(checkedCount, "registration")): \(Self.count(errorCount, "error")), "
                + Self.count(warningCount, "warning")
        ]
        lines += problems.map(\.description)
        // Factories that round to 0.0 ms say nothing about start-up, so they are not listed.
        let slowest = buildTimes.prefix(Self.slowestListed).filter { $0.nanoseconds >= 50_000 }
        if !slowest.isEmpty {
            lines.append("slowest registrations:")
            let serviceWidth = slowest.map(\.service.count).max() ?? 0
            let times = slowest.map { Self.milliseconds($0.nanoseconds) }
            let timeWidth = times.map(\.count).max() ?? 0
            for (time, text) in zip(slowest, times) {
                let service = time.service + String(repeating: " ", count: serviceWidth - time.service.count)
                let padded = String(repeating: " ", count: timeWidth - text.count) + text
                lines.append("  \(service)  \(padded)  \(time.location)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `1 error`, `2 errors`.
    static func count(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// `12.3 ms`, without Foundation's formatting.
    static func milliseconds(_ nanoseconds: UInt64) -> String {
        let tenths = (nanoseconds + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10) ms"
    }
}
