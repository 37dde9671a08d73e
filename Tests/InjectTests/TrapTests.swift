import Foundation
import Inject
import InjectTestSupport
import Testing

// Each test here runs its body in a process of its own (an exit test) and expects that process to trap. Exit test
// bodies capture nothing, so they build their containers themselves, from the file-scope helpers below. A body
// may register into `DIContainer.shared` (the default of the property wrappers): its process has a `shared` of its
// own, which no other test sees.

private final class Ledger: Sendable {}

private final class Checkout: Sendable {
    let ledger: Ledger

    init(ledger: Ledger) {
        self.ledger = ledger
    }
}

/// Registers a `Checkout` that needs a `Ledger`, which is not registered: the same registration, at the same line,
/// for the test's own process and for its exit test.
private func registerCheckoutMissingLedger(in container: DIContainer) {
    container.register(Checkout.self) { r in Checkout(ledger: try r.resolve()) }
}

private func makeContainerMissingLedger() -> DIContainer {
    let container = DIContainer()
    registerCheckoutMissingLedger(in: container)
    return container
}

/// Registers a Gadget, as a feature's module does.
private struct GadgetModule: DIModule {
    func register(in container: DIContainer) {
        container.register(Gadget.self) { Gadget(widget: Widget()) }
    }
}

/// Registers a service, seals the container, then sets the registration's scope: an option on a sealed container.
private func setTheScopeAfterSealing() {
    let container = DIContainer()
    let registration = container.register(Widget.self) { Widget() }
    container.seal()
    registration.scope(.singleton)
}

/// The line of the `.scope` call above.
private let scopeAfterSealingLine = #line - 4

/// Resolves `Checkout` from `DIContainer.shared` when it is initialised.
private final class NeedsCheckout {
    @Injected var checkout: Checkout
}

/// Where `NeedsCheckout.checkout` is declared, as messages name it.
private let needsCheckoutDeclaration = "\(#fileID):\(#line - 4)"

/// Resolves `Ledger` through `app`, a container of its own, when it is initialised.
private final class NeedsLedgerFromApp {
    @Injected(container: app) var ledger: Ledger
}

/// The container `NeedsLedgerFromApp` resolves through: the app's container of a Swinject port, not
/// `DIContainer.shared`.
private let app = DIContainer()

/// Reads `Ledger` lazily, through `DIContainer.shared` when made outside any factory.
private final class LazyLedger: @unchecked Sendable {
    // @unchecked: the wrapper is never reassigned, and `LazyInjected` synchronises its own first read.
    @LazyInjected var ledger: Ledger
}

/// Built in a factory, resolves `InjectedCycleY` from `DIContainer.shared` with `@Injected` as it is initialised.
private final class InjectedCycleX {
    @Injected var y: InjectedCycleY
}

private final class HoldsPoint {
    @WeakInjected var point: Point?
}

private final class InjectedCycleY {
    let x: InjectedCycleX

    init(x: InjectedCycleX) {
        self.x = x
    }
}

/// A holder for a `LazySingleton` that reads itself from its own `make`.
private let selfReading = Cell<LazySingleton<Int>>()

/// Reads `Int` lazily from `DIContainer.shared`.
private final class LazyNumber: @unchecked Sendable {
    // @unchecked: the wrapper is never reassigned, and `LazyInjected` synchronises its own first read.
    @LazyInjected var number: Int
}

/// Where `LazyNumber.number` is declared.
private let lazyNumberDeclaration = "\(#fileID):\(#line - 4)"

/// A `LazyNumber` whose `Int` factory reads the same property.
private let lazyNumber = Cell<LazyNumber>()

/// Ends the exit test's process with success, which fails the test, when the body has not trapped after `seconds`:
/// a body that deadlocks must fail, not hang the run.
private func failIfStillRunning(after seconds: Double = 20) {
    let watchdog = Thread {
        Thread.sleep(forTimeInterval: seconds)
        FileHandle.standardError.write(Data("still running after \(seconds) s: a hang, not a trap\n".utf8))
        exit(0)
    }
    watchdog.start()
}

/// Registers a `Ledger` whose factory calls `validate()`, at `ledgerThatValidatesLine`, and resolves it.
private func resolveLedgerThatValidates() {
    let container = DIContainer()
    container.register(Ledger.self) { r -> Ledger in
        try? r.container.validate()
        return Ledger()
    }
    _ = container.resolve(Ledger.self)
}

/// Where `resolveLedgerThatValidates` registers its `Ledger`.
private let ledgerThatValidatesLine = #line - 8

/// Resolves a `.singleton` `Widget`, then sets its scope to `.cached`: the registration at `rescopedLines.register`,
/// the `.scope` call at `rescopedLines.scope`.
private func rescopeAfterResolve() {
    let container = DIContainer()
    let registration = container.register(Widget.self) { Widget() }
        .scope(.singleton)
    _ = container.resolve(Widget.self)
    registration.scope(.cached)
}

private let rescopedLines = (register: #line - 6, scope: #line - 3)

/// Registers a `Widget` that takes a tuple, then makes it `.singleton` on a line of its own.
private func cacheATupleArgument() {
    let container = DIContainer()
    container.register(Widget.self) { (_: DIResolver, pair: (Int, Int)) in Widget(serial: pair.0) }
        .scope(.singleton)
}

private let tupleLines = (register: #line - 4, scope: #line - 3)

/// Reads its own type lazily: its factory reading `me` is a read inside the build it needs.
private final class SelfReader: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in init, and synchronises its own reads.
    @LazyInjected var me: SelfReader
}

/// A screen with an `@Injected` ledger, made inside a factory.
private final class LedgerScreen: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in init.
    @Injected var ledger: Ledger
}

struct TrapTests {
    @Test func resolveTrapsWithTheTextResolveThrowingThrows() async throws {
        let error = try #require(throws: ResolutionError.self) {
            try makeContainerMissingLedger().resolveThrowing(Checkout.self)
        }
        let firstLine = try #require(error.description.split(separator: "\n").first.map(String.init))

        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = makeContainerMissingLedger().resolve(Checkout.self)
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains(firstLine))
        #expect(stderr.contains(error.description))
    }

    @Test func aContainersResolveInsideAFactorySaysToResolveThroughTheFactorysResolver() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = DIContainer()
            container.register(Checkout.self) { Checkout(ledger: container.resolve()) }  // should be r.resolve()
            _ = try? container.resolveThrowing(Checkout.self)
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("nothing is registered for Ledger"), "\(stderr)")
        #expect(
            stderr.contains("this call runs inside Checkout's factory, where a DIContainer's resolve traps"),
            "\(stderr)"
        )
        #expect(stderr.contains("resolve through the factory's DIResolver instead"), "\(stderr)")
    }

    @Test func injectedTrapsWithTheTextResolveThrowingThrows() async throws {
        let error = try #require(throws: ResolutionError.self) {
            try makeContainerMissingLedger().resolveThrowing(Checkout.self)
        }

        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            registerCheckoutMissingLedger(in: .shared)
            _ = NeedsCheckout()
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        // The same error, and which property led to it.
        for line in error.description.split(separator: "\n") {
            #expect(stderr.contains(line), "\(stderr)")
        }
        #expect(stderr.contains("reached from: @Injected Checkout at \(needsCheckoutDeclaration)"), "\(stderr)")
    }

    @Test func injectedMadeOutsideAnyFactorySaysItResolvedThroughSharedAndHowToPassItsContainer() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            app.register(Ledger.self) { Ledger() }  // the app's container, which the property does not name
            _ = NeedsCheckout()  // nothing is registered in DIContainer.shared
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("nothing is registered for Checkout."), "\(stderr)")
        #expect(stderr.contains("asked by: @Injected Checkout at \(needsCheckoutDeclaration)"), "\(stderr)")
        #expect(
            stderr.contains(
                """
                  resolved through: DIContainer.shared, where a property wrapper without container: resolves when \
                it is initialised outside any factory.
                  a property wrapper resolves where its property is declared, before any init body runs: an init \
                that assigns _property = Injected(container: ...) comes too late; for a container the init is \
                given, set a plain property from container.resolve() in the init instead.
                  fix: register Checkout in DIContainer.shared; or, if the app's container is another one, pass it \
                to the wrapper, @Injected(container: appContainer), or make this object in a factory of that \
                container, whose wrappers resolve through it.
                """
            ),
            "\(stderr)"
        )
    }

    @Test func lazyInjectedReadOutsideAnyFactorySaysItResolvedThroughShared() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = LazyLedger().ledger
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("resolved through: DIContainer.shared"), "\(stderr)")
        #expect(stderr.contains("pass it to the wrapper, @LazyInjected(container: appContainer)"), "\(stderr)")
    }

    @Test func injectedGivenItsContainerDoesNotSayItResolvedThroughShared() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            DIContainer.shared.register(Ledger.self) { Ledger() }
            _ = NeedsLedgerFromApp()  // nothing is registered in app
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("nothing is registered for Ledger."), "\(stderr)")
        #expect(!stderr.contains("DIContainer.shared"), "\(stderr)")
        #expect(stderr.contains("fix: register Ledger in this container or one of its parents."), "\(stderr)")
    }

    @Test func optionalTrapsWhenARegisteredServiceCannotBeBuilt() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = DIContainer()
            container.register(Widget.self) { () throws -> Widget in
                throw FixtureError(text: "the widget factory failed")
            }
            _ = container.optional(Widget.self)
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("the widget factory failed"))
    }

    @Test func implementsOfTheRegistrationsOwnTypeTrapsSayingItForwardsToItself() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = DIContainer()
            container.register(Widget.self) { Widget() }.scope(.singleton).implements(Widget.self)
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("implements(Widget.self) on Widget"), "\(stderr)")
        #expect(stderr.contains("forwards the registration to itself"), "\(stderr)")
        #expect(stderr.contains("fix: remove this implements call"), "\(stderr)")
    }

    @Test func implementsOfTheOwnTypeUnderAnotherNameIsAnAlias() {
        let container = DIContainer()
        container.register(Widget.self) { Widget() }.scope(.singleton).implements(Widget.self, name: "main")

        #expect(container.resolve(Widget.self, name: "main") === container.resolve(Widget.self))
    }

    @Test func registeringOnASealedContainerTraps() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = DIContainer()
            container.register(Widget.self) { Widget() }
            container.seal()
            container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("sealed"))
        #expect(stderr.contains("Gadget"))
    }

    @Test func installingAModuleOnASealedContainerNamesTheInstallAndTheModule() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = DIContainer()
            container.seal()
            container.install(GadgetModule())
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("install(GadgetModule) at InjectTests/TrapTests.swift:"), "\(stderr)")
        #expect(stderr.contains("on a sealed container"), "\(stderr)")
    }

    @Test func registeringOnASealedContainerSaysThatATestOverridesInstead() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            DIContainer.shared.register(Widget.self) { Widget() }
            DIContainer.shared.seal()  // as the app's composition root does, before a hosted test runs
            DIContainer.shared.register(Widget.self) { Widget() }  // a test's setUp, registering a stand-in
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("on a sealed container"), "\(stderr)")
        #expect(
            stderr.contains("In a test, replace the service with an override instead of registering it"),
            "\(stderr)"
        )
        #expect(stderr.contains("withOverrides { $0.register(...) } operation: { ... }"), "\(stderr)")
        #expect(stderr.contains("pushOverrides { $0.register(...) } in an XCTestCase"), "\(stderr)")
    }

    @Test func registeringOnAnotherSealedContainerSaysToPassItToTheOverride() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = DIContainer()
            app.register(Widget.self) { Widget() }
            app.seal()
            app.register(Widget.self) { Widget() }
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("withOverrides(in: theSealedContainer) { $0.register(...) }"), "\(stderr)")
        #expect(stderr.contains("without it, an override applies to DIContainer.shared"), "\(stderr)")
    }

    @Test func anOptionOnASealedContainerSaysThatATestOverridesInstead() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setTheScopeAfterSealing()
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("Registration.scope(.singleton) on Widget"), "\(stderr)")
        #expect(
            stderr.contains(
                "at \(#fileID):\(scopeAfterSealingLine), registered at \(#fileID):\(scopeAfterSealingLine - 2)"
            ),
            "the option's call, then the registration: \(stderr)"
        )
        #expect(
            stderr.contains("In a test, replace the service with an override instead of registering it"),
            "\(stderr)"
        )
    }

    @Test func changingTheScopeOfAScopedServiceAChildAlreadyResolvedTraps() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = DIContainer()
            let registration = container.register(Widget.self) { Widget() }.scope(.scoped)
            _ = container.makeChild().resolve(Widget.self)
            registration.scope(.singleton)
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("after its .scoped instance was already asked for"))
    }

    @Test func lazySingletonValueTrapsWhenMakeThrows() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let lazy = LazySingleton<Int> { throw FixtureError(text: "the configuration is unreadable") }
            _ = lazy.value
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("the configuration is unreadable"))
    }

    @Test func lazySingletonRecursionIntoItselfTrapsInsteadOfHanging() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            failIfStillRunning()
            let lazy = LazySingleton<Int> { (selfReading.value?.value ?? 0) + 1 }
            selfReading.value = lazy
            _ = lazy.value
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("recursion"))
        #expect(stderr.contains("LazySingleton<Int> made at InjectTests/TrapTests.swift:"), "\(stderr)")
        #expect(!stderr.contains("InstanceSlot+Lazy.swift"), "Inject's own file: \(stderr)")
        #expect(!stderr.contains("a hang, not a trap"))
    }

    @Test func lazyInjectedReadFromItsOwnServicesFactoryTrapsInsteadOfHanging() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            failIfStillRunning()
            DIContainer.shared.register(Int.self) { (lazyNumber.value?.number ?? 0) + 1 }
            let holder = LazyNumber()
            lazyNumber.value = holder
            _ = holder.number
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(
            stderr.contains(
                "@LazyInjected Int at \(lazyNumberDeclaration) was read while its own value was being made"
            ),
            "\(stderr)"
        )
        #expect(!stderr.contains("a hang, not a trap"))
    }

    @Test func aLazyPropertyReadInsideTheBuildItNeedsSaysToReadItLaterNotToMakeItLazy() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            failIfStillRunning()
            let container = DIContainer()
            container.register(SelfReader.self) { _ in
                let reader = SelfReader()
                _ = reader.me
                return reader
            }
            .scope(.singleton)
            _ = container.resolve(SelfReader.self)
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("dependency cycle: SelfReader -> SelfReader."), "\(stderr)")
        #expect(stderr.contains("fix: read @LazyInjected SelfReader at InjectTests/TrapTests.swift:"), "\(stderr)")
        #expect(!stderr.contains("hold the other with @LazyInjected"), "\(stderr)")
    }

    @Test func aCycleThroughInjectedInsideAFactoryTrapsNamingEveryStep() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            failIfStillRunning()
            let container = DIContainer.shared
            container.register(InjectedCycleX.self) { InjectedCycleX() }
            container.register(InjectedCycleY.self) { r in InjectedCycleY(x: try r.resolve()) }
            _ = container.resolve(InjectedCycleX.self)
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("InjectedCycleX -> InjectedCycleY -> InjectedCycleX"))
        #expect(!stderr.contains("a hang, not a trap"))
    }

    @Test func weakInjectedOfAValueTypeTraps() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            DIContainer.shared.register(Point.self) { Point(x: 1, y: 1) }.scope(.singleton)
            _ = HoldsPoint().point
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("Point"))
    }

    @Test func aPropertyReadThatEndsValidationListsWhatItFoundBefore() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            failIfStillRunning()
            let container = DIContainer.shared
            registerCheckoutMissingLedger(in: container)  // found first: Ledger is not registered
            container.register(Point.self) {
                let holder = LazyNumber()  // Int is not registered either: its first read cannot go on
                return Point(x: holder.number, y: 0)
            }
            _ = container.validationReport()
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("nothing is registered for Int"), "\(stderr)")
        #expect(stderr.contains("validate() stops here"), "\(stderr)")
        #expect(stderr.contains("found before it stopped (1):"), "\(stderr)")
        #expect(stderr.contains("error: nothing is registered for Ledger"), "\(stderr)")
        #expect(!stderr.contains("a hang, not a trap"))
    }

    @Test func aContainersResolveInsideAFactoryUnderValidationSaysNothingElseWasFound() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = DIContainer()
            container.register(Checkout.self) { Checkout(ledger: container.resolve()) }  // should be r.resolve()
            _ = container.validationReport()
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("this call runs inside Checkout's factory"), "\(stderr)")
        #expect(stderr.contains("found before it stopped: nothing else."), "\(stderr)")
    }
    @Test func warmUpCalledInsideAnEagerFactoryTrapsInsteadOfHanging() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            failIfStillRunning(after: 10)
            let container = DIContainer()
            container.register(Ledger.self) { (r: DIResolver) async throws -> Ledger in
                try await r.container.warmUp()
                return Ledger()
            }
            .scope(.singleton)
            .eager()
            _ = try await container.warmUp()
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("warmUp() was called while a resolve is under way"), "\(stderr)")
        #expect(stderr.contains("inside Ledger's factory, registered at \(#fileID):"), "\(stderr)")
        #expect(stderr.contains("fix: call try await warmUp() once at start-up, outside any factory"), "\(stderr)")
    }

    @Test func validateAsyncCalledInsideAnAsyncFactoryTrapsInsteadOfRecursing() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            failIfStillRunning(after: 10)
            let container = DIContainer()
            container.register(Ledger.self) { (r: DIResolver) async throws -> Ledger in
                try await r.container.validateAsync()
                return Ledger()
            }
            .scope(.singleton)
            _ = try await container.resolveAsync(Ledger.self)
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(
            stderr.contains("validateAsync() (or validationReportAsync()) was called while a resolve is under way"),
            "\(stderr)"
        )
        #expect(stderr.contains("fix: call validateAsync() (or validationReportAsync()) at start-up"), "\(stderr)")
    }

    @Test func aTaskStuckWaitingForABuildItCannotSeeTheEndOfSaysSoAfterTenSeconds() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = DIContainer()
            // The build awaits a detached task that resolves the service again: a wait Inject cannot see, which
            // hangs as a task awaiting itself does.
            container.register(Widget.self) { () async throws -> Widget in
                _ = try await Task.detached { try await container.resolveAsync(Widget.self) }.value
                return Widget()
            }
            .scope(.singleton)
            Task { _ = try? await container.resolveAsync(Widget.self) }
            try await Task.sleep(nanoseconds: 12_000_000_000)
            fatalError("the test's process ends here")
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("Inject: a task has waited 10 s for Widget, which another resolve is building"))
        #expect(stderr.contains("see Docs/ThreadSafety.md"), "\(stderr)")
    }

    @Test func validateCalledInsideAFactoryTraps() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            failIfStillRunning(after: 10)
            let container = DIContainer()
            container.register(Ledger.self) { (r: DIResolver) throws -> Ledger in
                try r.container.validate()
                return Ledger()
            }
            _ = try container.resolveThrowing(Ledger.self)
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(
            stderr.contains("validate() (or validationReport()) was called while a resolve is under way"),
            "\(stderr)"
        )
    }

    @Test func validateCalledInsideAFactoryNamesThatFactoryAndTrapsAtItsRegistration() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            failIfStillRunning(after: 10)
            resolveLedgerThatValidates()
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        let registration = "\(#fileID):\(ledgerThatValidatesLine)"
        #expect(stderr.contains("inside Ledger's factory, registered at \(registration)"), "\(stderr)")
        #expect(stderr.contains("\(registration): Fatal error"), "the trap's location: \(stderr)")
        #expect(!stderr.contains("ResolutionContext+Reentry.swift"), "\(stderr)")
    }

    @Test func changingTheScopeAfterAResolveNamesTheScopeCallAndTrapsThere() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            rescopeAfterResolve()
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        let scope = "\(#fileID):\(rescopedLines.scope)"
        let register = "\(#fileID):\(rescopedLines.register)"
        #expect(
            stderr.contains("Registration.scope(.cached) at \(scope), on Widget, registered at \(register), after"),
            "\(stderr)"
        )
        #expect(stderr.contains("\(scope): Fatal error"), "the trap's location: \(stderr)")
    }

    @Test func aCachingScopeOnATupleArgumentNamesTheScopeCallAndTrapsThere() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            cacheATupleArgument()
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        let scope = "\(#fileID):\(tupleLines.scope)"
        let register = "\(#fileID):\(tupleLines.register)"
        #expect(stderr.contains("Widget, registered at \(register), takes a runtime argument"), "\(stderr)")
        #expect(
            stderr.contains("so it cannot be .singleton, as Registration.scope(.singleton) at \(scope) asks"),
            "\(stderr)"
        )
        #expect(stderr.contains("\(scope): Fatal error"), "the trap's location: \(stderr)")
    }

    @Test func aWrapperFailureKeptForAnAsyncResolveAndThenReadNamesThatResolveNotValidate() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            failIfStillRunning(after: 10)
            let container = DIContainer()
            container.register(Ledger.self) { () async -> Ledger in Ledger() }.scope(.singleton)
            container.register(Checkout.self) { _ in Checkout(ledger: LedgerScreen().ledger) }
            _ = try await container.resolveAsync(Checkout.self)
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("has an async factory and is not built yet"), "\(stderr)")
        #expect(
            stderr.contains("could not be resolved while an async resolve (resolveAsync, warmUp()) built its owner"),
            "\(stderr)"
        )
        #expect(!stderr.contains("validate()"), "\(stderr)")
    }
}
