/// What ``stressTest(_:threads:iterations:_:)`` saw: how much work it did, how long it took, and every error.
public struct StressReport: CustomStringConvertible, Sendable {
    /// How many workers ran at once.
    public let threads: Int
    /// How many times each worker ran the body.
    public let iterations: Int
    /// How long the whole run took.
    public let seconds: Double
    /// Every error the body threw, in words, each with its worker and iteration.
    public let failures: [String]

    /// Whether the body never threw.
    public var succeeded: Bool { failures.isEmpty }

    /// How many times the body ran in all.
    public var totalIterations: Int { threads * iterations }

    /// A summary line, then each failure (the first 20, and how many more).
    public var description: String {
        let milliseconds = (seconds * 1000).rounded()
        let summary = "stress test: \(threads) threads x \(iterations) iterations in \(Int(milliseconds)) ms: "
        guard !failures.isEmpty else { return summary + "no failures" }
        var lines = [summary + "\(failures.count) failure\(failures.count == 1 ? "" : "s")"]
        // A failure's own lines (an error's path, fix) indented under it, so that each failure reads as one entry.
        lines += failures.prefix(20).map {
            "  - " + $0.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n    ")
        }
        if failures.count > 20 {
            lines.append("  ... and \(failures.count - 20) more")
        }
        return lines.joined(separator: "\n")
    }
}
