import Inject
import InjectTestSupport
import Testing

/// A main-actor type, like a view model.
@MainActor
private final class ProfileScreen {
    let title: String

    init(title: String) {
        self.title = title
    }
}

/// A view model whose initializer is isolated to the main actor, as an app's are.
@MainActor
private final class IsolatedViewModel {
    let greeting: String
    let widget: Widget

    init(widget: Widget) {
        self.widget = widget
        self.greeting = "hello \(widget.serial)"
    }

    init() {
        self.widget = Widget(serial: 0)
        self.greeting = "plain"
    }
}

/// Records the container its factory's resolver ran in.
private final class ContainerProbe: Sendable {
    let container: DIContainer

    init(container: DIContainer) {
        self.container = container
    }
}

struct ResolutionTests {
    @Test func resolveInfersTheTypeFromContext() throws {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 11) }

        let widget: Widget = container.resolve()
        let throwing: Widget = try container.resolveThrowing()

        #expect(widget.serial == 11)
        #expect(throwing.serial == 11)
    }

    @Test func aFactoryResolvesItsDependenciesThroughTheResolver() {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 12) }
        container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }

        #expect(container.resolve(Gadget.self).widget.serial == 12)
    }

    @Test func resolverOptionalIsNilWhenUnregisteredAndTheInstanceWhenRegistered() {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 13) }
        container.register(Point.self) { r in
            Point(x: try r.optional(Widget.self)?.serial ?? -1, y: try r.optional(Gadget.self)?.widget.serial ?? -1)
        }

        #expect(container.resolve(Point.self) == Point(x: 13, y: -1))
    }

    @Test func theResolverRunsInTheContainerTheResolveWentThrough() {
        let parent = DIContainer()
        let child = parent.makeChild()
        parent.register(ContainerProbe.self) { r in ContainerProbe(container: r.container) }

        #expect(child.resolve(ContainerProbe.self).container === child)
        #expect(parent.resolve(ContainerProbe.self).container === parent)
    }

    @Test func aSingletonsResolverRunsInTheRegisteringContainer() {
        let parent = DIContainer()
        let child = parent.makeChild()
        parent.register(ContainerProbe.self) { r in ContainerProbe(container: r.container) }.scope(.singleton)

        #expect(child.resolve(ContainerProbe.self).container === parent)
    }

    @Test @MainActor func aMainActorFactoryResolvesSynchronouslyOnTheMainActor() {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 14) }
        container.register(
            ProfileScreen.self,
            mainActorFactory: { r in
                ProfileScreen(title: "screen \(try r.resolve(Widget.self).serial)")
            }
        )

        let screen = container.resolve(ProfileScreen.self)

        #expect(screen.title == "screen 14")
    }

    @Test @MainActor func aMainActorInitializerIsAutowired() throws {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 3) }.scope(.singleton)
        container.register(mainActorAutowired: IsolatedViewModel.init(widget:))

        let model = container.resolve(IsolatedViewModel.self)

        #expect(model.greeting == "hello 3")
        #expect(model.widget === container.resolve(Widget.self))
    }

    @Test func aMainActorAutowiredRegistrationOffTheMainActorIsTheMainActorError() throws {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 3) }
        container.register(mainActorAutowired: IsolatedViewModel.init(widget:))
        let outcome = Cell<ResolutionError>()

        let finished = finishes("resolving a main-actor service on another thread") {
            outcome.value = #expect(throws: ResolutionError.self) {
                _ = try container.resolveThrowing(IsolatedViewModel.self)
            }
        }

        #expect(finished)
        #expect(outcome.value?.kind == .notOnMainActor)
    }

    @Test @MainActor func aMainActorFactoryMayTakeNoResolver() {
        let container = DIContainer()
        container.register(mainActorFactory: IsolatedViewModel.init as @MainActor @Sendable () -> IsolatedViewModel)
        container.register(
            ProfileScreen.self,
            name: "closure",
            mainActorFactory: { ProfileScreen(title: "no resolver") }
        )

        #expect(container.resolve(IsolatedViewModel.self).greeting == "plain")
        #expect(container.resolve(ProfileScreen.self, name: "closure").title == "no resolver")
    }

    @Test @MainActor func aMainActorFactoryCanBeADependencyOnTheMainActor() throws {
        let container = DIContainer()
        container.register(mainActorFactory: { _ in ProfileScreen(title: "inner") })
        container.register(Logger.self) { r in
            let screen = try r.resolve(ProfileScreen.self)
            return Logger(tag: MainActor.assumeIsolated { screen.title })
        }

        #expect(try container.resolveThrowing(Logger.self).tag == "inner")
    }

    @Test func aMainActorFactoryResolvedOffTheMainThreadIsAnError() throws {
        let container = DIContainer()
        container.register(ProfileScreen.self, mainActorFactory: { _ in ProfileScreen(title: "never") })
        let outcome = Cell<ResolutionError>()
        let other = Cell<String>()

        let finished = finishes("resolving a main-actor service on another thread") {
            do {
                _ = try container.resolveThrowing(ProfileScreen.self)
                other.value = "resolved it"
            } catch let error as ResolutionError {
                outcome.value = error
            } catch {
                other.value = "threw \(error)"
            }
        }

        try #require(finished)
        #expect(other.value == nil)
        let error = try #require(outcome.value)
        #expect(error.kind == .notOnMainActor)
        #expect(error.description.contains("ProfileScreen"))
        #expect(error.description.contains("main actor"))
        #expect(error.description.contains("asked by: a resolve call outside any factory"), "\(error)")
    }
}
