import Foundation
import Inject
import Testing

@testable import InjectDemo

/// The dependency graph of the demo's container, rendered by Graphviz: a syntax error in `dot()` fails here.
struct GraphRenderingTests {
    /// The demo's app container, wired as the demo wires it: into `NotesApp.container`, which the view model's
    /// property wrappers resolve from. No other test registers there, so its graph is the demo's alone.
    static let demoApp = makeAppContainer(NotesApp.container)

    @Test(.enabled(if: Graphviz.dotPath != nil, "Graphviz's dot is not installed (CI installs it): not rendered"))
    func demoContainersGraphRendersToSVG() async throws {
        let report = await makeSession(for: "test", in: Self.demoApp).validationReportAsync()
        #expect(report.isValid)

        let svg = try Graphviz.svg(of: report.dot())

        #expect(svg.contains("<svg"))
        for service in [
            "NotesViewModel", "NotesRepository", "HTTPClient", "ConsoleAnalytics", "UserSession", "NotesDatabase",
            "SearchIndex",
        ] {
            #expect(svg.contains(service), "the SVG has no node for \(service)")
        }
    }

    @Test(.enabled(if: Graphviz.dotPath != nil, "Graphviz's dot is not installed (CI installs it): not rendered"))
    func graphWithMissingServicesAndQuotedNamesRendersToSVG() throws {
        let container = DIContainer()
        container.register(String.self, name: "quoted \"name\" \\ backslash") { "value" }
        container.register(Int.self) { r in (try r.resolve(Double.self)) > 0 ? 1 : 0 }
        let report = container.validationReport()

        let svg = try Graphviz.svg(of: report.dot())

        #expect(svg.contains("<svg"))
        #expect(svg.contains("missing: Double"))
    }

    @Test func theValidationGuideShowsTheDemosCurrentGraphInBothRenderings() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let guide = try String(contentsOf: root.appendingPathComponent("Docs/Validation.md"), encoding: .utf8)
        let report = await makeSession(for: "validation", in: Self.demoApp).validationReportAsync()

        #expect(
            guide.contains("```text\n" + report.dot() + "```"),
            "Docs/Validation.md's dot() sample is stale: paste `swift run inject-demo --graph dot` into it"
        )
        #expect(
            guide.contains("```mermaid\n" + report.mermaid() + "```") || !guide.contains("```mermaid\nflowchart"),
            "Docs/Validation.md's mermaid() sample is stale: paste `swift run inject-demo --graph mermaid` into it"
        )
    }

    @Test func readmeShowsTheDemosCurrentGraph() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let mermaid = await makeSession(for: "validation", in: Self.demoApp).validationReportAsync().mermaid()

        #expect(
            readme.contains("```mermaid\n" + mermaid + "```"),
            "README.md's graph is stale: paste `swift run inject-demo --graph mermaid` into it"
        )
    }
}
