import Inject
import InjectTestSupport
import Testing

// What a person reads: the report's description, and the dependency graph as Graphviz and Mermaid text.
// (Rendering through the `dot` binary is GraphRenderingTests' job; these read the text back instead.)

private final class Session: Sendable {
    let widget: Widget

    init(widget: Widget) {
        self.widget = widget
    }
}

struct ValidationReportTests {
    // MARK: The summary line

    @Test func theSummaryLineCountsRegistrationsErrorsAndWarnings() {
        let container = DIContainer()
        container.register(Reporter.self) { r in Reporter(logger: try r.resolve()) }
        container.register(Widget.self) { () throws -> Widget in throw FixtureError(text: "no widget") }
        container.register(Gadget.self) { (_: DIResolver, widget: Widget) in Gadget(widget: widget) }
        container.register(Point.self) { (_: DIResolver, x: Int) in Point(x: x, y: 0) }
        container.register(Greeter.self) { EnglishGreeter() }

        let report = container.validationReport()

        let firstLine = report.description.split(separator: "\n").first.map(String.init)
        let slow = report.problems(ofKind: .slowFactory).count  // on a busy machine
        #expect(firstLine == "checked 3 registrations: 2 errors, \(2 + slow) warnings", "\(report)")
    }

    @Test func aCleanReportSaysZeroErrorsAndZeroWarnings() throws {
        let container = DIContainer()
        container.register(Widget.self) { Widget() }.scope(.singleton)
        container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }
        container.register(Logger.self) { Logger(tag: "clean") }.scope(.session)

        let report = container.validationReport()

        let firstLine = try #require(report.description.split(separator: "\n").first.map(String.init))
        let warnings = report.problems(ofKind: .slowFactory).count  // on a busy machine
        #expect(firstLine == "checked 3 registrations: 0 errors, \(warnings) warning\(warnings == 1 ? "" : "s")")
        #expect(report.untimedProblems.isEmpty)
        #expect(report.isValid)
        #expect(!report.description.contains("error:"))
        #expect(!report.description.contains("warning:"))
    }

    // MARK: The problems

    @Test func eachProblemIsListedWithItsFileAndLine() throws {
        let container = DIContainer()
        let reporterLine = #line + 1
        container.register(Reporter.self) { r in Reporter(logger: try r.resolve()) }
        let widgetLine = #line + 1
        container.register(Widget.self) { () throws -> Widget in throw FixtureError(text: "no widget") }
        let gadgetLine = #line + 1
        container.register(Gadget.self) { (_: DIResolver, widget: Widget) in Gadget(widget: widget) }

        let report = container.validationReport()

        #expect(report.untimedProblems.count == 3, "\(report)")
        #expect(report.description.contains("\(registeredAt(reporterLine)): error: "), "\(report)")
        #expect(report.description.contains("\(registeredAt(widgetLine)): error: "), "\(report)")
        #expect(report.description.contains("\(registeredAt(gadgetLine)): warning: "), "\(report)")
        for problem in report.untimedProblems {
            let label = problem.severity == .error ? "error" : "warning"
            #expect(problem.description.hasPrefix("\(problem.location): \(label): \(problem.message)"))
            #expect(report.description.contains(problem.description), "\(problem) is not in the report")
        }
    }

    @Test func errorsAreListedBeforeWarnings() throws {
        let container = DIContainer()
        // Explicit locations: the warning's registration comes first in the file, so it is found first.
        container.register(
            Gadget.self,
            file: "App/Composition.swift",
            line: 10,
            factory: { (_: DIResolver, widget: Widget) in Gadget(widget: widget) }
        )
        container.register(
            Widget.self,
            file: "App/Composition.swift",
            line: 20,
            factory: { () throws -> Widget in throw FixtureError(text: "no widget") }
        )

        let report = container.validationReport()

        #expect(report.untimedProblems.map(\.severity) == [.error, .warning], "\(report)")
        #expect(report.untimedProblems.map(\.location) == ["App/Composition.swift:20", "App/Composition.swift:10"])
        let text = report.description
        let error = try #require(text.range(of: "App/Composition.swift:20: error: "), "\(report)")
        let warning = try #require(text.range(of: "App/Composition.swift:10: warning: "), "\(report)")
        #expect(error.lowerBound < warning.lowerBound, "\(report)")
    }

    @Test func aForwardOfImplementsIsNotTimedAsAFactory() throws {
        // The forward builds nothing of its own: only EnglishGreeter's factory has a time to rank.
        let container = DIContainer()
        container.register { EnglishGreeter() }.scope(.singleton).implements(Greeter.self)
        container.register { r in Reporter(logger: Logger(tag: (try r.resolve(Greeter.self)).greeting)) }

        let report = container.validationReport()

        #expect(report.buildTimes.contains { $0.service == "EnglishGreeter" }, "\(report.buildTimes)")
        #expect(!report.buildTimes.contains { $0.service == "Greeter" }, "\(report.buildTimes)")
    }

    @Test func theSlowestRegistrationsComeLastWithTheirBuildTimes() throws {
        let container = DIContainer()
        let slowLine = #line + 1
        container.register(Logger.self) {
            sleepLikeASlowFactory()
            return Logger(tag: "slow")
        }
        container.register(Reporter.self) { r in Reporter(logger: try r.resolve()) }
        container.register(Widget.self) { Widget() }
        container.register(Gadget.self) { (_: DIResolver, widget: Widget) in Gadget(widget: widget) }

        let report = container.validationReport()

        let slowest = try #require(report.buildTimes.first)
        #expect(slowest.service == "Logger")
        #expect(slowest.location == registeredAt(slowLine))
        #expect(slowest.milliseconds >= 50)
        let lines = report.description.split(separator: "\n").map(String.init)
        let heading = try #require(lines.firstIndex(of: "slowest registrations:"), "\(report)")
        let lastProblem = try #require(
            report.untimedProblems.last.flatMap { last in lines.lastIndex { $0.hasPrefix(last.location) } }
        )
        #expect(lastProblem < heading, "the slowest registrations are not after the problems:\n\(report)")
        #expect(heading + 1 < lines.count)
        let first = lines[heading + 1]
        #expect(first.contains("Logger"), "\(report)")
        #expect(first.contains(" ms"), "\(report)")
        #expect(first.contains(registeredAt(slowLine)), "\(report)")
        #expect(lines[(heading + 1)...].allSatisfy { $0.hasPrefix("  ") && $0.contains(" ms") }, "\(report)")
    }

    @Test func aValidationErrorDescribesTheWholeReport() throws {
        let container = DIContainer()
        container.register(Reporter.self) { r in Reporter(logger: try r.resolve()) }
        container.register(Gadget.self) { (_: DIResolver, widget: Widget) in Gadget(widget: widget) }

        let error = try #require(throws: ValidationError.self) { try container.validate() }

        #expect(error.description.contains("checked 1 registration"), "\(error)")
        for problem in error.report.untimedProblems {
            #expect(error.description.contains(problem.description), "\(error)")
        }
    }

    // MARK: dot()

    @Test func dotDrawsEachRegistrationWithItsTypeNameAndScope() throws {
        let container = DIContainer()
        container.register(Widget.self, name: .live) { Widget() }.scope(.singleton)
        container.register(Session.self) { r in Session(widget: try r.resolve(name: .live)) }.scope(.session)
        container.register(Logger.self) { Logger(tag: "") }.scope(.transient)

        let graph = DrawnGraph(dot: container.validationReport().dot())

        #expect(graph.header == "digraph Inject {")
        #expect(graph.nodes.count == 3, "\(graph.nodes)")
        let widget = try #require(graph.node("Widget", "live"), "\(graph.nodes)")
        let session = try #require(graph.node("Session"), "\(graph.nodes)")
        let logger = try #require(graph.node("Logger"), "\(graph.nodes)")
        #expect(widget.label.contains(".singleton"), "\(widget)")
        #expect(session.label.contains(".custom(\"session\")"), "\(session)")
        #expect(logger.label.contains(".transient"), "\(logger)")
        #expect(graph.nodes.allSatisfy { !$0.isMissing })
        #expect(graph.edges.count == 1, "\(graph.edges)")
        #expect(graph.edge(from: session, to: widget) != nil, "\(graph.edges)")
    }

    @Test func dotDrawsEveryDependencyEdgeSeen() throws {
        let container = DIContainer()
        container.register(Widget.self) { Widget() }.scope(.singleton)
        container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }
        container.register(Logger.self) { Logger(tag: "") }
        container.register(Reporter.self) { r in
            _ = try r.resolve(Gadget.self)
            return Reporter(logger: try r.resolve())
        }

        let graph = DrawnGraph(dot: container.validationReport().dot())

        let widget = graph.node("Widget")
        let gadget = graph.node("Gadget")
        let logger = graph.node("Logger")
        let reporter = graph.node("Reporter")
        #expect(graph.nodes.count == 4, "\(graph.nodes)")
        #expect(graph.edges.count == 3, "\(graph.edges)")
        #expect(graph.edge(from: gadget, to: widget) != nil)
        #expect(graph.edge(from: reporter, to: gadget) != nil)
        #expect(graph.edge(from: reporter, to: logger) != nil)
        #expect(graph.edgesBetweenKnownNodes)
    }

    @Test func dotDrawsAMissingServiceDistinctly() throws {
        let container = DIContainer()
        container.register(Reporter.self) { r in Reporter(logger: try r.resolve()) }
        container.register(Widget.self) { Widget() }

        let graph = DrawnGraph(dot: container.validationReport().dot())

        let missing = try #require(graph.node("Logger"), "\(graph.nodes)")
        let reporter = try #require(graph.node("Reporter"), "\(graph.nodes)")
        let widget = try #require(graph.node("Widget"), "\(graph.nodes)")
        #expect(missing.isMissing, "\(missing)")
        #expect(missing.label.contains("missing"), "\(missing)")
        #expect(!reporter.isMissing)
        #expect(!widget.isMissing)
        let edge = try #require(graph.edge(from: reporter, to: missing), "\(graph.edges)")
        #expect(edge.isDashed)
    }

    @Test func dotDrawsAnImplementsForwardAndItsTarget() throws {
        let container = DIContainer()
        container.register(EnglishGreeter.self) { EnglishGreeter() }.scope(.cached).implements(Greeter.self)

        let graph = DrawnGraph(dot: container.validationReport().dot())

        let forward = try #require(graph.node("Greeter", "implements"), "\(graph.nodes)")
        let target = try #require(graph.node("EnglishGreeter", ".cached"), "\(graph.nodes)")
        #expect(graph.edge(from: forward, to: target) != nil, "\(graph.edges)")
    }

    @Test func dotEscapesQuotesInNames() throws {
        let container = DIContainer()
        container.register(Widget.self, name: "say \"hi\"") { Widget() }

        let graph = DrawnGraph(dot: container.validationReport().dot())

        let node = try #require(graph.nodes.first, "\(graph.nodes)")
        #expect(graph.nodes.count == 1)
        #expect(node.label.contains(#"Widget["say \"hi\""]"#), "the name as a Swift string literal: \(node)")
        #expect(node.label.contains(".graph"), "\(node)")
    }

    @Test func anEmptyContainerDrawsEmptyGraphs() {
        let report = DIContainer().validationReport()

        let dot = DrawnGraph(dot: report.dot())
        let mermaid = DrawnGraph(mermaid: report.mermaid())

        #expect(dot.header == "digraph Inject {")
        #expect(report.dot().hasSuffix("}\n"))
        #expect(dot.nodes.isEmpty && dot.edges.isEmpty)
        #expect(mermaid.header.hasPrefix("flowchart"))
        #expect(mermaid.nodes.isEmpty && mermaid.edges.isEmpty)
    }

    // MARK: mermaid()

    @Test func mermaidDrawsTheSameGraphAsDot() {
        let container = DIContainer()
        container.register(Widget.self, name: .live) { Widget() }.scope(.singleton)
        container.register(Session.self) { r in Session(widget: try r.resolve(name: .live)) }.scope(.session)
        container.register(Reporter.self) { r in Reporter(logger: try r.resolve()) }.scope(.cached)
        container.register(EnglishGreeter.self) { EnglishGreeter() }.implements(Greeter.self)
        let report = container.validationReport()

        let dot = DrawnGraph(dot: report.dot())
        let mermaid = DrawnGraph(mermaid: report.mermaid())

        #expect(mermaid.header.hasPrefix("flowchart"), "\(report.mermaid())")
        #expect(dot.nodes.count == 6, "\(dot.nodes)")
        #expect(Set(mermaid.nodes.map(\.label)) == Set(dot.nodes.map(\.label)), "\(report.mermaid())")
        #expect(mermaid.nodes.filter(\.isMissing).map(\.label) == dot.nodes.filter(\.isMissing).map(\.label))
        #expect(mermaid.labelledEdges == dot.labelledEdges, "\(report.mermaid())")
        #expect(mermaid.edges.count == 3)
        #expect(mermaid.edgesBetweenKnownNodes)
    }

    @Test func namesWithQuotesBracketsBackslashesAndNewlinesAreEscapedInBothGraphs() {
        let container = DIContainer()
        container.register(Widget.self, name: "say \"hi\"\n<b>\\") { Widget() }
        let report = container.validationReport()

        // The name is written as a Swift string literal (`"say \"hi\"\n<b>\\"`), then escaped for each format.
        #expect(report.dot().contains(#"Widget[\"say \\\"hi\\\"\\n<b>\\\\\"]"#), "\(report.dot())")
        #expect(
            report.mermaid().contains(##"Widget[#quot;say \#quot;hi\#quot;\n#lt;b#gt;\\#quot;]"##),
            "\(report.mermaid())"
        )
        let missing = #expect(throws: ResolutionError.self) {
            try container.resolveThrowing(Gadget.self, name: "say \"hi\"\n<b>\\")
        }
        let headline = missing?.description.split(separator: "\n").first.map(String.init) ?? ""
        #expect(headline.contains(#"Gadget named "say \"hi\"\n<b>\\""#), "on one line: \(missing as Any)")
    }

    @Test func mermaidLabelsNodesWithTypeNameAndScopeAndDrawsMissingServicesDashed() throws {
        let container = DIContainer()
        container.register(Widget.self, name: .live) { Widget() }.scope(.singleton)
        container.register(Session.self) { r in Session(widget: try r.resolve(name: .live)) }.scope(.session)
        container.register(Reporter.self) { r in Reporter(logger: try r.resolve()) }
        let text = container.validationReport().mermaid()

        let graph = DrawnGraph(mermaid: text)

        let widget = try #require(graph.node("Widget", "live"), "\(text)")
        let session = try #require(graph.node("Session"), "\(text)")
        let reporter = try #require(graph.node("Reporter"), "\(text)")
        let missing = try #require(graph.node("Logger"), "\(text)")
        #expect(widget.label.contains(".singleton"), "\(text)")
        #expect(session.label.contains(".custom(\"session\")"), "\(text)")
        #expect(reporter.label.contains(".graph"), "\(text)")
        #expect(missing.isMissing, "\(text)")
        #expect(!widget.isMissing && !session.isMissing && !reporter.isMissing, "\(text)")
        #expect(graph.edge(from: session, to: widget) != nil, "\(text)")
        #expect(graph.edge(from: reporter, to: missing)?.isDashed == true, "\(text)")
        #expect(graph.otherLines.contains { $0.hasPrefix("classDef missing") && $0.contains("dasharray") }, "\(text)")
    }
}
