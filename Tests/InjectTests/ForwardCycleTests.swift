import Inject
import InjectTestSupport
import Testing

/// An `implements` forward is another name for its registration: a cycle that comes back through the protocol
/// behaves as one that comes back to the registration itself, whichever of the two is resolved first, and
/// `validate()` judges it the same way.
struct ForwardCycleTests {
    protocol Coordinating: AnyObject, Sendable {}

    final class Router: @unchecked Sendable {
        // @unchecked: set once by resolveProperties, before the instance is handed out.
        weak var coordinator: Coordinating?
    }

    final class Coordinator: Coordinating, @unchecked Sendable {
        // @unchecked: set once by resolveProperties (or the initializer), before the instance is handed out.
        var router: Router?

        init(router: Router? = nil) {
            self.router = router
        }
    }

    /// Router gets the coordinator, as the protocol, in `resolveProperties`; Coordinator gets the router in
    /// `resolveProperties` too, or in its factory when `factoryStep`.
    private static func makeContainer(coordinatorFirst: Bool, factoryStep: Bool = false) -> DIContainer {
        let container = DIContainer()
        func registerRouter() {
            container.register { Router() }.scope(.singleton)
                .resolveProperties { r, router in router.coordinator = try r.resolve(Coordinating.self) }
        }
        func registerCoordinator() {
            if factoryStep {
                container.register { r in Coordinator(router: try r.resolve()) }.scope(.singleton)
                    .implements(Coordinating.self)
            } else {
                container.register { Coordinator() }.scope(.singleton).implements(Coordinating.self)
                    .resolveProperties { r, coordinator in coordinator.router = try r.resolve() }
            }
        }
        if coordinatorFirst {
            registerCoordinator()
            registerRouter()
        } else {
            registerRouter()
            registerCoordinator()
        }
        return container
    }

    @Test(arguments: [false, true])
    func aResolvePropertiesCycleThroughAProtocolWorksEnteredAtTheProtocol(coordinatorFirst: Bool) throws {
        let container = Self.makeContainer(coordinatorFirst: coordinatorFirst)
        #expect(container.validationReport().isValid, "\(container.validationReport())")

        let coordinator = try container.resolveThrowing(Coordinating.self)
        let router = try #require((coordinator as? Coordinator)?.router)
        #expect(router.coordinator === coordinator)
        #expect(container.resolve(Coordinator.self) === coordinator)
    }

    @Test func aResolvePropertiesCycleThroughAProtocolWorksEnteredAtTheProtocolWithResolveAsync() async throws {
        let container = Self.makeContainer(coordinatorFirst: false)
        #expect(await container.validationReportAsync().isValid)

        let coordinator = try await container.resolveAsync(Coordinating.self)
        let router = try #require((coordinator as? Coordinator)?.router)
        #expect(router.coordinator === coordinator)
    }

    @Test(arguments: [false, true])
    func aCycleWithAFactoryStepThroughAProtocolNamesTheRegistrationToChange(coordinatorFirst: Bool) throws {
        let container = Self.makeContainer(coordinatorFirst: coordinatorFirst, factoryStep: true)

        let report = container.validationReport()

        let problem = try #require(report.errors.first, "\(report)")
        #expect(problem.description.contains("resolving Coordinator first"), "\(problem)")
        #expect(problem.description.contains("get Router in Coordinator's resolveProperties"), "\(problem)")
        #expect(!problem.description.contains("Coordinating's resolveProperties"), "\(problem)")
        // The protocol is another name for Coordinator: resolved first, it fails as Coordinator does.
        #expect(problem.description.contains("resolving Router first works"), "\(problem)")
        #expect(problem.description.contains("also fails when resolved first: Coordinating"), "\(problem)")
        // As run time has it: entered at the coordinator (either name) it fails, entered at the router it works.
        #expect(throws: ResolutionError.self) { try container.resolveThrowing(Coordinating.self) }
        let fresh = Self.makeContainer(coordinatorFirst: coordinatorFirst, factoryStep: true)
        let router = try fresh.resolveThrowing(Router.self)
        #expect(router.coordinator === fresh.resolve(Coordinator.self))
    }
}
