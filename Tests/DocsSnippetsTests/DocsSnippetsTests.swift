import Foundation
import InjectTestSupport
import InjectTesting
import Testing

/// Every ```swift block in the README and in `Docs/` type-checks, on its own, against the Inject and InjectTesting
/// this package just built: a renamed or changed API fails this suite, so the guides cannot rot.
///
/// Each block is a single-file Swift 6 script (top-level code is allowed), with its own imports and every type it
/// uses. Output goes in ```text blocks, shell commands in ```sh, patches in ```diff. Blocks are checked with
/// `-D DEBUG`, so that `#if DEBUG` bodies are checked too.
struct DocsSnippetsTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The Markdown files whose Swift blocks must compile: the README and every guide.
    static let documents: [String] = {
        let guides =
            (try? FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("Docs").path))
            ?? []
        return ["README.md"] + guides.filter { $0.hasSuffix(".md") }.sorted().map { "Docs/\($0)" }
    }()

    @Test func everyGuideIsChecked() {
        #expect(Self.documents.contains("README.md"))
        #expect(Self.documents.count > 3, "Docs/ has no guides: \(Self.documents)")
    }

    @Test(arguments: documents)
    func swiftBlocksTypeCheck(document: String) throws {
        let text = try String(contentsOf: Self.packageRoot.appendingPathComponent(document), encoding: .utf8)
        let blocks = Snippet.extract(from: text)
        let compiler = try #require(Compiler.current, "swiftc or the built modules were not found")
        let failures = Collector<String>()
        DispatchQueue.concurrentPerform(iterations: blocks.count) { index in
            let block = blocks[index]
            if let diagnostics = compiler.typeCheck(block.code, named: "\(index)") {
                failures.append("\(document):\(block.line): this ```swift block does not compile:\n\(diagnostics)")
            }
        }
        #expect(failures.values.isEmpty, "\(failures.values.sorted().joined(separator: "\n\n"))")
    }
}

/// A fenced ```swift block of a Markdown file.
struct Snippet {
    /// The line of the opening fence, 1-based.
    let line: Int
    let code: String

    static func extract(from markdown: String) -> [Snippet] {
        var snippets: [Snippet] = []
        var current: (line: Int, indent: Int, lines: [String])?
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " }
            let indent = line.count - trimmed.count
            if var block = current {
                if trimmed.hasPrefix("```") {
                    snippets.append(Snippet(line: block.line, code: block.lines.joined(separator: "\n") + "\n"))
                    current = nil
                } else {
                    block.lines.append(String(line.dropFirst(min(indent, block.indent))))
                    current = block
                }
            } else if trimmed == "```swift" {
                current = (index + 1, indent, [])
            }
        }
        return snippets
    }
}

/// `swiftc -typecheck` against the modules of this build.
struct Compiler {
    let swiftc: URL
    let modules: URL
    let shimsModuleMap: URL

    /// The toolchain's `swiftc` and this test build's modules, found from the test binary's location.
    static let current: Compiler? = {
        let environment = ProcessInfo.processInfo.environment
        let path = environment["PATH"] ?? "/usr/bin"
        guard
            let swiftc = path.split(separator: ":").map({ URL(fileURLWithPath: "\($0)/swiftc") })
                .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
        else { return nil }
        // The test binary lives in the build directory, next to `Modules/` and the C module's build folder.
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 where !FileManager.default.fileExists(atPath: directory.appendingPathComponent("Modules").path) {
            directory.deleteLastPathComponent()
        }
        let modules = directory.appendingPathComponent("Modules")
        let shims = directory.appendingPathComponent("CInjectShims.build/module.modulemap")
        guard FileManager.default.fileExists(atPath: modules.appendingPathComponent("Inject.swiftmodule").path)
        else { return nil }
        return Compiler(swiftc: swiftc, modules: modules, shimsModuleMap: shims)
    }()

    /// Type-checks `code` as a Swift 6 script; returns the diagnostics when it does not compile.
    func typeCheck(_ code: String, named name: String) -> String? {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("inject-snippets-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        let file = directory.appendingPathComponent("main.swift")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try code.write(to: file, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = swiftc
            process.arguments = [
                "-typecheck", "-swift-version", "6", "-D", "DEBUG",
                "-I", modules.path,
                "-Xcc", "-fmodule-map-file=\(shimsModuleMap.path)",
                "-module-name", "Snippet\(name)",
                file.path,
            ]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let diagnostics = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return process.terminationStatus == 0 ? nil : String(decoding: diagnostics, as: UTF8.self)
        } catch {
            return "could not run swiftc: \(error)"
        }
    }
}
