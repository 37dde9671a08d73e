import Inject
import Testing

// A client module as an app writes it, in Swift 6 language mode with no warnings: a Sendable service behind a
// protocol, an actor, and a @MainActor view model with injected properties, registered with `mainActorFactory`.
// Factory's and Resolver's users hit "cannot form key path to main actor-isolated property" and Sendable errors
// here; this target compiling under `-warnings-as-errors` is half of the test.

protocol NotesService: Sendable {
    func titles() -> [String]
}

struct FixedNotesService: NotesService {
    let stored: [String]

    func titles() -> [String] { stored }
}

actor ReadCounter {
    private(set) var reads = 0

    func record() {
        reads += 1
    }
}

/// The app's containers, as statics: what `@Injected(container:)` arguments can name.
enum AppContainers {
    static let root: DIContainer = {
        let container = DIContainer()
        container.register(NotesService.self) { FixedNotesService(stored: ["Groceries", "Ideas"]) }.scope(.singleton)
        container.register { ReadCounter() }.scope(.singleton)
        container.register(mainActorFactory: { r in try NotesViewModel(service: r.resolve()) })
        return container
    }()
}

@MainActor
final class NotesViewModel {
    let service: NotesService
    @Injected(container: AppContainers.root) var counter: ReadCounter
    @LazyInjected(container: AppContainers.root) var lazyService: NotesService
    private(set) var titles: [String] = []

    init(service: NotesService) {
        self.service = service
    }

    func load() async {
        titles = service.titles()
        await counter.record()
    }
}

/// A Sendable value type holding an injected Sendable service: `Injected` is Sendable when its service is.
struct TitleFormatter: Sendable {
    @Injected(container: AppContainers.root) var service: NotesService

    func headline() -> String {
        service.titles().joined(separator: ", ")
    }
}

struct MainActorClientTests {
    @MainActor
    @Test func mainActorViewModelResolvesSynchronouslyOnTheMainActor() async {
        let viewModel = AppContainers.root.resolve(NotesViewModel.self)
        await viewModel.load()
        #expect(viewModel.titles == ["Groceries", "Ideas"])
        #expect(await viewModel.counter.reads == 1)
        #expect(viewModel.lazyService.titles() == ["Groceries", "Ideas"])
    }

    @Test func mainActorViewModelResolvedOffTheMainActorIsAnErrorThatSaysSo() async throws {
        // A detached task runs on the cooperative pool, never on the main actor.
        let error = await Task.detached { () -> ResolutionError? in
            do {
                _ = try AppContainers.root.resolveThrowing(NotesViewModel.self)
                return nil
            } catch let error as ResolutionError {
                return error
            } catch {
                return nil
            }
        }.value
        let failure = try #require(error)
        #expect(failure.kind == .notOnMainActor)
        #expect(failure.description.contains("NotesViewModel"))
        #expect(failure.description.contains("main actor"))
    }

    @Test func sendableValueWithInjectedServiceCrossesTasks() async {
        let formatter = TitleFormatter()
        let headline = await Task.detached { formatter.headline() }.value
        #expect(headline == "Groceries, Ideas")
    }

    @MainActor
    @Test func mainActorViewModelResolvedThroughAWrapper() {
        final class Screen {
            @Injected(container: AppContainers.root) var viewModel: NotesViewModel
        }
        let screen = Screen()
        #expect(screen.viewModel.titles.isEmpty)
    }
}
