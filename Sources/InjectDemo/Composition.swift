import Inject

/// The app's services, installed into the root container.
struct AppModule: DIModule {
    func register(in container: DIContainer) {
        container.register(HTTPClient.self) { InMemoryHTTPClient(baseURL: "https://notes.example") }
            .scope(.singleton)
        container.register { ConsoleAnalytics() }
            .scope(.singleton)
            .implements(Analytics.self)
        container.register { r in try NotesRepository(http: r.resolve(), session: r.resolve()) }
            .scope(.scoped)
        container.register { r in try NotesViewModel(repository: r.resolve()) }
        // Built at start-up by warmUp(), in parallel: two services that await, and one that needs the database.
        container.register(NotesDatabase.self) { _ in try await NotesDatabase.open(path: "notes.sqlite") }
            .scope(.singleton)
            .eager()
        container.register(RemoteConfig.self) { r in try await RemoteConfig.fetch(from: r.resolve()) }
            .scope(.singleton)
            .eager()
        container.register { r in try await SearchIndex(database: r.resolveAsync()) }
            .scope(.singleton)
            .eager()
    }
}

/// The app's root container. Property wrappers name it (a static: what a wrapper's attribute can reach); an app
/// that registers into `DIContainer.shared` can leave the `container:` argument out.
enum NotesApp {
    static let container = DIContainer()
}

/// Installs the app's services into `container` and returns it.
func makeAppContainer(_ container: DIContainer) -> DIContainer {
    container.install(AppModule())
    return container
}

/// A child scope per logged-in user, holding that user's session.
func makeSession(for user: String, in app: DIContainer) -> DIContainer {
    let session = app.makeChild()
    session.register { UserSession(user: user) }.scope(.scoped)
    return session
}

/// Wiring with a mistake in it, to show the error Inject gives.
func makeBrokenContainer() -> DIContainer {
    let container = DIContainer()
    container.register { r in try AuthService(refresher: r.resolve()) }
    container.register { r in try TokenRefresher(auth: r.resolve()) }
    return container
}
