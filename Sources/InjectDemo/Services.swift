import Inject

// The services of a small notes app. Everything is in memory so that the demo runs anywhere.

/// Fetches a path from the notes backend.
protocol HTTPClient: AnyObject, Sendable {
    func get(_ path: String) throws -> [String]
}

/// The app's one HTTP client: in-memory responses instead of a network.
final class InMemoryHTTPClient: HTTPClient {
    let baseURL: String
    private let responses: [String: [String]] = [
        "/users/alice/notes": ["Groceries", "Ideas for the talk"],
        "/users/bob/notes": ["Flight numbers"],
    ]

    init(baseURL: String) {
        self.baseURL = baseURL
    }

    func get(_ path: String) throws -> [String] {
        guard let response = responses[path] else { throw HTTPError.notFound(path) }
        return response
    }
}

enum HTTPError: Error, CustomStringConvertible {
    case notFound(String)

    var description: String {
        switch self {
        case .notFound(let path): "404 for \(path)"
        }
    }
}

/// Counts what the user does.
protocol Analytics: AnyObject, Sendable {
    func track(_ event: String)
}

final class ConsoleAnalytics: Analytics {
    func track(_ event: String) {
        print("    analytics: \(event)")
    }
}

/// Who is logged in. One per session.
final class UserSession: Sendable {
    let user: String

    init(user: String) {
        self.user = user
    }
}

/// The notes of the logged-in user.
final class NotesRepository: Sendable {
    let http: HTTPClient
    let session: UserSession

    init(http: HTTPClient, session: UserSession) {
        self.http = http
        self.session = session
    }

    func notes() throws -> [String] {
        try http.get("/users/\(session.user)/notes")
    }
}

/// The notes screen's view model: the session's repository through its initializer (its factory resolves it from
/// the session), app-wide services through property wrappers (from the app's container).
final class NotesViewModel {
    let repository: NotesRepository
    @Injected(container: NotesApp.container) var analytics: Analytics
    @OptionalInjected(container: NotesApp.container) var featureFlags: FeatureFlags?

    init(repository: NotesRepository) {
        self.repository = repository
    }

    func load() throws -> [String] {
        analytics.track("notes opened by \(repository.session.user)")
        return try repository.notes()
    }
}

/// Not registered in the demo: `@OptionalInjected` gives `nil`.
struct FeatureFlags: Sendable {
    let markdown: Bool
}

// Two services that need each other in their initializers: a cycle.
final class AuthService: Sendable {
    let refresher: TokenRefresher

    init(refresher: TokenRefresher) {
        self.refresher = refresher
    }
}

final class TokenRefresher: Sendable {
    let auth: AuthService

    init(auth: AuthService) {
        self.auth = auth
    }
}

// Services that must await to be built: registered with async factories, marked .eager(), built by warmUp().

/// The notes database: opening it awaits (a file, a migration), so its factory is async.
final class NotesDatabase: Sendable {
    let path: String

    private init(path: String) {
        self.path = path
    }

    /// Opens the database; here, a short wait stands for the disk.
    static func open(path: String) async throws -> NotesDatabase {
        try await Task.sleep(nanoseconds: 20_000_000)
        return NotesDatabase(path: path)
    }
}

/// Feature switches fetched from the backend at start-up.
final class RemoteConfig: Sendable {
    let markdownEnabled: Bool

    private init(markdownEnabled: Bool) {
        self.markdownEnabled = markdownEnabled
    }

    /// Fetches the configuration; here, a short wait stands for the network.
    static func fetch(from http: HTTPClient) async throws -> RemoteConfig {
        try await Task.sleep(nanoseconds: 30_000_000)
        return RemoteConfig(markdownEnabled: true)
    }
}

/// A search index over the notes, built from the open database.
final class SearchIndex: Sendable {
    let database: NotesDatabase

    init(database: NotesDatabase) {
        self.database = database
    }
}
