import Foundation

/// How a soak run is set up: its seed, how many workers, and how many operations each runs.
///
/// `INJECT_SOAK_SEED` (decimal, or hexadecimal with `0x`) replays another run's operation choices;
/// `INJECT_SOAK_SCALE` (a `Double`, default 1.0) scales the number of operations, so that CI can run a tenth of
/// the soak under the thread sanitizer.
struct SoakConfiguration: Sendable, CustomStringConvertible {
    /// The seed used when `INJECT_SOAK_SEED` is not set.
    static let defaultSeed: UInt64 = 0x5EED_1A2B_3C4D

    /// Operations each worker runs at scale 1.0.
    static let baseOperationsPerWorker = 16_000

    let seed: UInt64
    let scale: Double
    /// Workers on `Thread`s of their own.
    let threads: Int
    /// Workers in unstructured Swift concurrency tasks, which also run under overrides with the asynchronous form of the layer `withOverrides` makes.
    let tasks: Int
    let operationsPerWorker: Int

    /// The configuration the environment asks for.
    static func fromEnvironment() -> SoakConfiguration {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["INJECT_SOAK_SEED"].flatMap(parseSeed) ?? defaultSeed
        let scale = environment["INJECT_SOAK_SCALE"].flatMap(Double.init).map { max(0, $0) } ?? 1.0
        return SoakConfiguration(
            seed: seed,
            scale: scale,
            threads: 12,
            tasks: 4,
            operationsPerWorker: max(1, Int((Double(baseOperationsPerWorker) * scale).rounded()))
        )
    }

    /// A seed written in decimal, or in hexadecimal after `0x`.
    private static func parseSeed(_ text: String) -> UInt64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed.hasPrefix("0x") {
            return UInt64(trimmed.dropFirst(2).replacingOccurrences(of: "_", with: ""), radix: 16)
        }
        return UInt64(trimmed)
    }

    /// The seed as `INJECT_SOAK_SEED` takes it.
    var seedText: String {
        "0x" + String(seed, radix: 16, uppercase: true)
    }

    var description: String {
        "seed \(seedText) (INJECT_SOAK_SEED=\(seedText)), scale \(scale), \(threads) threads + \(tasks) tasks x "
            + "\(operationsPerWorker) operations"
    }
}
