import Inject
import InjectTestSupport
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

struct ErrorMessageTests {
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
