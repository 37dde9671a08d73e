import Foundation
import Inject
import InjectTestSupport
import Testing

/// Only the test of the wrappers' default container registers under this name, in `DIContainer.shared`.
private let sharedDefaultProbe: DIContainer.Name = "PropertyWrapperTests.wrappersDefaultToTheSharedContainer"

// A wrapper's container is an argument of its attribute, so a class that resolves from a test's own container
// needs that container at declaration: each holder class below has one, used by one test only. (Assigning
// `_widget = Injected(container:)` in `init` would not do: `@Injected var widget: Widget` is first initialised
// with the wrapper's all-default `init`, which resolves from `DIContainer.shared`.)

private let injectedHolderContainer = DIContainer()

private final class InjectedHolder {
    @Injected(container: injectedHolderContainer) var widget: Widget
    @Injected(name: .live, container: injectedHolderContainer) var live: Greeter
}

private let optionalHolderContainer = DIContainer()

private final class OptionalHolder {
    @OptionalInjected(container: optionalHolderContainer) var widget: Widget?
    @OptionalInjected(name: .live, container: optionalHolderContainer) var live: Greeter?
    @OptionalInjected(name: .mock, container: optionalHolderContainer) var mock: Greeter?
}

private let lazyHolderContainer = DIContainer()

private final class LazyHolder: @unchecked Sendable {
    // @unchecked: the wrappers are never reassigned, and `LazyInjected` synchronises its own first read.
    @LazyInjected(container: lazyHolderContainer) var widget: Widget
    @LazyInjected(name: .live, container: lazyHolderContainer) var live: Greeter
}

private let lazyThreadsContainer = DIContainer()

private final class LazyThreadsHolder: @unchecked Sendable {
    // @unchecked: the wrapper is never reassigned, and `LazyInjected` synchronises its own first read.
    @LazyInjected(container: lazyThreadsContainer) var widget: Widget
}

private let weakHolderContainer = DIContainer()

private final class WeakHolder {
    @WeakInjected(container: weakHolderContainer) var widget: Widget?
    @WeakInjected(name: .live, container: weakHolderContainer) var live: Widget?
}

private let weakAssignedContainer = DIContainer()

private final class WeakAssignedHolder: @unchecked Sendable {
    // @unchecked: the wrapper is never reassigned, and `WeakInjected` synchronises its own reads and writes.
    @WeakInjected(container: weakAssignedContainer) var widget: Widget?
}

/// Every wrapper with its default container, `DIContainer.shared`.
private final class SharedDefaultHolder {
    @Injected(name: sharedDefaultProbe) var injected: Widget
    @LazyInjected(name: sharedDefaultProbe) var lazy: Widget
    @WeakInjected(name: sharedDefaultProbe) var weakly: Widget?
    @OptionalInjected(name: sharedDefaultProbe) var optional: Widget?
}

/// `@Injected` with an optional type: it falls back to the wrapped type, and does not make `nil` of a missing one.
private final class MaybeWidgetHolder {
    @Injected(container: wrapperTestContainer) var widget: Widget?
}

private let wrapperTestContainer = DIContainer()

struct PropertyWrapperTests {
    @Test func anInjectedOptionalWithNothingRegisteredIsToldAboutOptionalInjected() throws {
        let report = wrapperTestContainer.validationReport(building: { MaybeWidgetHolder() })

        let problem = try #require(report.errors.first, "\(report)")
        #expect(problem.description.contains("nothing is registered for Optional<Widget>"), "\(problem)")
        #expect(problem.description.contains("declare the property @OptionalInjected"), "\(problem)")
    }

    // MARK: @Injected

    @Test func injectedResolvesWhenTheObjectIsInitialised() {
        let made = Counter()
        let container = injectedHolderContainer
        container.register(Widget.self) { Widget(serial: made.increment()) }
        container.register(Greeter.self) { EnglishGreeter(greeting: "unnamed") }
        container.register(Greeter.self, name: .live) { EnglishGreeter(greeting: "live") }
        #expect(made.value == 0)

        let holder = InjectedHolder()

        #expect(made.value == 1)
        #expect(holder.widget.serial == 1)
        #expect(holder.live.greeting == "live")
        #expect(made.value == 1)
    }

    @Test func injectedTakesANameAndAContainer() {
        let container = DIContainer()
        container.register(Greeter.self) { EnglishGreeter(greeting: "unnamed") }
        container.register(Greeter.self, name: .live) { EnglishGreeter(greeting: "live") }

        @Injected(container: container) var unnamed: Greeter
        @Injected(name: .live, container: container) var live: Greeter

        #expect(unnamed.greeting == "unnamed")
        #expect(live.greeting == "live")
    }

    @Test func injectedInsideAFactoryJoinsThatFactorysGraph() {
        let container = DIContainer()
        container.register(Widget.self) { Widget() }
        container.register(Logger.self) { r in
            @Injected(container: r.container) var wrapped: Widget
            let direct: Widget = try r.resolve()
            return Logger(tag: wrapped === direct ? "shared" : "separate")
        }

        #expect(container.resolve(Logger.self).tag == "shared")
    }

    // MARK: @LazyInjected

    @Test func lazyInjectedResolvesOnFirstReadOnly() {
        let made = Counter()
        let container = lazyHolderContainer
        container.register(Widget.self) { Widget(serial: made.increment()) }.scope(.transient)
        container.register(Greeter.self, name: .live) { EnglishGreeter(greeting: "lazy live") }

        let holder = LazyHolder()
        #expect(made.value == 0)
        #expect(!holder.$widget.isResolved)

        let first = holder.widget
        #expect(made.value == 1)
        #expect(holder.$widget.isResolved)
        #expect(holder.widget === first)
        #expect(made.value == 1)
        #expect(!holder.$live.isResolved)
        #expect(holder.live.greeting == "lazy live")
    }

    @Test func lazyInjectedResetResolvesAgainOnTheNextRead() {
        let made = Counter()
        let container = DIContainer()
        container.register(Widget.self, name: .live) { Widget(serial: made.increment()) }.scope(.transient)
        @LazyInjected(name: .live, container: container) var widget: Widget
        let first = widget

        $widget.reset()

        #expect(!$widget.isResolved)
        #expect(made.value == 1)
        let second = widget
        #expect(second !== first)
        #expect(widget === second)
        #expect(made.value == 2)
        #expect($widget.isResolved)
    }

    @Test func lazyInjectedResolvesExactlyOnceWhenManyThreadsReadIt() {
        let threads = 64
        let made = Counter()
        let reading = Arrivals(expected: threads)
        let overlapped = Cell<Bool>()
        lazyThreadsContainer.register(Widget.self) {
            overlapped.value = reading.waitForEveryone()
            return Widget(serial: made.increment())
        }
        .scope(.transient)
        let holder = LazyThreadsHolder()
        let seen = Collector<ObjectIdentifier>()

        let finished = finishes(within: 60, "64 threads reading one @LazyInjected property") {
            onThreadsAtOnce(threads) { _ in
                reading.arrive()
                seen.append(ObjectIdentifier(holder.widget))
            }
        }

        guard finished else { return }
        #expect(overlapped.value == true)
        #expect(made.value == 1)
        #expect(seen.values.count == threads)
        #expect(Set(seen.values).count == 1)
    }

    // MARK: @WeakInjected

    @Test func weakInjectedResolvesLazilyAndHoldsWeakly() {
        let made = Counter()
        let container = weakHolderContainer
        container.register(Widget.self) { Widget(serial: made.increment()) }.scope(.weak)
        let holder = WeakHolder()
        #expect(made.value == 0)

        var owner: Widget? = container.resolve(Widget.self)
        #expect(holder.widget === owner)
        #expect(made.value == 1)

        weak let released = owner
        owner = nil

        #expect(released == nil)
        #expect(holder.widget == nil)
        #expect(made.value == 1)  // not resolved again
    }

    @Test func weakInjectedStaysNilAfterReleaseEvenWhenTheServiceIsAvailableAgain() {
        let made = Counter()
        let container = DIContainer()
        container.register(Widget.self, name: .live) { Widget(serial: made.increment()) }.scope(.weak)
        @WeakInjected(name: .live, container: container) var widget: Widget?
        var owner: Widget? = container.resolve(Widget.self, name: .live)
        #expect(widget === owner)

        owner = nil
        let replacement = container.resolve(Widget.self, name: .live)

        withExtendedLifetime(replacement) {
            #expect(widget == nil)
        }
        #expect(made.value == 2)
    }

    @Test func weakInjectedOfASingletonStaysSetWhileTheContainerHoldsIt() {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 5) }.scope(.singleton)
        @WeakInjected(container: container) var widget: Widget?

        #expect(widget?.serial == 5)
        #expect(widget === container.resolve(Widget.self))
    }

    @Test func assigningAWeakInjectedPropertyHoldsTheValueWeaklyWithoutResolving() {
        let made = Counter()
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: made.increment()) }.scope(.weak)
        @WeakInjected(container: container) var widget: Widget?
        var mine: Widget? = Widget(serial: 99)

        widget = mine
        #expect(widget === mine)
        mine = nil

        #expect(widget == nil)
        #expect(made.value == 0)
    }

    @Test func assigningAWeakInjectedPropertyWhileItsFirstReadResolvesNeitherWaitsNorLoses() {
        let factoryStarted = DispatchSemaphore(value: 0)
        let releaseFactory = DispatchSemaphore(value: 0)
        weakAssignedContainer.register(Widget.self) {
            factoryStarted.signal()
            _ = releaseFactory.wait(timeout: .now() + 10)  // bounded: the checks below fail first if it hangs
            return Widget(serial: 1)
        }.scope(.singleton)
        let holder = WeakAssignedHolder()
        let firstRead = DispatchSemaphore(value: 0)
        Thread {
            _ = holder.widget
            firstRead.signal()
        }.start()
        guard waits(for: factoryStarted, "the first read's factory to start") else { return }
        let mine = Widget(serial: 2)

        // The assignment must not wait for the build under way, and the build must not overwrite it.
        finishes(within: 5, "assigning while the first read resolves") { holder.widget = mine }
        releaseFactory.signal()
        guard waits(for: firstRead, "the first read to return") else { return }

        #expect(holder.widget === mine)
    }

    // MARK: @OptionalInjected

    @Test func optionalInjectedIsNilOnlyWhenNothingIsRegistered() {
        let container = optionalHolderContainer
        container.register(Widget.self) { Widget(serial: 6) }
        container.register(Greeter.self) { EnglishGreeter(greeting: "unnamed") }
        container.register(Greeter.self, name: .mock) { EnglishGreeter(greeting: "optional mock") }

        let holder = OptionalHolder()

        #expect(holder.widget?.serial == 6)
        #expect(holder.live == nil)
        #expect(holder.mock?.greeting == "optional mock")
    }

    @Test func optionalInjectedTakesANameAndAContainer() {
        let container = DIContainer()
        container.register(Greeter.self, name: .live) { EnglishGreeter(greeting: "live") }

        @OptionalInjected(container: container) var unnamed: Greeter?
        @OptionalInjected(name: .live, container: container) var live: Greeter?

        #expect(unnamed == nil)
        #expect(live?.greeting == "live")
    }

    // MARK: default container

    @Test func wrappersDefaultToTheSharedContainer() {
        DIContainer.shared.register(Widget.self, name: sharedDefaultProbe) { Widget(serial: 77) }.scope(.singleton)
        let instance = DIContainer.shared.resolve(Widget.self, name: sharedDefaultProbe)

        let holder = SharedDefaultHolder()

        #expect(holder.injected === instance)
        #expect(holder.lazy === instance)
        #expect(holder.weakly === instance)
        #expect(holder.optional === instance)
    }
}
