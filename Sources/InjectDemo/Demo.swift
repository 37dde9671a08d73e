import Inject

/// Numbers instances in the order the demo first sees them, so that "the same instance" is visible.
@MainActor var instanceNumbers: [ObjectIdentifier: Int] = [:]

@MainActor func identity(_ object: AnyObject) -> String {
    let id = ObjectIdentifier(object)
    if instanceNumbers[id] == nil {
        instanceNumbers[id] = instanceNumbers.count + 1
    }
    return "instance #\(instanceNumbers[id]!)"
}

/// Validates the wiring (in debug builds), then builds the eager services in parallel and prints the start-up
/// report: what an app does at launch.
@MainActor func runStartup(app: DIContainer) async throws {
    print("Inject demo: a notes app's composition root")
    print("  app container: HTTPClient, ConsoleAnalytics (as Analytics), NotesRepository, NotesViewModel;")
    print("  at start-up: NotesDatabase and RemoteConfig (async factories), SearchIndex; sealed")

    #if DEBUG
    print("\nvalidateAsync() at startup (debug builds)")
    let report = await makeSession(for: "validation", in: app).validationReportAsync()
    print(indented(report.description))
    #endif

    print("\nwarmUp(): the eager services, built in parallel")
    let startup = try await app.warmUp()
    print(indented(startup.description))
    let index = app.resolve(SearchIndex.self)  // built: read synchronously, like any singleton
    print("  SearchIndex -> over \(index.database.path), read synchronously once built")
}

/// `text` with every line indented by two spaces.
func indented(_ text: String) -> String {
    text.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
}

/// Resolves the app's services, two sessions and a broken wiring, and prints what it gets.
@MainActor func runDemo(app: DIContainer) throws {
    print("\nApp-wide singletons")
    let http = app.resolve(HTTPClient.self)
    let analytics = app.resolve(Analytics.self)
    print("  HTTPClient -> \(type(of: http)) \(identity(http)) for \((http as? InMemoryHTTPClient)?.baseURL ?? "?")")
    print("  Analytics  -> \(type(of: analytics)) \(identity(analytics))")

    var sessionsSeen: [(user: String, analytics: Analytics, session: UserSession, repository: NotesRepository)] = []
    for user in ["alice", "bob"] {
        print("\nSession for \(user): a child scope of the app container")
        let session = makeSession(for: user, in: app)
        let viewModel = session.resolve(NotesViewModel.self)
        let notes = try viewModel.load()
        print("  NotesViewModel loaded \(notes.count) note(s): \(notes.joined(separator: ", "))")
        print("  UserSession     -> \(viewModel.repository.session.user) \(identity(viewModel.repository.session))")
        print("  NotesRepository -> \(identity(viewModel.repository)) (.scoped: one per session)")
        print(
            "  FeatureFlags    -> \(viewModel.featureFlags.map { "\($0)" } ?? "nil (not registered; @OptionalInjected)")"
        )
        sessionsSeen.append((user, viewModel.analytics, viewModel.repository.session, viewModel.repository))
    }

    let (alice, bob) = (sessionsSeen[0], sessionsSeen[1])
    print("\nWhat the sessions share")
    print("  the same Analytics singleton in both sessions: \(alice.analytics === bob.analytics)")
    print("  the same Analytics as the app resolved:        \(alice.analytics === analytics)")
    print("  a different UserSession per session:           \(alice.session !== bob.session)")
    print("  a different NotesRepository per session:       \(alice.repository !== bob.repository)")

    print("\nA cycle, caught with resolveThrowing")
    do {
        _ = try makeBrokenContainer().resolveThrowing(AuthService.self)
        print("  (no error: unexpected)")
    } catch {
        print(indented(String(describing: error)))
    }
}
