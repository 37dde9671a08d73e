import Foundation
import Inject
import InjectTestSupport
import InjectTesting
import Testing

// validate()'s promise: a graph it passes does not fail at run time. Each test here is a graph a new user wrote that
// an earlier validate() got wrong, and checks both what validate() says and what resolving really does.

/// Router gets its Coordinator after it is built; Coordinator's factory needs a Router.
private final class Router: @unchecked Sendable {
    // @unchecked: set once, by resolveProperties, before the instance is handed out.
    var coordinator: Coordinator?
}

private final class Coordinator: Sendable {
    let router: Router

    init(router: Router) {
        self.router = router
    }
}

/// Both sides of this cycle get the other in `resolveProperties`.
private final class Left: @unchecked Sendable {
    // @unchecked: set once, by resolveProperties, before the instance is handed out.
    var right: Right?
}

private final class Right: @unchecked Sendable {
    // @unchecked: set once, by resolveProperties, before the instance is handed out.
    var left: Left?
}

/// Registers Router and Coordinator in either order.
private func registerRouterAndCoordinator(in container: DIContainer, routerFirst: Bool) {
    let router = {
        container.register(Router.self) { Router() }
            .resolveProperties { r, router in router.coordinator = try r.resolve() }
    }
    let coordinator = { container.register(Coordinator.self) { r in Coordinator(router: try r.resolve()) } }
    if routerFirst {
        _ = router()
        _ = coordinator()
    } else {
        _ = coordinator()
        _ = router()
    }
}

private final class Cart: Sendable {}
private final class Ledger: Sendable {}
private final class Catalogue: Sendable {}

/// Built by a factory; its `@Injected` property cannot be resolved.
private final class CheckoutModel: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in init.
    @Injected var cart: Cart
}

/// Where `CheckoutModel.cart` is declared.
private let checkoutCartDeclaration = "\(#fileID):\(#line - 4)"

/// Needs a `Ledger` that is not registered: an unrelated problem validation must still report.
private final class Accounts: Sendable {
    let ledger: Ledger

    init(ledger: Ledger) {
        self.ledger = ledger
    }
}

/// A screen made with `init()`, not registered anywhere.
private final class HomeScreen {
    @Injected var catalogue: Catalogue
    @Injected var cart: Cart
}

/// A screen that is not `@MainActor`, made with `init()`, holding a main-actor service.
private final class CartScreen {
    @Injected var cart: Cart
}

private protocol CartProviding: AnyObject, Sendable {}
extension Cart: CartProviding {}

/// The same, holding it through a protocol that `implements` forwards.
private final class ForwardedCartScreen {
    @Injected var cart: any CartProviding
}

/// A `@MainActor` screen, as SwiftUI and UIKit ones are, holding a main-actor service and an async one.
@MainActor private final class MainActorCartScreen {
    @Injected var cart: Cart
    @Injected var ledger: Ledger
}

/// Holds a main-actor service it read synchronously.
private final class CartHolder: Sendable {
    let cart: Cart

    init(cart: Cart) {
        self.cart = cart
    }
}

/// A view model a session child builds; its wrapper must reach the session's `Cart`.
private final class BasketModel: @unchecked Sendable {
    // @unchecked: the wrappers are set once, in init.
    @Injected var cart: Cart
    @LazyInjected var lazyCart: Cart
}

/// Holds something through a lazy wrapper only.
private final class LazyHolder: @unchecked Sendable {
    // @unchecked: the wrapper synchronises its own first read.
    @LazyInjected var ledger: Ledger
}

/// Where `LazyHolder.ledger` is declared.
private let lazyLedgerDeclaration = "\(#fileID):\(#line - 4)"

/// Holds its ledger lazily; the ledger's factory asks for a holder.
private final class LedgerHolder: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in init, and synchronises its own first read.
    @LazyInjected var ledger: HeldLedger
}

private final class HeldLedger: Sendable {
    let holder: LedgerHolder
    init(holder: LedgerHolder) { self.holder = holder }
}

private protocol PricingService: Sendable {}
private protocol AudioService: Sendable {}
private final class LivePricing: PricingService, AudioService {}
private final class LivePricingHolder: Sendable {}

private protocol PaymentClient: Sendable {}
private final class LivePaymentClient: PaymentClient {}
private final class StubPaymentClient: PaymentClient {}
private final class CheckoutScreen: Sendable {
    let client: PaymentClient
    init(client: PaymentClient) { self.client = client }
}
private protocol WishlistStore: Sendable {}
private final class LocalWishlistStore: WishlistStore {}
private final class WishlistModel: Sendable {
    let store: any WishlistStore
    init(store: any WishlistStore) { self.store = store }
}
/// A screen made with `init()` whose wrapper has no `container:`: outside any factory it resolves through
/// `DIContainer.shared`.
private final class OrdersScreen {
    @Injected var orders: OrderBook
}
private final class OrderBook: Sendable {}
private final class SignedInUser: Sendable {}
/// An app-wide singleton that needs the signed-in user, which only a session child registers.
private final class OrderTracker: Sendable {
    let user: SignedInUser
    init(user: SignedInUser) { self.user = user }
}
private protocol ProductCatalog: Sendable {}
private final class ProductCatalogue: Sendable {}
private final class LiveProductCatalog: ProductCatalog {}
private protocol NoteStore: Sendable {}
/// Shares a word with `NoteStore`, and does not conform to it.
private final class NoteCache: Sendable {}
/// Conforms to `NoteStore`, and shares no word of its name.
private final class DiskStore: NoteStore {}
private struct MemoryStore: NoteStore {}
private final class NoteStores: NoteStore {}
private final class NotesRepository: Sendable {
    let store: any NoteStore
    init(store: any NoteStore) { self.store = store }
}
/// A protocol with a primary associated type: a request for `any NoteBag<Int>` is one whose conformers the runtime
/// cannot list.
private protocol NoteBag<Element>: Sendable {
    associatedtype Element
}
private final class NoteBagCache: Sendable {}

/// Holds a `Cart`: a captive when it outlives the Cart.
private final class CartBridge: Sendable {
    let cart: Cart

    init(cart: Cart) {
        self.cart = cart
    }
}

/// A menu of a level, whose item's submenu is the level below: recursion over argument values, not a cycle.
private final class Menu: Sendable {
    let level: Int
    let item: MenuItem?

    init(level: Int, item: MenuItem?) {
        self.level = level
        self.item = item
    }
}

private final class MenuItem: @unchecked Sendable {
    // @unchecked: `submenu` is set once, by resolveProperties, before the instance is handed out.
    let level: Int
    var submenu: Menu?

    init(level: Int) {
        self.level = level
    }
}

struct ValidationTrustTests {
    // MARK: 1. Cycles are judged for every entry point

    @Test(arguments: [true, false])
    func aCycleClosedOnOneSideOnlyIsAnErrorWhateverTheRegistrationOrder(routerFirst: Bool) throws {
        let container = DIContainer()
        registerRouterAndCoordinator(in: container, routerFirst: routerFirst)

        let report = container.validationReport()

        let cycle = try onlyProblem(ofKind: .cycle, in: report)
        #expect(cycle.severity == .error)
        #expect(
            cycle.message.contains(
                "resolving Coordinator first: Coordinator -> Router -> Coordinator (Router.resolveProperties)"
            ),
            "\(cycle)"
        )
        #expect(cycle.description.contains("resolving Router first works"), "\(cycle)")
        #expect(cycle.description.contains("resolveProperties"), "\(cycle)")
        #expect(cycle.description.contains("@LazyInjected"), "\(cycle)")
        #expect(!report.isValid)
        #expect(throws: ValidationError.self) { try container.validate() }
    }

    @Test func whatValidationSaysOfTheOneSidedCycleIsWhatResolvingDoes() throws {
        let container = DIContainer()
        registerRouterAndCoordinator(in: container, routerFirst: true)

        let router = try container.resolveThrowing(Router.self)
        #expect(router.coordinator?.router === router)
        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(Coordinator.self) }
        #expect(error.kind == .cycle)
    }

    @Test func aCycleClosedByResolvePropertiesOnEverySideIsValidAndWorksFromEitherEnd() throws {
        let container = DIContainer()
        container.register(Left.self) { Left() }.resolveProperties { r, left in left.right = try r.resolve() }
        container.register(Right.self) { Right() }.resolveProperties { r, right in right.left = try r.resolve() }

        let report = container.validationReport()

        #expect(report.untimedProblems.isEmpty, "\(report)")
        let left = try container.resolveThrowing(Left.self)
        #expect(left.right?.left === left)
        let right = try container.resolveThrowing(Right.self)
        #expect(right.left?.right === right)
        left.right?.left = nil  // the two hold each other strongly
        right.left = nil
    }

    @Test func recursionOverArgumentValuesIsNotACycle() throws {
        // Menu(2) -> MenuItem(2) -> (resolveProperties) Menu(1) -> MenuItem(1) -> Menu(0): each step another value.
        let container = DIContainer()
        container.register(Menu.self) { (r: DIResolver, level: Int) in
            Menu(level: level, item: level > 0 ? try r.resolve(MenuItem.self, argument: level) : nil)
        }
        .validationArgument(2)
        container.register(MenuItem.self) { (_: DIResolver, level: Int) in MenuItem(level: level) }
            .resolveProperties { r, item in item.submenu = try r.resolve(Menu.self, argument: item.level - 1) }
            .validationArgument(2)

        let report = container.validationReport()

        #expect(report.problems(ofKind: .cycle).isEmpty, "\(report)")
        #expect(try container.resolveThrowing(Menu.self, argument: 2).item?.submenu?.item?.submenu?.level == 0)
        #expect(try container.resolveThrowing(MenuItem.self, argument: 2).submenu?.level == 1)
    }

    @Test func aRecursionOverAnArgumentThatIsNotHashableSaysToMakeItHashable() throws {
        struct Depth: Sendable { let value: Int }  // not Hashable: its values cannot be told apart
        let container = DIContainer()
        container.register(Menu.self) { (r: DIResolver, depth: Depth) in
            _ = depth.value > 0 ? try r.resolve(Menu.self, argument: Depth(value: depth.value - 1)) : nil
            return Menu(level: depth.value, item: nil)
        }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(Menu.self, argument: Depth(value: 2))
        }

        #expect(error.kind == .cycle)
        #expect(error.description.contains("Menu takes an argument of type Depth, which is not Hashable"), "\(error)")
        #expect(error.description.contains("make Depth Hashable"), "\(error)")
    }

    @Test func aCycleThroughTheSameArgumentValueIsStillJudgedForEveryEntryPoint() throws {
        // The same value all the way round: resolving Menu first comes back to Menu(1) while its factory runs.
        let container = DIContainer()
        container.register(Menu.self) { (r: DIResolver, level: Int) in
            Menu(level: level, item: try r.resolve(MenuItem.self, argument: level))
        }
        .validationArgument(1)
        container.register(MenuItem.self) { (_: DIResolver, level: Int) in MenuItem(level: level) }
            .resolveProperties { r, item in item.submenu = try r.resolve(Menu.self, argument: item.level) }
            .validationArgument(1)

        let report = container.validationReport()

        let cycle = try onlyProblem(ofKind: .cycle, in: report)
        #expect(cycle.message.contains("resolving Menu first"), "\(cycle)")
        #expect(throws: ResolutionError.self) { try container.resolveThrowing(Menu.self, argument: 1) }
    }

    @Test func aCycleAmongFactoriesAloneIsStillReportedOnce() throws {
        let container = DIContainer()
        container.register(Coordinator.self) { r in Coordinator(router: try r.resolve()) }
        container.register(Router.self) { r in
            _ = try r.resolve(Coordinator.self)
            return Router()
        }

        let report = container.validationReport()

        let cycle = try onlyProblem(ofKind: .cycle, in: report)
        #expect(
            cycle.message.contains("Coordinator -> Router -> Coordinator")
                || cycle.message.contains("Router -> Coordinator -> Router")
        )
    }

    // MARK: 2. A wrapper that cannot resolve does not stop validation

    @Test func aWrapperFailureInsideAFactoryIsReportedWithEverythingElse() throws {
        let container = DIContainer()
        container.register(CheckoutModel.self) { CheckoutModel() }
        container.register(Accounts.self) { r in Accounts(ledger: try r.resolve()) }

        let report = container.validationReport()

        let missing = report.problems(ofKind: .missingRegistration)
        #expect(missing.count == 2, "\(report)")
        let cart = try #require(missing.first { $0.message.contains("Cart") }, "\(report)")
        #expect(cart.location == checkoutCartDeclaration, "\(cart)")
        #expect(cart.description.contains("asked by: @Injected Cart at \(checkoutCartDeclaration)"), "\(cart)")
        #expect(cart.description.contains("CheckoutModel's factory"), "\(cart)")
        #expect(missing.contains { $0.message.contains("Ledger") }, "\(report)")
        #expect(!report.isValid)
    }

    // MARK: 3. Objects nobody registers

    @Test func aScreenMadeWithInitIsValidatedThroughBuilding() throws {
        // The screen's wrappers resolve through DIContainer.shared; the override keeps this test's registration to
        // this test.
        let container = DIContainer()
        let overrides: (DIContainer) -> Void = { $0.register(Catalogue.self) { Catalogue() }.scope(.singleton) }
        try withOverrides(in: .shared, overrides) {
            let report = container.validationReport(building: { HomeScreen() })

            let missing = try onlyProblem(ofKind: .missingRegistration, in: report)
            #expect(missing.message.contains("Cart"), "\(missing)")
            #expect(missing.description.contains("asked by: @Injected Cart at"), "\(missing)")
            let graph = DrawnGraph(dot: report.dot())
            let screen = try #require(graph.node("HomeScreen"), "\(report.dot())")
            #expect(graph.edge(from: screen, to: graph.node("Catalogue", ".singleton")) != nil, "\(report.dot())")
            #expect(graph.edge(from: screen, to: graph.node("missing: Cart")) != nil, "\(report.dot())")
            #expect(throws: ValidationError.self) { try container.validate(building: { HomeScreen() }) }
        }
    }

    @Test func nothingARootBuildsSurvivesValidation() throws {
        let container = DIContainer()
        let builds = Counter()
        container.register(Catalogue.self) {
            builds.increment()
            return Catalogue()
        }
        .scope(.singleton)
        let seen = WeakReferences()

        let report = container.validationReport(building: {
            let catalogue = container.resolve(Catalogue.self)
            seen.append(catalogue)
            return catalogue
        })

        #expect(report.untimedProblems.isEmpty, "\(report)")
        #expect(seen.count == 1)
        #expect(seen.alive == 0, "an instance built under validation survived it")
        _ = container.resolve(Catalogue.self)
        #expect(builds.value == 2, "one build in validation's throwaway scope, which the root shared, and the real one")
    }

    // MARK: 5. Captive warnings compare lifetimes

    @Test func aSessionSingletonHoldingThatSessionsScopedServiceIsNotCaptive() {
        let app = DIContainer()
        app.register(Cart.self) { Cart() }.scope(.scoped)
        let session = app.makeChild()
        session.register(CartBridge.self) { r in CartBridge(cart: try r.resolve()) }.scope(.singleton)

        let report = session.validationReport()

        #expect(report.problems(ofKind: .captiveDependency).isEmpty, "\(report)")
    }

    @Test func anApplicationWideSingletonHoldingAScopedServiceStaysCaptive() throws {
        let app = DIContainer()
        app.register(Cart.self) { Cart() }.scope(.scoped)
        let bridgeLine = #line + 1
        app.register(CartBridge.self) { r in CartBridge(cart: try r.resolve()) }.scope(.singleton)

        let report = app.makeChild().validationReport()

        let captive = try onlyProblem(ofKind: .captiveDependency, in: report)
        #expect(captive.location == registeredAt(bridgeLine))
        #expect(captive.message.contains("CartBridge (.singleton) holds Cart (.scoped)"), "\(captive)")
        #expect(
            captive.description.contains("Cart is .scoped, one per child scope, but CartBridge is application-wide"),
            "\(captive)"
        )
    }

    @Test func aSingletonHoldingAServiceOfAChildScopeThroughAWrapperIsCaptive() throws {
        let app = DIContainer()
        let session = app.makeChild()
        session.register(Cart.self) { Cart() }.scope(.singleton)
        app.register(CartBridge.self) { CartBridge(cart: Injected<Cart>(container: session).wrappedValue) }
            .scope(.singleton)

        let report = app.validationReport()

        let captive = try onlyProblem(ofKind: .captiveDependency, in: report)
        #expect(captive.description.contains("when the child scope that holds Cart ends"), "\(captive)")
    }

    // MARK: 6. Wrappers resolve where a factory would

    @Test func aWrapperInitialisedInAFactoryReachesTheSessionsRegistrations() throws {
        let app = DIContainer()
        app.register(BasketModel.self) { BasketModel() }
        let session = app.makeChild()
        let cart = Cart()
        session.register(Cart.self) { cart }

        let model = try session.resolveThrowing(BasketModel.self)

        #expect(model.cart === cart)
        #expect(model.lazyCart === cart, "a lazy wrapper remembers the container it was initialised in")
        #expect(session.validationReport().untimedProblems.isEmpty, "\(session.validationReport())")
    }

    @Test func aSingletonsWrapperResolvesThroughTheSingletonsOwner() throws {
        let app = DIContainer()
        let appCart = Cart()
        app.register(Cart.self) { appCart }
        app.register(BasketModel.self) { BasketModel() }.scope(.singleton)
        let session = app.makeChild()
        session.register(Cart.self) { Cart() }

        let model = try session.resolveThrowing(BasketModel.self)

        #expect(model.cart === appCart, "a singleton never captures a child's service, through a wrapper either")
    }

    // MARK: Lazy wrappers' dependencies

    @Test func aLazyWrappersMissingDependencyIsReportedAtItsDeclaration() throws {
        let container = DIContainer()
        let holderLine = #line + 1
        container.register(LazyHolder.self) { LazyHolder() }

        let report = container.validationReport()

        let missing = try onlyProblem(ofKind: .missingRegistration, in: report)
        #expect(missing.location == lazyLedgerDeclaration, "\(missing)")
        #expect(
            missing.description.contains(
                """
                asked by: @LazyInjected Ledger at \(lazyLedgerDeclaration), initialised by LazyHolder's factory, \
                registered at \(registeredAt(holderLine))
                """
            ),
            "\(missing)"
        )
        let graph = DrawnGraph(dot: report.dot())
        #expect(graph.edge(from: graph.node("LazyHolder"), to: graph.node("missing: Ledger")) != nil, "\(report.dot())")
    }

    @Test func aCycleThroughALazyWrapperIsNotACycle() {
        let container = DIContainer()
        container.register(LazyHolder.self) { LazyHolder() }.scope(.singleton)
        container.register(Ledger.self) { r in
            _ = try r.resolve(LazyHolder.self)
            return Ledger()
        }

        let report = container.validationReport()

        #expect(report.untimedProblems.isEmpty, "\(report)")
    }

    @Test(arguments: [Scope.graph, .transient])
    func aLazyWrapperClosingACycleToAHolderThatDoesNotCacheIsAWarning(holderScope: Scope) throws {
        // The lazy read is a resolution of its own: the Ledger it builds gets a new holder, not this one.
        let container = DIContainer()
        container.register(LedgerHolder.self) { LedgerHolder() }.scope(holderScope)
        container.register(HeldLedger.self) { r in HeldLedger(holder: try r.resolve()) }

        let report = container.validationReport()

        let warning = try onlyProblem(ofKind: .cycle, in: report)
        #expect(warning.severity == .warning, "\(warning)")
        #expect(
            warning.message.hasPrefix(
                "LedgerHolder's @LazyInjected property of HeldLedger gets a HeldLedger that holds another LedgerHolder"
            ),
            "\(warning)"
        )
        #expect(warning.description.contains("fix: give LedgerHolder a caching scope"), "\(warning)")
        let holder = container.resolve(LedgerHolder.self)
        #expect(holder.ledger.holder !== holder, "what the warning says happens")
    }

    @Test func aLazyCycleToASharedServiceDoesNotOfferResolvePropertiesWhichCannotHelp() throws {
        // One singleton ledger for every holder: it can hold only one of them, however it gets it.
        let container = DIContainer()
        container.register(LedgerHolder.self) { LedgerHolder() }
        container.register(HeldLedger.self) { r in HeldLedger(holder: try r.resolve()) }.scope(.singleton)

        let report = container.validationReport()

        let warning = try onlyProblem(ofKind: .cycle, in: report)
        #expect(warning.description.contains("one HeldLedger serves every LedgerHolder"), "\(warning)")
        #expect(!warning.description.contains("resolveProperties"), "\(warning)")
    }

    @Test func aLazyWrapperClosingACycleToASingletonHolderGetsThatHolderAndIsValid() {
        let container = DIContainer()
        container.register(LedgerHolder.self) { LedgerHolder() }.scope(.singleton)
        container.register(HeldLedger.self) { r in HeldLedger(holder: try r.resolve()) }

        let report = container.validationReport()

        #expect(report.untimedProblems.isEmpty, "\(report)")
        let holder = container.resolve(LedgerHolder.self)
        #expect(holder.ledger.holder === holder)
    }

    // MARK: 7. Smaller things

    @Test func aMissingConcreteTypeNamesTheRegisteredProtocol() throws {
        let container = DIContainer()
        let line = #line + 1
        container.register(PaymentClient.self) { LivePaymentClient() }

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(LivePaymentClient.self) }

        let suggestion = """
            PaymentClient is registered at \(registeredAt(line)): did you mean to resolve the protocol, or add \
            .implements(LivePaymentClient.self) to its registration?
            """
        #expect(error.description.contains(suggestion), "\(error)")
    }

    @Test func aMissingProtocolNamesTheRegisteredConcreteType() throws {
        let container = DIContainer()
        container.register(LivePaymentClient.self) { LivePaymentClient() }

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(PaymentClient.self) }

        #expect(error.description.contains("did you mean to add .implements(PaymentClient.self)"), "\(error)")
    }

    @Test func aMissingProtocolNamesTheRegisteredTypesThatConformToItAndNoOther() throws {
        let container = DIContainer()
        container.register { r in try NotesRepository(store: r.resolve()) }
        container.register { NoteCache() }
        let diskLine = #line + 1
        container.register { DiskStore() }
        let memoryLine = #line + 1
        container.register { MemoryStore() }

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(NotesRepository.self) }

        let text = error.description
        #expect(!text.contains("NoteCache"), "NoteCache does not conform to NoteStore: \(text)")
        #expect(
            text.contains(
                """
                DiskStore is registered at \(registeredAt(diskLine)), and conforms to NoteStore: did you mean to add \
                .implements(NoteStore.self) to its registration, or to resolve DiskStore?
                """
            ),
            "\(text)"
        )
        #expect(
            text.contains("MemoryStore is registered at \(registeredAt(memoryLine)), and conforms to NoteStore"),
            "a struct conforms too: \(text)"
        )
    }

    @Test func aConformingTypeWhoseNameIsALetterFromTheProtocolsIsToldToAddImplements() throws {
        // NoteStores conforms to NoteStore: an .implements to add, not a typo.
        let container = DIContainer()
        let line = #line + 1
        container.register { NoteStores() }

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(NoteStore.self) }

        let text = error.description
        #expect(
            text.contains("NoteStores is registered at \(registeredAt(line)), and conforms to NoteStore"),
            "\(text)"
        )
        #expect(!text.contains("by a letter or two"), "\(text)")
    }

    @Test func aMissingProtocolWhoseConformersCannotBeToldNamesRelatedTypesOnlyIfTheyConform() throws {
        let container = DIContainer()
        let line = #line + 1
        container.register { NoteBagCache() }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing((any NoteBag<Int>).self)
        }

        let text = error.description
        #expect(text.contains("NoteBagCache is registered at \(registeredAt(line)): if it conforms to"), "\(text)")
        #expect(!text.contains("and conforms to"), "\(text)")
    }

    @Test func theServiceThatAsksIsNeverSuggestedAsTheOneItAsksFor() throws {
        let container = DIContainer()
        container.register(LocalWishlistStore.self) { LocalWishlistStore() }
        container.register(WishlistModel.self) { r in WishlistModel(store: try r.resolve(WishlistStore.self)) }

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(WishlistModel.self) }

        #expect(error.description.contains("LocalWishlistStore is registered at"), "\(error)")
        #expect(!error.description.contains("WishlistModel is registered at"), "the asker suggested: \(error)")
    }

    @Test func aNameThatDiffersByALetterIsSuggestedAsASlipNotAsAProtocol() throws {
        let container = DIContainer()
        let line = #line + 1
        container.register(ProductCatalog.self) { LiveProductCatalog() }

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(ProductCatalogue.self) }

        #expect(
            error.description.contains(
                "ProductCatalog is registered at \(registeredAt(line)): did you mean ProductCatalog? Its name differs"
            ),
            "\(error)"
        )
        #expect(!error.description.contains("did you mean to resolve the protocol"), "\(error)")
    }

    @Test func aMisspelledNameIsPointedOutAndTheOtherNamesComeInRegistrationOrder() throws {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 0) }
        container.register(Widget.self, name: "paypal") { Widget(serial: 1) }
        container.register(Widget.self, name: "invoice") { Widget(serial: 2) }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(Widget.self, name: "paypall")
        }

        let text = error.description
        #expect(text.contains("did you mean Widget[\"paypal\"] at"), "\(text)")
        let unnamed = try #require(text.range(of: "Widget at "))
        let paypal = try #require(text.range(of: "Widget[\"paypal\"] at "))
        let invoice = try #require(text.range(of: "Widget[\"invoice\"] at "))
        #expect(unnamed.lowerBound < paypal.lowerBound && paypal.lowerBound < invoice.lowerBound, "\(text)")
    }

    @Test func aScreenWhoseWrapperGoesThroughTheSharedContainerSaysSoWhenTheValidatedOneRegistersTheService() {
        let app = DIContainer()
        let line = #line + 1
        app.register(OrderBook.self) { OrderBook() }
        let session = app.makeChild()

        let report = session.validationReport(building: { OrdersScreen() })

        let text = report.untimedProblems.map(\.description).joined(separator: "\n")
        #expect(
            text.contains(
                "OrderBook is registered at \(registeredAt(line)), in the validated container or a parent, but this request went through DIContainer.shared"
            ),
            "\(report)"
        )
        #expect(text.contains("fix: make the object in a factory of the container"), "\(report)")
        #expect(!text.contains("register OrderBook in this container or one of its parents"), "\(report)")
    }

    @Test func aParentsSingletonThatNeedsAChildsServiceSaysWhyItCannotSeeIt() {
        let app = DIContainer()
        let trackerLine = #line + 1
        app.register(OrderTracker.self) { r in OrderTracker(user: try r.resolve()) }.scope(.singleton)
        let session = app.makeChild()
        session.register(SignedInUser.self) { SignedInUser() }

        let report = session.validationReport()

        let text = report.untimedProblems.map(\.description).joined(separator: "\n")
        #expect(
            text.contains(
                "but OrderTracker is .singleton, registered at \(registeredAt(trackerLine)) in a parent of the validated container"
            ),
            "\(report)"
        )
        #expect(text.contains("fix: register OrderTracker in the container that registers SignedInUser"), "\(report)")
    }

    @Test func aParentsRegistrationThatTheValidatedChildReplacesIsNeitherBuiltNorJudged() throws {
        let app = DIContainer()
        let liveBuilds = Counter()
        app.register(PaymentClient.self) { r in
            liveBuilds.increment()
            _ = try r.resolve(Ledger.self)  // registered nowhere: the live client cannot be built
            return LivePaymentClient()
        }
        app.register { r in CheckoutScreen(client: try r.resolve()) }
        let preview = app.makeChild()
        preview.register(PaymentClient.self) { StubPaymentClient() }

        let report = preview.validationReport()

        #expect(report.isValid, "no resolve through the child reaches the app's client: \(report)")
        #expect(liveBuilds.value == 0)
        #expect(preview.resolve(CheckoutScreen.self).client is StubPaymentClient)
    }

    @Test func aReplacedParentRegistrationThatAParentsSingletonStillReachesIsJudgedThroughIt() throws {
        let app = DIContainer()
        app.register(PaymentClient.self) { r in
            _ = try r.resolve(Ledger.self)
            return LivePaymentClient()
        }
        app.register { r in CheckoutScreen(client: try r.resolve()) }.scope(.singleton)
        let preview = app.makeChild()
        preview.register(PaymentClient.self) { StubPaymentClient() }

        let report = preview.validationReport()

        let problem = try onlyProblem(ofKind: .missingRegistration, in: report)
        #expect(problem.description.contains("path: CheckoutScreen -> PaymentClient -> Ledger"), "\(problem)")
        #expect(throws: ResolutionError.self) { try preview.resolveThrowing(CheckoutScreen.self) }
    }

    @Test func aParentsSingletonWhoseLazyPropertyNeedsAChildsServiceSaysWhyItCannotSeeIt() throws {
        let app = DIContainer()
        app.register(LazyHolder.self) { LazyHolder() }.scope(.singleton)
        let session = app.makeChild()
        session.register(Ledger.self) { Ledger() }

        let report = session.validationReport()

        let problem = try onlyProblem(ofKind: .missingRegistration, in: report)
        #expect(problem.description.contains("but this request went through a parent of the validated container"))
        #expect(
            problem.description.contains("fix: register the object that holds the property in the container that"),
            "\(problem)"
        )
        #expect(!problem.description.contains("register Ledger in this container or one of its parents"))
    }

    @Test func aServiceMissingEverywhereKeepsThePlainFix() {
        let app = DIContainer()
        app.register(OrderTracker.self) { r in OrderTracker(user: try r.resolve()) }.scope(.singleton)

        let report = app.makeChild().validationReport()

        let text = report.untimedProblems.map(\.description).joined(separator: "\n")
        #expect(text.contains("fix: register SignedInUser in this container or one of its parents."), "\(report)")
    }

    @Test func aConformerThatAlreadyImplementsTheProtocolUnderANameIsNotToldToAddImplements() throws {
        let container = DIContainer()
        container.register(LivePricing.self) { LivePricing() }.scope(.singleton).implements(
            PricingService.self,
            name: "live"
        )

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(PricingService.self) }

        #expect(error.description.contains("PricingService[\"live\"]"), "the name it is registered under: \(error)")
        #expect(!error.description.contains("did you mean to add .implements(PricingService.self)"), "\(error)")
    }

    @Test func aHintNamesOnlyAProtocolOrAConcreteTypeThatSharesAWordOfItsName() throws {
        let container = DIContainer()
        container.register(PricingService.self) { LivePricing() }
        container.register(LivePricingHolder.self) { LivePricingHolder() }
        container.register(AudioService.self) { LivePricing() }

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(LivePricing.self) }

        #expect(error.description.contains("PricingService is registered at"), "\(error)")
        #expect(!error.description.contains("LivePricingHolder is registered at"), "two concrete types: \(error)")
        #expect(!error.description.contains("AudioService is registered at"), "only a common word shared: \(error)")
    }

    @Test func optionalWithAnArgumentIsNilOnlyWhenNothingIsRegistered() throws {
        let container = DIContainer()
        #expect(container.optional(Widget.self, argument: 3) == nil)
        container.register(Widget.self) { (_: DIResolver, serial: Int) in Widget(serial: serial) }

        #expect(container.optional(Widget.self, argument: 3)?.serial == 3)
        container.register(Gadget.self) { r in Gadget(widget: try r.optional(Widget.self, argument: 4) ?? Widget()) }
        #expect(container.resolve(Gadget.self).widget.serial == 4)
    }

    @Test func theSummaryLineAgreesWithItsCounts() {
        let container = DIContainer()
        container.register(Accounts.self) { r in Accounts(ledger: try r.resolve()) }

        let report = container.validationReport()
        let summary = report.description.split(separator: "\n")[0]

        let warnings = report.problems(ofKind: .slowFactory).count  // on a busy machine
        #expect(summary == "checked 1 registration: 1 error, \(warnings) warning\(warnings == 1 ? "" : "s")")
    }

    @Test func factoriesThatRoundToNothingAreNotListedAsSlowest() {
        let container = DIContainer()
        container.register(Cart.self) { Cart() }

        let report = container.validationReport()

        #expect(!report.description.contains("0.0 ms"), "\(report)")
        #expect(!report.description.contains("slowest registrations"), "\(report)")
    }
}

/// One declaration, a dependency per specialisation: a lazy check per type, not per line.
private final class LazyBox<Dependency>: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in init, and synchronises its own first read.
    @LazyInjected var dependency: Dependency
}

/// Reads its box's lazy ledger while it is built.
private final class LedgerLauncher: Sendable {
    init(box: LazyBox<Ledger>) {
        _ = box.dependency
    }
}

/// A lazy property whose name is only known in `init`.
private final class NamedLazyBox: @unchecked Sendable {
    // @unchecked: set once, in init.
    let store: LazyInjected<Ledger>

    init(source: DIContainer.Name) {
        store = LazyInjected(name: source)
    }
}

struct ValidationQuietnessTests {
    @Test func aLazyReadOfAnAsyncSingletonNothingBuildsFirstIsReportedAtThePropertysDeclaration() async throws {
        let container = DIContainer()
        container.register(Ledger.self) { (_: DIResolver) async in Ledger() }.scope(.singleton)
        container.register { LazyBox<Ledger>() }

        let report = await container.validationReportAsync()

        let problem = try #require(report.errors.first, "\(report)")
        #expect(problem.kind == .invalidRegistration, "something is registered: \(problem)")
        #expect(problem.location.hasPrefix("InjectTests/ValidationTrustTests.swift:"), "\(problem)")
        #expect(problem.description.contains("asked by: @LazyInjected Ledger at"), "\(problem)")
        #expect(!problem.description.contains("a resolve call outside any factory"), "\(problem)")
    }

    @Test func eachSpecialisationOfAGenericHoldersLazyPropertyIsChecked() throws {
        let container = DIContainer()
        container.register(Cart.self) { Cart() }
        container.register { LazyBox<Cart>() }
        container.register { LazyBox<Ledger>() }  // nothing registers Ledger

        let report = container.validationReport()

        let problem = try onlyProblem(ofKind: .missingRegistration, in: report)
        #expect(problem.message.contains("nothing is registered for Ledger"), "\(problem)")
    }

    @Test func eachNameALazyWrapperMadeInInitAsksForIsChecked() throws {
        let container = DIContainer()
        container.register(Ledger.self, name: "primary") { Ledger() }
        container.register(NamedLazyBox.self, name: "primary") { NamedLazyBox(source: "primary") }
        container.register(NamedLazyBox.self, name: "backup") { NamedLazyBox(source: "backup") }

        let report = container.validationReport()

        let problem = try onlyProblem(ofKind: .missingRegistration, in: report)
        #expect(problem.message.contains("nothing is registered for Ledger named \"backup\""), "\(problem)")
    }

    @Test func validationRunsNoOnReleaseForGraphOrTransientInstances() {
        let container = DIContainer()
        let released = Counter()
        container.register(Widget.self) { Widget() }.onRelease { _ in released.increment() }
        container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }
            .scope(.transient)
            .onRelease { _ in released.increment() }
        container.register(Point.self) { Point(x: 1, y: 1) }.scope(.cached).onRelease { _ in released.increment() }

        _ = container.validationReport()

        #expect(released.value == 1, "only the .cached instance validation built is released when it ends")
    }

    @Test func aRegistrationReplacedFromAnotherPlaceInTheSameContainerIsAWarning() throws {
        let container = DIContainer()
        let firstLine = #line + 1
        container.register(Widget.self) { Widget(serial: 1) }
        let secondLine = #line + 1
        container.register(Widget.self) { Widget(serial: 2) }
        for _ in 0..<2 {
            container.register(Gadget.self) { Gadget(widget: Widget()) }  // the same code twice: not flagged
        }

        let report = container.validationReport()

        let warning = try onlyProblem(ofKind: .invalidRegistration, in: report)
        #expect(warning.severity == .warning)
        #expect(warning.location == registeredAt(secondLine))
        #expect(
            warning.message.contains(
                "Widget is registered twice in the same container: at \(registeredAt(firstLine)), then \(registeredAt(secondLine)); the last one wins."
            ),
            "\(warning)"
        )
        #expect(warning.description.contains("to replace it in a test, use withOverrides"), "\(warning)")
        #expect(report.isValid)
    }

    @Test(arguments: [Scope.singleton, .cached, .scoped, .weak])
    func theSameCodeRegisteringAgainAfterItsInstanceWasBuiltIsAWarning(scope: Scope) throws {
        // A module installed by two features, the first of which resolved what it registers in between.
        let container = DIContainer()
        let registrationLine = #line + 2
        func installCore() {
            container.register(Widget.self) { Widget(serial: 1) }.scope(scope)
        }
        installCore()
        let first = container.resolve(Widget.self)
        installCore()

        let report = container.validationReport()

        let warning = try onlyProblem(ofKind: .invalidRegistration, in: report)
        #expect(warning.location == registeredAt(registrationLine))
        #expect(warning.message.contains("Widget (\(scope)) was registered again at"), "\(warning)")
        #expect(warning.description.contains("the app has two"), "\(warning)")
        #expect(report.isValid)
        #expect(container.resolve(Widget.self) !== first, "what the warning says: a second instance")
    }

    @Test func theSameCodeRegisteringAgainBeforeAnythingWasBuiltIsNotFlagged() {
        let container = DIContainer()
        for _ in 0..<2 {
            container.register(Widget.self) { Widget(serial: 1) }.scope(.singleton)
        }

        #expect(container.validationReport().untimedProblems.isEmpty)
    }

    @Test func aTypeRegisteredThreeTimesIsOneWarningThatListsEveryPlaceInOrder() throws {
        let container = DIContainer()
        let firstLine = #line + 1
        container.register(Widget.self) { Widget(serial: 1) }
        let secondLine = #line + 1
        container.register(Widget.self) { Widget(serial: 2) }
        let thirdLine = #line + 1
        container.register(Widget.self) { Widget(serial: 3) }

        let report = container.validationReport()

        let warning = try onlyProblem(ofKind: .invalidRegistration, in: report)
        #expect(warning.location == registeredAt(thirdLine))
        #expect(
            warning.message.contains(
                """
                Widget is registered 3 times in the same container: at \(registeredAt(firstLine)), \
                \(registeredAt(secondLine)), then \(registeredAt(thirdLine)); the last one wins.
                """
            ),
            "\(warning)"
        )
        #expect(report.isValid)
    }

    @Test(arguments: [false, true])
    func aProtocolRegisteredDirectlyAndThroughImplementsIsAWarningInEitherOrder(directFirst: Bool) throws {
        let container = DIContainer()
        var lines: [Int] = []
        for step in directFirst ? ["direct", "forward"] : ["forward", "direct"] {
            if step == "direct" {
                lines.append(#line + 1)
                container.register(PricingService.self) { LivePricing() }
            } else {
                lines.append(#line + 1)
                container.register(LivePricing.self) { LivePricing() }.implements(PricingService.self)
            }
        }

        let report = container.validationReport()

        let warning = try onlyProblem(ofKind: .invalidRegistration, in: report)
        #expect(warning.severity == .warning)
        #expect(
            warning.message.contains("PricingService is registered twice in the same container: at"),
            "\(warning)"
        )
        #expect(warning.message.contains(".implements(PricingService.self) on LivePricing"), "\(warning)")
        #expect(warning.location == registeredAt(lines[1]), "the one that replaced the other")
    }

    @Test func aRegistrationReplacedWithItsImplementsIsOneWarningNotOneForEachForward() throws {
        let container = DIContainer()
        container.register(LivePricing.self) { LivePricing() }.implements(PricingService.self)
        container.register(LivePricing.self) { LivePricing() }.implements(PricingService.self)

        let report = container.validationReport()

        let warning = try onlyProblem(ofKind: .invalidRegistration, in: report)
        #expect(warning.message.contains("LivePricing is registered twice"), "\(warning)")
    }

    @Test func aSampleArgumentOnARegistrationThatTakesNoneBlamesTheSample() throws {
        let container = DIContainer()
        let line = #line + 1
        container.register(Cart.self) { Cart() }.validationArgument(5)

        let report = container.validationReport()

        let problem = try #require(report.untimedProblems.first, "\(report)")
        #expect(problem.severity == .error)
        #expect(problem.location == registeredAt(line))
        #expect(
            problem.message.contains("takes no argument, but is given a validationArgument sample of type Int"),
            "\(problem)"
        )
        #expect(problem.description.contains("asked by: validate(), with the sample"), "\(problem)")
        #expect(problem.description.contains("fix: remove .validationArgument(...)"), "\(problem)")
        #expect(!problem.description.contains("a resolve call outside any factory"), "\(problem)")
    }

    @Test(arguments: [Scope.transient, .graph, .weak])
    func anOnReleaseThatCanNeverRunIsAWarning(scope: Scope) throws {
        let container = DIContainer()
        let line = #line + 1
        container.register(Cart.self) { Cart() }.scope(scope).onRelease { _ in }

        let report = container.validationReport()

        let warning = try onlyProblem(ofKind: .invalidRegistration, in: report)
        #expect(warning.severity == .warning)
        #expect(warning.location == registeredAt(line))
        #expect(
            warning.message.contains("Cart has an onRelease closure that never runs: it is registered \(scope)."),
            "\(warning)"
        )
        #expect(warning.description.contains("fix: register it .cached, .scoped or in a custom scope"), "\(warning)")
    }

    @Test(arguments: [Scope.singleton, .cached, .scoped, .session])
    func anOnReleaseOnAScopeThatReleasesIsNotFlagged(scope: Scope) {
        let container = DIContainer()
        container.register(Cart.self) { Cart() }.scope(scope).onRelease { _ in }

        #expect(container.validationReport().untimedProblems.isEmpty)
    }

    @Test func anAsyncFactoryReadingAMainActorServiceSynchronouslyIsAnError() async throws {
        let container = DIContainer()
        container.register(Cart.self, mainActorFactory: { _ in Cart() })
        let line = #line + 1
        container.register(Ledger.self) { (r: DIResolver) async throws in
            _ = try r.resolve(Cart.self)  // an async factory never runs on the main actor: this always fails
            return Ledger()
        }

        let report = await container.validationReportAsync()

        let problem = try #require(report.errors.first, "\(report)")
        #expect(problem.location == registeredAt(line), "\(problem)")
        #expect(problem.message.contains("an async factory never runs on the main actor"), "\(problem)")
        #expect(problem.description.contains("try await r.resolveAsync(Cart.self)"), "\(problem)")
        let error = try await #require(throws: ResolutionError.self) { try await container.resolveAsync(Ledger.self) }
        #expect(error.kind == .notOnMainActor)
    }

    @Test(arguments: [false, true])
    func anAsyncFactoryReadingACachedMainActorServiceSynchronouslyIsAWarningWhateverValidationBuiltFirst(
        builtBefore: Bool
    ) async throws {
        let container = DIContainer()
        container.register(Cart.self, mainActorFactory: { _ in Cart() }).scope(.singleton)
        if builtBefore {
            // Validation builds async registrations first: this one hops to the main actor and builds Cart there,
            // before Ledger's factory reads it.
            container.register(Catalogue.self) { (r: DIResolver) async throws in
                _ = try await r.resolveAsync(Cart.self)
                return Catalogue()
            }
        }
        container.register(Ledger.self) { (r: DIResolver) async throws in
            _ = try r.resolve(Cart.self)  // works once Cart is built, on the main actor
            return Ledger()
        }

        let report = await container.validationReportAsync()

        #expect(report.isValid, "a cached main-actor service read once it is built works: \(report)")
        let warning = try #require(report.warnings.first { $0.service == "Cart" }, "\(report)")
        #expect(warning.message.contains("this fails unless Cart was built before, on the main actor"), "\(warning)")
        #expect(warning.description.contains("try await r.resolveAsync(Cart.self)"), "\(warning)")
        await #expect(throws: ResolutionError.self) { try await container.resolveAsync(Ledger.self) }
        _ = try await container.resolveAsync(Cart.self)
        _ = try await container.resolveAsync(Ledger.self)
    }

    @Test(arguments: [Scope.graph, .singleton])
    func aScreenGivenToValidateAsyncIsMadeOnTheMainActorWhereItMayReadMainActorServices(scope: Scope) async {
        // The screens' wrappers resolve through DIContainer.shared; the override keeps these registrations to this
        // test. An app makes its screens on the main actor, and so does validateAsync(building:).
        await withOverrides(in: .shared) {
            $0.register(Cart.self, mainActorFactory: { _ in Cart() }).scope(scope).implements(CartProviding.self)
            $0.register(Ledger.self) { () async throws -> Ledger in Ledger() }.scope(.singleton).eager()
        } operation: {
            let report = await DIContainer.shared.validationReportAsync(
                building: { CartScreen() },
                { ForwardedCartScreen() },
                { MainActorCartScreen() }
            )

            #expect(report.problems.isEmpty, "\(report)")
        }
    }

    @Test @MainActor func anAppWithAsyncFactoriesAndAMainActorScreenValidatesWithExpectValidAsync() async {
        let report = await withOverrides(in: .shared) {
            $0.register(Cart.self, mainActorFactory: { _ in Cart() }).scope(.singleton)
            $0.register(Ledger.self) { () async throws -> Ledger in Ledger() }.scope(.singleton).eager()
        } operation: {
            await expectValidAsync(.shared, building: { MainActorCartScreen() })
        }
        #expect(report.problems.isEmpty, "\(report)")
    }

    @Test func theFixForANamedMainActorServiceReadSynchronouslyNamesIt() async throws {
        let container = DIContainer()
        container.register(CartProviding.self, name: "ui", mainActorFactory: { _ in Cart() })
        container.register(Ledger.self) { (r: DIResolver) async throws in
            _ = try r.resolveAll(CartProviding.self)
            return Ledger()
        }

        let report = await container.validationReportAsync()

        let error = try #require(report.errors.first, "\(report)")
        #expect(error.description.contains("r.resolveAsync(CartProviding.self, name: \"ui\")"), "\(error)")
    }

    @Test func anAsyncFactoryReadingAMainActorServiceWithResolveAsyncIsValid() async throws {
        let container = DIContainer()
        container.register(Cart.self, mainActorFactory: { _ in Cart() })
        container.register(Ledger.self) { (r: DIResolver) async throws in
            _ = try await r.resolveAsync(Cart.self)
            return Ledger()
        }

        let report = await container.validationReportAsync()

        #expect(report.isValid, "\(report)")
        _ = try await container.resolveAsync(Ledger.self)
    }

    @Test(arguments: [Scope.graph, .transient])
    func anAsyncFactoryReachingAMainActorServiceThroughASynchronousOneIsAnError(middle: Scope) async throws {
        let container = DIContainer()
        container.register(Cart.self, mainActorFactory: { _ in Cart() })
        container.register(Catalogue.self) { r in
            _ = try r.resolve(Cart.self)
            return Catalogue()
        }
        .scope(middle)
        let line = #line + 1
        container.register(Ledger.self) { (r: DIResolver) async throws in
            await Task.yield()
            _ = try r.resolve(Catalogue.self)  // built here, off the main actor, every time
            return Ledger()
        }

        let report = await container.validationReportAsync()

        let problem = try #require(report.errors.first { $0.service == "Cart" }, "\(report)")
        #expect(problem.location == registeredAt(line), "\(problem)")
        #expect(problem.message.contains("resolves it synchronously through Catalogue"), "\(problem)")
        #expect(problem.message.contains("this fails whoever resolves Ledger"), "\(problem)")
        let error = try await #require(throws: ResolutionError.self) {
            try await MainActor.run { Task { try await container.resolveAsync(Ledger.self) } }.value
        }
        #expect(error.kind == .notOnMainActor)
    }

    @Test @MainActor func anAsyncFactoryReachingAMainActorServiceThroughASingletonIsAWarning() async throws {
        let container = DIContainer()
        container.register(Cart.self, mainActorFactory: { _ in Cart() })
        container.register(Catalogue.self) { r in
            _ = try r.resolve(Cart.self)
            return Catalogue()
        }
        .scope(.singleton)
        container.register(Ledger.self) { (r: DIResolver) async throws in
            await Task.yield()
            _ = try r.resolve(Catalogue.self)
            return Ledger()
        }

        let report = await container.validationReportAsync()

        // Catalogue could be built first, on the main actor; then Ledger's factory reads it without building it.
        let problem = try #require(report.warnings.first { $0.service == "Cart" }, "\(report)")
        #expect(problem.message.contains("this fails unless Catalogue was built before, on the main actor"))
        #expect(report.isValid, "\(report)")
        _ = container.resolve(Catalogue.self)
        _ = try await container.resolveAsync(Ledger.self)
    }

    @Test @MainActor func anEagerServiceReachingAMainActorServiceThroughASynchronousOneIsAnError() async throws {
        let container = DIContainer()
        container.register(Cart.self, mainActorFactory: { _ in Cart() })
        container.register(Catalogue.self) { r in
            _ = try r.resolve(Cart.self)
            return Catalogue()
        }
        let line = #line + 1
        container.register(Ledger.self) { r in
            _ = try r.resolve(Catalogue.self)
            return Ledger()
        }
        .scope(.singleton).eager()

        let report = container.validationReport()

        let problem = try #require(report.errors.first { $0.service == "Ledger" }, "\(report)")
        #expect(problem.location == registeredAt(line), "\(problem)")
        #expect(problem.message.contains("Ledger resolves Cart through Catalogue"), "\(problem)")
        #expect(problem.description.contains("warmUp() builds synchronous factories off the main actor"))
        #expect(!(await container.validationReportAsync()).isValid)
        await #expect(throws: StartupError.self) { try await container.warmUp() }
    }

    final class Database: @unchecked Sendable {
        // @unchecked: set once by resolveProperties, before the instance is handed out.
        var engine: SyncEngine?
    }

    final class SyncEngine: @unchecked Sendable {
        // @unchecked: set once by resolveProperties, before the instance is handed out.
        var database: Database?
    }

    @Test(arguments: [false, true])
    func aResolvePropertiesCycleThatReadsAnAsyncServiceSynchronouslyIsJudgedFromTheSynchronousSide(
        asyncFirst: Bool
    ) async throws {
        // Entered at Database it works (the engine gets Database back); entered at SyncEngine, its
        // resolveProperties reads Database before anything built it. Whatever the registration order.
        let container = DIContainer()
        func registerDatabase() {
            container.register { () async throws -> Database in Database() }.scope(.singleton)
                .resolveProperties { r, database in database.engine = try r.resolve() }
        }
        func registerEngine() {
            container.register { SyncEngine() }.scope(.singleton)
                .resolveProperties { r, engine in engine.database = try r.resolve() }
        }
        if asyncFirst {
            registerDatabase()
            registerEngine()
        } else {
            registerEngine()
            registerDatabase()
        }

        let report = await container.validationReportAsync()

        #expect(!report.isValid, "\(report)")
        #expect(report.errors.contains { $0.message.contains("Database") && $0.message.contains("read synchronously") })
        let error = try await #require(throws: ResolutionError.self) {
            try await container.resolveAsync(SyncEngine.self)
        }
        #expect(error.description.contains("Database"))
    }

    @Test func aMixedCycleThroughAnAsyncFactoryIsNotToldToUseResolveProperties() async throws {
        // Database awaits its engine; the engine's resolveProperties reads Database back, synchronously.
        let container = DIContainer()
        container.register { r async throws -> Database in
            _ = try await r.resolveAsync(SyncEngine.self)
            return Database()
        }
        .scope(.singleton)
        container.register { SyncEngine() }.scope(.singleton)
            .resolveProperties { r, engine in engine.database = try r.resolve() }

        let report = await container.validationReportAsync()

        let errors = report.errors.map(\.description).joined(separator: "\n")
        #expect(!report.isValid, "\(report)")
        #expect(errors.contains("resolveProperties cannot close this one: it runs synchronously"), "\(report)")
        #expect(!errors.contains("make every step of the cycle a resolveProperties step"), "\(report)")
        #expect(!errors.contains("or get the other in resolveProperties"), "\(report)")
    }

    @Test func theSameCycleWithTheAsyncServiceEagerIsValidAndWarmUpBuildsIt() async throws {
        let container = DIContainer()
        container.register { () async throws -> Database in Database() }.scope(.singleton).eager()
            .resolveProperties { r, database in database.engine = try r.resolve() }
        container.register { SyncEngine() }.scope(.singleton)
            .resolveProperties { r, engine in engine.database = try r.resolve() }

        let report = await container.validationReportAsync()

        #expect(report.isValid, "\(report)")
        try await container.warmUp()
        let engine = container.resolve(SyncEngine.self)
        #expect(engine.database === container.resolve(Database.self))
    }

    @Test func aReadOfAnAsyncServiceThatAnEagerServiceAwaitsIsValidSinceWarmUpBuildsItToo() async throws {
        // Ledger is not eager, but Catalogue is and awaits it: warmUp() builds both, before the later reads.
        let container = DIContainer()
        container.register(LazyBox<Ledger>.self) { LazyBox<Ledger>() }.scope(.singleton)
        container.register { r in Accounts(ledger: try r.resolve()) }
        container.register { () async -> Ledger in Ledger() }.scope(.singleton)
        container.register { r async throws -> Catalogue in
            _ = try await r.resolveAsync(Ledger.self)
            return Catalogue()
        }
        .scope(.singleton).eager()

        let report = await container.validationReportAsync()

        #expect(report.isValid, "\(report)")
        let startup = try await container.warmUp()
        #expect(startup.builds.map(\.service).sorted() == ["Catalogue", "Ledger"])
        #expect(container.resolve(LazyBox<Ledger>.self).dependency === container.resolve(Accounts.self).ledger)
    }

    @Test(arguments: [false, true])
    func aLazyReadInsideABuildThatWarmUpRunsIsAnErrorAsItMayComeFirst(launcherIsEager: Bool) async throws {
        // warmUp() builds LedgerLauncher and Ledger at the same time: the lazy read in the launcher's factory may
        // come before Ledger is built, and it traps. Read after warmUp(), by a service it does not build, it works.
        let container = DIContainer()
        container.register { () async -> Ledger in Ledger() }.scope(.singleton).eager()
        container.register { LazyBox<Ledger>() }
        let launcher = container.register { r in LedgerLauncher(box: try r.resolve()) }.scope(.singleton)
        if launcherIsEager {
            launcher.eager()
        }

        let report = await container.validationReportAsync()

        if launcherIsEager {
            let error = try #require(report.errors.first, "\(report)")
            #expect(
                error.message.contains("read inside LedgerLauncher's factory, reaches it: warmUp() runs that factory"),
                "\(error)"
            )
            #expect(error.description.contains("the read: @LazyInjected Ledger at"), "\(error)")
            #expect(error.description.contains("first get Ledger with try r.resolve(Ledger.self)"), "\(error)")
        } else {
            #expect(report.isValid, "\(report)")
        }
    }

    @Test func aLazyReadOfWhatItsHoldersOwnAsyncFactoryAwaitedIsValid() async throws {
        // The holder exists only once its factory awaited Ledger: its lazy read comes after Ledger was built.
        let container = DIContainer()
        container.register { () async -> Ledger in Ledger() }.scope(.singleton)
        container.register { r async throws -> LazyBox<Ledger> in
            _ = try await r.resolveAsync(Ledger.self)
            return LazyBox<Ledger>()
        }
        .scope(.singleton)

        let report = await container.validationReportAsync()

        #expect(report.isValid, "\(report)")
        let holder = try await container.resolveAsync(LazyBox<Ledger>.self)
        #expect(holder.dependency === container.resolve(Ledger.self))
    }

    @Test(arguments: [false, true])
    func aLazyReadOfAnEagerAsyncServiceHeldByAnAsyncOneIsValidWhateverTheOrder(holderFirst: Bool) async throws {
        // The lazy property is read after warmUp() built the eager service, whichever async registration validation
        // happened to build first.
        // Validation builds in the order of the registrations' lines: the holder's line comes first or last.
        let container = DIContainer()
        if holderFirst {
            container.register { () async -> LazyBox<Ledger> in LazyBox<Ledger>() }.scope(.singleton)
        }
        container.register { () async -> Ledger in Ledger() }.scope(.singleton).eager()
        if !holderFirst {
            container.register { () async -> LazyBox<Ledger> in LazyBox<Ledger>() }.scope(.singleton)
        }

        let report = await container.validationReportAsync()

        #expect(report.isValid, "\(report)")
        try await container.warmUp()
        let holder = try await container.resolveAsync(LazyBox<Ledger>.self)
        #expect(holder.dependency === container.resolve(Ledger.self))
    }

    @Test func anAsyncFactoryThatAwaitsIsNotASlowFactory() async throws {
        let container = DIContainer()
        container.register(Widget.self) { _ in
            try await Task.sleep(nanoseconds: 80_000_000)
            return Widget()
        }
        .scope(.singleton)

        let report = await container.validationReportAsync()

        #expect(report.untimedProblems.isEmpty, "\(report)")
    }
}

/// Validation under a test override: it checks what a resolve in that test would build, the override's
/// registrations, and never runs the real factories they replace.
struct ValidationUnderOverrideTests {
    @Test func validationBuildsTheOverridesRegistrationsNotTheRealOnesTheyShadow() async throws {
        let container = DIContainer()
        let realRuns = Collector<String>()
        let stubRuns = Collector<String>()
        let realLedgerLine = #line + 1
        container.register(Ledger.self) { _ in
            realRuns.append("Ledger")  // stands for a real Task.sleep or network call
            await Task.yield()
            return Ledger()
        }
        .scope(.singleton)
        let realCartLine = #line + 1
        container.register(Cart.self) {
            realRuns.append("Cart")
            return Cart()
        }
        .scope(.singleton)
        container.register(Catalogue.self) { r in
            _ = try r.resolve(Cart.self)
            return Catalogue()
        }

        let (syncReport, asyncReport) = await withOverrides(in: container) {
            $0.register(Ledger.self) {
                stubRuns.append("Ledger")
                return Ledger()
            }
            .scope(.singleton)
            $0.register(Cart.self) {
                stubRuns.append("Cart")
                return Cart()
            }
            .scope(.singleton)
        } operation: {
            (container.validationReport(), await container.validationReportAsync())
        }

        #expect(realRuns.values.isEmpty, "a replaced factory never runs, not even in validation")
        #expect(Set(stubRuns.values) == ["Ledger", "Cart"], "the override's registrations are what is checked")
        for report in [syncReport, asyncReport] {
            #expect(report.isValid, "\(report)")
            #expect(report.checkedCount == 3, "\(report)")
            let timed = report.buildTimes.map(\.location)
            #expect(!timed.contains(registeredAt(realLedgerLine)), "\(report.buildTimes)")
            #expect(!timed.contains(registeredAt(realCartLine)), "\(report.buildTimes)")
        }
    }

    @Test func anOverrideOfAnotherContainerDoesNotKeepThisOnesRegistrationFromBeingBuilt() {
        let container = DIContainer()
        let session = container.makeChild()
        let realRuns = Counter()
        container.register(Cart.self) {
            realRuns.increment()
            return Cart()
        }

        // withOverrides's layer, without its warning that the override was never reached: here that is the point.
        let report = session.overrideLayer {
            $0.register(Cart.self) { Cart() }
        }
        .run {
            container.validationReport()  // the parent: a resolve through it does not see the session's override
        }

        #expect(realRuns.value == 1)
        #expect(report.checkedCount == 1, "\(report)")
    }

    @Test func anOverrideOfAParentThatReplacesAChildsOwnRegistrationIsCheckedWhenTheChildIsValidated() throws {
        let app = DIContainer()
        let session = app.makeChild()
        session.register(Cart.self) { Cart() }

        let report = withOverrides(in: app) {
            $0.register(Cart.self) { r in
                _ = try r.resolve(Ledger.self)  // registered nowhere
                return Cart()
            }
        } operation: {
            session.validationReport()
        }

        let problem = try onlyProblem(ofKind: .missingRegistration, in: report)
        #expect(problem.description.contains("path: Cart -> Ledger"), "\(problem)")
        #expect(report.checkedCount == 1, "\(report)")
    }
}
