import Foundation
import Testing

/// Graphviz's `dot`, when it is installed: CI installs it; a developer machine may not have it.
enum Graphviz {
    /// The path of `dot` on `PATH`, or `nil`.
    static let dotPath: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":")
            .map { "\($0)/dot" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    struct RenderingFailed: Error, CustomStringConvertible {
        let status: Int32
        let output: String

        var description: String { "dot exited with status \(status): \(output)" }
    }

    /// Renders a Graphviz graph to SVG with `dot -Tsvg`.
    ///
    /// - Throws: ``RenderingFailed`` with `dot`'s error output when it rejects the graph.
    static func svg(of graph: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(dotPath))
        process.arguments = ["-Tsvg"]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(graph.utf8))
        try input.fileHandleForWriting.close()
        let svg = output.fileHandleForReading.readDataToEndOfFile()
        let diagnostics = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw RenderingFailed(
                status: process.terminationStatus,
                output: String(decoding: diagnostics, as: UTF8.self)
            )
        }
        return String(decoding: svg, as: UTF8.self)
    }
}
