import Inject
import InjectTestSupport
import InjectTesting
import Testing

// resolveAll: every registration of a type, unnamed and named, through the container and its parents, a child's
// shadowing its parents' under the same name, ancestors first, each container in registration order.

private protocol Exporter: Sendable {
    var format: String { get }
}

private final class NamedExporter: Exporter {
    let format: String

    init(_ format: String) {
        self.format = format
    }
}

/// Holds every exporter its factory resolved.
private final class ExportMenu: Sendable {
    let exporters: [any Exporter]

    init(exporters: [any Exporter]) {
        self.exporters = exporters
    }
}

private func formats(_ exporters: [any Exporter]) -> [String] {
    exporters.map(\.format)
}

struct ResolveAllTests {
    @Test func nothingRegisteredIsAnEmptyList() {
        #expect(DIContainer().resolveAll(Widget.self).isEmpty)
    }

    @Test func anElementThatCannotBeBuiltSaysResolveAllAskedForIt() throws {
        let container = DIContainer()
        container.register(Exporter.self, name: "pdf") { NamedExporter("pdf") }
        let line = #line + 1
        container.register(Exporter.self, name: "cloud") { () async throws -> any Exporter in NamedExporter("cloud") }

        let error = try #require(throws: ResolutionError.self) { try container.resolveAllThrowingForTests() }

        #expect(
            error.description.contains(
                "while resolveAll(Exporter.self) built every registration of Exporter: this one, Exporter[\"cloud\"] registered at \(registeredAt(line)), failed."
            ),
            "\(error)"
        )
    }

    @Test func unnamedAndNamedRegistrationsComeInRegistrationOrder() {
        let container = DIContainer()
        container.register(Exporter.self, name: "pdf") { NamedExporter("pdf") }
        container.register(Exporter.self) { NamedExporter("plain") }
        container.register(Exporter.self, name: "csv") { NamedExporter("csv") }

        #expect(formats(container.resolveAll(Exporter.self)) == ["pdf", "plain", "csv"])
    }

    @Test func aReRegistrationKeepsItsPlace() {
        let container = DIContainer()
        container.register(Exporter.self, name: "pdf") { NamedExporter("pdf") }
        container.register(Exporter.self, name: "csv") { NamedExporter("csv") }
        container.register(Exporter.self, name: "pdf") { NamedExporter("pdf 2") }

        #expect(formats(container.resolveAll(Exporter.self)) == ["pdf 2", "csv"])
    }

    @Test func ancestorsComeFirstAndAChildShadowsTheSameName() {
        let root = DIContainer()
        root.register(Exporter.self, name: "pdf") { NamedExporter("root pdf") }
        root.register(Exporter.self, name: "csv") { NamedExporter("root csv") }
        let child = root.makeChild()
        child.register(Exporter.self, name: "json") { NamedExporter("child json") }
        child.register(Exporter.self, name: "csv") { NamedExporter("child csv") }

        #expect(formats(child.resolveAll(Exporter.self)) == ["root pdf", "child json", "child csv"])
        #expect(formats(root.resolveAll(Exporter.self)) == ["root pdf", "root csv"], "a parent never sees a child's")
    }

    @Test func eachElementIsBuiltAsItsScopeSays() {
        let container = DIContainer()
        container.register(Exporter.self, name: "shared") { NamedExporter("shared") }.scope(.singleton)
        container.register(Exporter.self, name: "fresh") { NamedExporter("fresh") }.scope(.transient)

        let first = container.resolveAll(Exporter.self)
        let second = container.resolveAll(Exporter.self)

        #expect(first[0] as AnyObject === second[0] as AnyObject)
        #expect(first[1] as AnyObject !== second[1] as AnyObject)
    }

    @Test func argumentRegistrationsAreLeftOut() {
        let container = DIContainer()
        container.register(Exporter.self) { NamedExporter("plain") }
        container.register(Exporter.self, name: "custom") { (_: DIResolver, format: String) in NamedExporter(format) }

        #expect(formats(container.resolveAll(Exporter.self)) == ["plain"])
    }

    @Test func validationWarnsOfAResolveAllWhoseRegistrationsAllTakeAnArgument() throws {
        let container = DIContainer()
        container.register(Exporter.self, name: "pdf") { (_: DIResolver, format: String) in NamedExporter(format) }
            .validationArgument("pdf")
        container.register { r in ExportMenu(exporters: try r.resolveAll()) }

        let report = container.validationReport()

        let warning = try #require(report.warnings.first { $0.message.contains("resolveAll") }, "\(report)")
        #expect(
            warning.message.hasPrefix("ExportMenu's resolveAll(Exporter.self) gets an empty list"),
            "\(warning)"
        )
        #expect(warning.description.contains("left out: Exporter[\"pdf\"] at"), "\(warning)")
        #expect(container.resolve(ExportMenu.self).exporters.isEmpty, "what the warning says")
    }

    @Test func aResolveAllThatLeavesOutSomeArgumentRegistrationsIsNotWarnedOf() {
        let container = DIContainer()
        container.register(Exporter.self) { NamedExporter("plain") }
        container.register(Exporter.self, name: "pdf") { (_: DIResolver, format: String) in NamedExporter(format) }
            .validationArgument("pdf")
        container.register { r in ExportMenu(exporters: try r.resolveAll()) }

        #expect(container.validationReport().untimedProblems.isEmpty)
    }

    @Test func aChildsArgumentRegistrationShadowsItsParentsUnderTheSameNameAndIsLeftOutToo() {
        let root = DIContainer()
        root.register(Exporter.self) { NamedExporter("pdf") }
        root.register(Exporter.self, name: "csv") { NamedExporter("root csv") }
        let child = root.makeChild()
        child.register(Exporter.self, name: "csv") { (_: DIResolver, separator: String) in NamedExporter(separator) }

        #expect(formats(child.resolveAll(Exporter.self)) == ["pdf"], "no resolve through the child gets root csv")
        #expect(formats(root.resolveAll(Exporter.self)) == ["pdf", "root csv"])
    }

    @Test func aForwardToAnArgumentRegistrationIsLeftOutLikeTheRegistration() {
        let container = DIContainer()
        container.register(Exporter.self) { NamedExporter("plain") }
        container.register(NamedExporter.self, name: "custom") { (_: DIResolver, format: String) in
            NamedExporter(format)
        }
        .implements(Exporter.self, name: "custom")

        #expect(formats(container.resolveAll(Exporter.self)) == ["plain"])
    }

    @Test func aFactoryResolvesAllThroughItsResolverAndValidationSeesTheEdges() throws {
        let container = DIContainer()
        container.register(Exporter.self, name: "pdf") { NamedExporter("pdf") }
        container.register(Exporter.self, name: "csv") { NamedExporter("csv") }
        container.register { r in ExportMenu(exporters: try r.resolveAll(Exporter.self)) }

        #expect(formats(container.resolve(ExportMenu.self).exporters) == ["pdf", "csv"])
        let report = container.validationReport()
        #expect(report.untimedProblems.isEmpty, "\(report)")
        let graph = DrawnGraph(dot: report.dot())
        #expect(
            graph.edge(from: graph.node("ExportMenu"), to: graph.node("Exporter[\"pdf\"]")) != nil,
            "\(report.dot())"
        )
        #expect(
            graph.edge(from: graph.node("ExportMenu"), to: graph.node("Exporter[\"csv\"]")) != nil,
            "\(report.dot())"
        )
    }

    @Test func aFailingElementThrowsThroughTheResolver() throws {
        let container = DIContainer()
        container.register(Exporter.self, name: "broken") { () throws -> any Exporter in
            throw FixtureError(text: "no printer")
        }
        container.register { r in ExportMenu(exporters: try r.resolveAll(Exporter.self)) }

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(ExportMenu.self) }

        #expect(error.kind == .factoryThrew)
        #expect(error.path == ["ExportMenu", "Exporter[\"broken\"]"])
    }

    @Test func testOverridesShadowTheContainersRegistrations() {
        let container = DIContainer()
        container.register(Exporter.self, name: "pdf") { NamedExporter("pdf") }
        container.register(Exporter.self, name: "csv") { NamedExporter("csv") }

        let inside = withOverrides(in: container) {
            $0.register(Exporter.self, name: "json") { NamedExporter("fake json") }
            $0.register(Exporter.self, name: "pdf") { NamedExporter("fake pdf") }
        } operation: {
            formats(container.resolveAll(Exporter.self))
        }

        #expect(inside == ["fake pdf", "csv", "fake json"], "an override takes the place of what it shadows")
        #expect(formats(container.resolveAll(Exporter.self)) == ["pdf", "csv"])
    }
}

extension DIContainer {
    /// `resolveAll` through a resolver, which throws where the container's form traps.
    fileprivate func resolveAllThrowingForTests() throws -> [any Exporter] {
        let menu = DIContainer(parent: self)
        menu.register(ExportMenu.self) { r in ExportMenu(exporters: try r.resolveAll()) }
        return try menu.resolveThrowing(ExportMenu.self).exporters
    }
}
