import Inject
import InjectTestSupport
import InjectTesting
import Testing

private final class NetworkClient: Sendable {}

private final class APIClient: Sendable {
    let network: NetworkClient

    init(network: NetworkClient) {
        self.network = network
    }
}

private final class ProfileViewModel: Sendable {
    let api: APIClient

    init(api: APIClient) {
        self.api = api
    }
}

private protocol Greeting: Sendable {}

private class Salutation: @unchecked Sendable {}  // @unchecked: no state
private final class FriendlySalutation: Salutation, Greeting, @unchecked Sendable {}  // @unchecked: no state

private let renamedInInitContainer = DIContainer()

/// Names its wrapper in `init`, too late: the declaration's unnamed wrapper has resolved by then.
private final class RenamedInInit: @unchecked Sendable {
    // @unchecked: its one property is set in init and never after.
    @Injected(container: renamedInInitContainer) var greeter: Greeter

    init() {
        _greeter = Injected(name: .live, container: renamedInInitContainer)
    }
}

struct ErrorMessageTests {
    @Test func aWrapperNamedInInitIsToldItsDeclarationResolvedFirst() throws {
        renamedInInitContainer.register(Greeter.self, name: .live) { EnglishGreeter() }

        let report = renamedInInitContainer.validationReport(building: { RenamedInInit() })

        let missing = try #require(report.problems(ofKind: .missingRegistration).first, "\(report)")
        #expect(missing.description.contains("registered under other names: "), "\(missing)")
        #expect(
            missing.description.contains(
                """
                an init that assigns _property = Injected(name: ...) comes too late to name it; declare it \
                @Injected(name: ...) instead.
                """
            ),
            "\(missing)"
        )
    }

    @Test func aForwardToATypeTheInstanceIsNotSaysSoInPlainWords() throws {
        let container = DIContainer()
        container.register { NetworkClient() }.implements(Greeting.self)

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(Greeting.self) }

        #expect(error.kind == .notConforming)
        #expect(error.description.contains("of type NetworkClient, is not of type Greeting"), "\(error)")
        #expect(error.description.contains("fix: make NetworkClient conform to Greeting"), "\(error)")
    }

    @Test func aForwardBrokenByAChildsRegistrationNamesThatRegistration() throws {
        let root = DIContainer()
        root.register(Salutation.self) { FriendlySalutation() }.implements(Greeting.self)
        let child = root.makeChild()
        let line = #line + 1
        child.register(Salutation.self) { Salutation() }

        let error = try #require(throws: ResolutionError.self) { try child.resolveThrowing(Greeting.self) }

        #expect(error.kind == .notConforming)
        #expect(error.description.contains("the forward reached Salutation registered at \(registeredAt(line))"))
        #expect(error.description.contains("fix: make the instance of the registration at \(registeredAt(line))"))
        #expect(root.resolve(Greeting.self) is FriendlySalutation)
    }

    @Test func anArrayOfServicesSaysResolveAllResolvesEveryRegistrationOfItsElement() throws {
        let container = DIContainer()
        container.register(NetworkClient.self) { NetworkClient() }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing([NetworkClient].self)
        }

        #expect(error.description.contains("call resolveAll(NetworkClient.self)"), "\(error)")
    }

    @Test func aMissingRegistrationNamesTheTypeAndTheName() throws {
        let container = DIContainer()

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(NetworkClient.self, name: .live)
        }

        #expect(error.kind == .notRegistered)
        #expect(error.description.contains("NetworkClient"))
        #expect(error.description.contains("live"))
        #expect(error.path.count == 1)
        #expect(error.path.first?.contains("NetworkClient") == true)
    }

    @Test func theErrorPathIsOutermostFirst() throws {
        let container = DIContainer()
        container.register(ProfileViewModel.self) { r in ProfileViewModel(api: try r.resolve()) }
        container.register(APIClient.self) { r in APIClient(network: try r.resolve()) }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(ProfileViewModel.self)
        }

        #expect(error.kind == .notRegistered)
        #expect(error.path == ["ProfileViewModel", "APIClient", "NetworkClient"])
        #expect(error.description.contains("ProfileViewModel -> APIClient -> NetworkClient"))
    }

    @Test func aMissingRegistrationNamesWhereTheAskingRegistrationWasMade() throws {
        let container = DIContainer()
        container.register(ProfileViewModel.self) { r in ProfileViewModel(api: try r.resolve()) }
        let apiLine = #line + 1
        container.register(APIClient.self) { r in APIClient(network: try r.resolve()) }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(ProfileViewModel.self)
        }

        #expect(error.description.contains("\(#fileID):\(apiLine)"))
    }

    @Test func aMissingRegistrationListsTheSameTypeUnderOtherNames() throws {
        let container = DIContainer()
        let unnamedLine = #line + 1
        container.register(NetworkClient.self) { NetworkClient() }
        let mockLine = #line + 1
        container.register(NetworkClient.self, name: .mock) { NetworkClient() }
        container.register(Widget.self, name: .live) { Widget() }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(NetworkClient.self, name: .live)
        }

        #expect(error.kind == .notRegistered)
        #expect(error.description.contains("mock"))
        #expect(error.description.contains("\(#fileID):\(mockLine)"))
        #expect(error.description.contains("\(#fileID):\(unnamedLine)"))
        #expect(!error.description.contains("Widget"))
    }

    @Test func aMissingRegistrationListsOtherNamesFromParentsToo() throws {
        let parent = DIContainer()
        parent.register(NetworkClient.self, name: .mock) { NetworkClient() }

        let error = try #require(throws: ResolutionError.self) {
            try parent.makeChild().resolveThrowing(NetworkClient.self, name: .live)
        }

        #expect(error.description.contains("mock"))
    }

    @Test func aFactorysOwnErrorIsWrappedWithTheUnderlyingError() throws {
        let container = DIContainer()
        container.register(ProfileViewModel.self) { r in ProfileViewModel(api: try r.resolve()) }
        container.register(APIClient.self) { () throws -> APIClient in
            throw FixtureError(text: "the keychain is locked")
        }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(ProfileViewModel.self)
        }

        #expect(error.kind == .factoryThrew)
        #expect(error.underlying as? FixtureError == FixtureError(text: "the keychain is locked"))
        #expect(error.description.contains("the keychain is locked"))
        #expect(error.description.contains("APIClient"))
        #expect(error.path == ["ProfileViewModel", "APIClient"])
    }

    @Test func aResolvePropertiesErrorIsWrappedWithTheUnderlyingError() throws {
        let container = DIContainer()
        container.register(APIClient.self) { APIClient(network: NetworkClient()) }
            .resolveProperties { _, _ in throw FixtureError(text: "properties failed") }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(APIClient.self)
        }

        #expect(error.kind == .factoryThrew)
        #expect(error.underlying as? FixtureError == FixtureError(text: "properties failed"))
        #expect(error.description.contains("properties failed"))
    }

    @Test func aMissingRegistrationThreeLevelsDownUnwindsThroughUserFactories() throws {
        let pastTheFailure = Counter()
        let container = DIContainer()
        container.register(ProfileViewModel.self) { r in
            let api: APIClient = try r.resolve()
            pastTheFailure.increment()
            return ProfileViewModel(api: api)
        }
        container.register(APIClient.self) { r in
            let network: NetworkClient = try r.resolve()
            pastTheFailure.increment()
            return APIClient(network: network)
        }
        container.register(NetworkClient.self) { r in
            _ = try r.resolve(Widget.self, name: .live)
            pastTheFailure.increment()
            return NetworkClient()
        }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(ProfileViewModel.self)
        }

        #expect(error.kind == .notRegistered)
        #expect(error.path.count == 4)
        #expect(Array(error.path.prefix(3)) == ["ProfileViewModel", "APIClient", "NetworkClient"])
        #expect(error.path.last?.contains("Widget") == true)
        #expect(pastTheFailure.value == 0)
    }

    @Test func aFailureIsNotCachedAndALaterFixedResolveSucceeds() throws {
        let container = DIContainer()
        container.register(APIClient.self) { r in APIClient(network: try r.resolve()) }.scope(.singleton)
        #expect(throws: ResolutionError.self) {
            try container.resolveThrowing(APIClient.self)
        }

        container.register(NetworkClient.self) { NetworkClient() }

        #expect(try container.resolveThrowing(APIClient.self) === container.resolve(APIClient.self))
    }

    final class MaybeWidget: Sendable {
        let widget: Widget?

        init(widget: Widget?) {
            self.widget = widget
        }
    }

    @Test func anOptionalDependencyThatIsNotRegisteredSuggestsOptional() throws {
        let container = DIContainer()
        container.register { r in MaybeWidget(widget: try r.resolve()) }  // infers Widget?

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(MaybeWidget.self)
        }

        #expect(error.kind == .notRegistered)
        #expect(error.description.contains("optional(Widget.self)"))
        #expect(error.description.contains("register Widget"))
    }

    final class Holder: @unchecked Sendable {
        // @unchecked: set once, by resolveProperties, before the instance is handed out.
        var logger: Logger?
    }

    @Test func aResolvePropertiesClosureThatAsksIsNamedAsTheAsker() throws {
        let container = DIContainer()
        let line = #line + 1
        container.register { Holder() }.resolveProperties { r, holder in holder.logger = try r.resolve() }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(Holder.self)
        }

        #expect(error.description.contains("asked by: Holder's resolveProperties closure, registered at"))
        #expect(error.registration == "\(#fileID):\(line)")
    }
}

private final class Database: Sendable {}
private final class SessionToken: Sendable {}
private protocol Storage: Sendable {}
extension Database: Storage {}

/// Made by `register(autowired:)`, from an async service.
private final class DatabaseReader: Sendable {
    let database: Database

    init(database: Database) {
        self.database = database
    }
}
private protocol Exporter: Sendable {}
private final class MarkdownExporter: Exporter {}

private final class SyncService: Sendable {
    init(token: SessionToken) {}
}

/// The fix of a synchronous read of an async registration that is not built says what would build it, for this one.
struct NotBuiltYetMessageTests {
    private static func register(_ scope: Scope, in container: DIContainer) {
        container.register(Database.self) { _ in
            await Task.yield()
            return Database()
        }
        .scope(scope)
        .eager()
    }

    @Test func aNamedAsyncServicesFixResolvesItByItsName() throws {
        let container = DIContainer()
        container.register(Exporter.self, name: "slow") { _ -> Exporter in
            await Task.yield()
            return MarkdownExporter()
        }
        .scope(.singleton)

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(Exporter.self, name: "slow")
        }

        #expect(error.description.contains(#"resolveAsync(Exporter.self, name: "slow")"#), "\(error)")
    }

    @Test func anEagerSingletonNotBuiltYetSaysWarmUpHasNotRunNotToMarkItEager() throws {
        let container = DIContainer()
        Self.register(.singleton, in: container)

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(Database.self) }

        #expect(error.description.contains("it is .eager(), but warmUp() has not been called yet"), "\(error)")
        #expect(error.description.contains("fix: call try await warmUp() at start-up and wait for it"), "\(error)")
        #expect(!error.description.contains("mark its registration .eager()"), "\(error)")
    }

    @Test func anEagerSingletonReadOutsideAnActiveOverrideSaysTheResolveEscapedIt() async throws {
        let container = DIContainer()
        Self.register(.singleton, in: container)

        let error = try await withOverrides(
            in: container,
            { _ in },
            operation: {
                try await container.warmUp()
                _ = container.resolve(Database.self)  // built inside the override
                // A detached task does not inherit the override: it reads the real container, never warmed up.
                return try await Task.detached { () async throws -> ResolutionError in
                    try #require(throws: ResolutionError.self) { try container.resolveThrowing(Database.self) }
                }
                .value
            }
        )

        #expect(error.description.contains("this resolve runs outside it"), "\(error)")
        #expect(error.description.contains("Task.detached"), "\(error)")
        #expect(!error.description.contains("runs under a test override"), "\(error)")
    }

    @Test func anEagerSingletonReadInsideAnOverrideBeforeItsWarmUpSaysTheOverrideStartsFresh() async throws {
        let container = DIContainer()
        Self.register(.singleton, in: container)
        try await container.warmUp()

        let error = try withOverrides(
            in: container,
            { _ in },
            operation: {
                try #require(throws: ResolutionError.self) { try container.resolveThrowing(Database.self) }
            }
        )

        #expect(error.description.contains("runs under a test override, which starts with fresh caches"), "\(error)")
        #expect(!error.description.contains("runs outside it"), "\(error)")
    }

    @Test func anEagerSingletonNotBuiltWithNoOverrideAroundDoesNotMentionOverrides() throws {
        let container = DIContainer()
        Self.register(.singleton, in: container)

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(Database.self) }

        #expect(!error.description.contains("override"), "\(error)")
    }

    @Test func anImplementsForwardIsNotNamedAsAFactoryThatAsked() throws {
        let container = DIContainer()
        container.register(Database.self) { _ in
            await Task.yield()
            return Database()
        }
        .scope(.singleton).implements(Storage.self)

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(Storage.self) }

        #expect(error.path == ["Storage", "Database"])
        #expect(error.description.contains("asked by: a resolve call outside any factory"), "\(error)")
        #expect(!error.description.contains("Storage's factory"), "\(error)")
    }

    @Test func anAutowiredServiceReadingAnUnbuiltAsyncOneIsToldToWriteItsFactoryOut() throws {
        let container = DIContainer()
        Self.register(.singleton, in: container)
        container.register(autowired: DatabaseReader.init)

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(DatabaseReader.self) }

        #expect(
            error.description.contains(
                "DatabaseReader is registered with register(autowired:), which resolves each parameter synchronously"
            ),
            "\(error)"
        )
        #expect(error.description.contains("try await r.resolveAsync(Database.self)"), "\(error)")
    }

    @Test func anEagerCachedServiceDroppedByAResetSaysSo() async throws {
        let container = DIContainer()
        Self.register(.cached, in: container)
        _ = try await container.warmUp()
        container.reset(.cached)

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(Database.self) }

        #expect(
            error.description.contains("or a reset (reset(.cached) or reset(Database.self)) dropped it"),
            "\(error)"
        )
        #expect(!error.description.contains("mark its registration .eager()"), "\(error)")
    }

    @Test func anEagerScopedServiceReadThroughAChildSaysTheChildNeedsItsOwnWarmUp() async throws {
        let app = DIContainer()
        Self.register(.scoped, in: app)
        let session = app.makeChild()
        _ = try await app.warmUp()

        let error = try #require(throws: ResolutionError.self) { try session.resolveThrowing(Database.self) }

        #expect(
            error.description.contains("each child container builds its own, in that child's own warmUp()"),
            "\(error)"
        )
        #expect(error.description.contains("each child's own, after makeChild()"), "\(error)")
        #expect(!error.description.contains("mark its registration .eager()"), "\(error)")
    }

    @Test func anEagerWeakServiceSaysWarmUpDoesNotKeepIt() async throws {
        let container = DIContainer()
        Self.register(.weak, in: container)
        await #expect(throws: StartupError.self) { try await container.warmUp() }

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(Database.self) }

        #expect(error.description.contains("warmUp() does not build it"), "\(error)")
        #expect(error.description.contains("fix: give it a scope that keeps it"), "\(error)")
        #expect(!error.description.contains("mark its registration .eager()"), "\(error)")
    }
}

/// A parent's singleton resolved through a child needs a service only that child registers.
struct OutOfReachMessageTests {
    @Test func aParentsSingletonMissingAChildOnlyServiceSaysItResolvesFromItsOwnContainer() throws {
        let app = DIContainer()
        let line = #line + 1
        app.register(SyncService.self) { r in SyncService(token: try r.resolve()) }.scope(.singleton)
        let session = app.makeChild()
        session.register(SessionToken.self) { SessionToken() }.scope(.singleton)

        let error = try #require(throws: ResolutionError.self) { try session.resolveThrowing(SyncService.self) }

        #expect(error.kind == .notRegistered)
        #expect(
            error.description.contains(
                "SyncService is .singleton, registered at \(registeredAt(line)) in a parent of the container this resolve went through, and resolves what it needs from its own container"
            ),
            "\(error)"
        )
        #expect(error.description.contains("make it .scoped, or register SessionToken in the parent"), "\(error)")
    }
}
