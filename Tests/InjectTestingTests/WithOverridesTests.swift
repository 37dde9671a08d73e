import Dispatch
import Foundation
import InjectTestSupport
import InjectTesting
import Testing

// A wrapper's container is an argument of its attribute, so the holder needs its container at declaration: this one
// is used by `propertyWrappersSeeTheOverrides` only.
private let wrapperContainer = DIContainer()

private protocol GadgetMaking: Sendable {}
extension Gadget: GadgetMaking {}

private final class WrapperHolder: @unchecked Sendable {
    // @unchecked: the wrappers are never reassigned, and `LazyInjected` synchronises its own first read.
    @Injected(container: wrapperContainer) var injected: Widget
    @LazyInjected(container: wrapperContainer) var lazy: Widget
    @WeakInjected(container: wrapperContainer) var weakly: Widget?
    @OptionalInjected(container: wrapperContainer) var optional: OnlyOverridden?
}

/// `withOverrides(in:_:operation:)`, synchronous and asynchronous: the override wins inside, reaches child
/// containers and property wrappers, has fresh caches, leaves nothing behind, and nests.
struct WithOverridesTests {
    /// A container with `Widget` (serial 0) and a `Gadget` built from the `Widget` of the resolve.
    private func makeContainer() -> DIContainer {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 0) }
        container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }
        return container
    }

    // MARK: the override wins

    @Test func overrideWinsInsideASynchronousOperation() throws {
        let container = makeContainer()

        let (widget, gadget) = try withOverrides(in: container) {
            $0.register(Widget.self) { Widget(serial: 1) }
        } operation: {
            (container.resolve(Widget.self).serial, try container.resolveThrowing(Gadget.self).widget.serial)
        }

        #expect(widget == 1)
        #expect(gadget == 1, "a dependency resolved by the container's own factory must get the override")
        #expect(container.resolve(Widget.self).serial == 0, "the override outlived the operation")
    }

    @Test func overrideWinsInsideAnAsynchronousOperationAcrossSuspensionPoints() async throws {
        let container = makeContainer()

        let seen = try await withOverrides(in: container) {
            $0.register(Widget.self) { Widget(serial: 1) }
        } operation: {
            var seen: [Int] = []
            for _ in 0..<5 {
                seen.append(container.resolve(Widget.self).serial)
                await Task.yield()
                try await Task.sleep(nanoseconds: 1_000_000)
                seen.append(try container.resolveThrowing(Gadget.self).widget.serial)
            }
            return seen
        }

        #expect(seen == Array(repeating: 1, count: 10))
        #expect(container.resolve(Widget.self).serial == 0, "the override outlived the operation")
    }

    @Test func overrideReachesTheChildTasksTheOperationStarts() async {
        let container = makeContainer()

        let seen = await withOverrides(in: container) {
            $0.register(Widget.self) { Widget(serial: 1) }
        } operation: {
            async let first = container.resolve(Widget.self).serial
            let second = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask { container.resolve(Widget.self).serial }
                }
                return await group.reduce(into: [Int]()) { $0.append($1) }
            }
            let third = await Task { container.resolve(Widget.self).serial }.value
            return await [first] + second + [third]
        }

        #expect(seen == Array(repeating: 1, count: 6))
    }

    @Test func overrideCanAddAServiceTheContainerDoesNotHave() {
        let container = makeContainer()

        let tag = withOverrides(in: container) {
            $0.register(OnlyOverridden.self) { OnlyOverridden(tag: "override") }
        } operation: {
            container.optional(OnlyOverridden.self)?.tag
        }

        #expect(tag == "override")
        #expect(container.optional(OnlyOverridden.self) == nil, "the override's registration outlived the operation")
    }

    @Test func operationsResultIsReturnedAndItsErrorRethrown() {
        let container = makeContainer()

        let result = withOverrides(in: container, { _ in }, operation: { "result" })
        #expect(result == "result")

        #expect(throws: FixtureError(text: "thrown inside")) {
            try withOverrides(in: container) {
                $0.register(Widget.self) { Widget(serial: 1) }
            } operation: {
                #expect(container.resolve(Widget.self).serial == 1)
                throw FixtureError(text: "thrown inside")
            }
        }
        #expect(container.resolve(Widget.self).serial == 0, "the override outlived an operation that threw")
    }

    @Test func overrideIsGoneAfterAnAsynchronousOperationThrows() async {
        let container = makeContainer()

        await #expect(throws: FixtureError(text: "thrown inside")) {
            try await withOverrides(in: container) {
                $0.register(Widget.self) { Widget(serial: 1) }
            } operation: {
                await Task.yield()
                throw FixtureError(text: "thrown inside")
            }
        }
        #expect(container.resolve(Widget.self).serial == 0, "the override outlived an operation that threw")
    }

    // MARK: reach

    @Test func overrideReachesChildContainersMadeBeforeAndInside() {
        let container = makeContainer()
        let childBefore = container.makeChild()
        let grandchild = childBefore.makeChild()

        let seen = withOverrides(in: container) {
            $0.register(Widget.self) { Widget(serial: 1) }
        } operation: {
            let childInside = DIContainer(parent: container)
            return [
                childBefore.resolve(Widget.self).serial,
                grandchild.resolve(Widget.self).serial,
                childInside.resolve(Widget.self).serial,
                childInside.resolve(Gadget.self).widget.serial,
            ]
        }

        #expect(seen == [1, 1, 1, 1])
        #expect(childBefore.resolve(Widget.self).serial == 0)
        #expect(grandchild.resolve(Widget.self).serial == 0)
    }

    @Test func overrideDoesNotReachOtherContainersOrTheParent() {
        let parent = DIContainer()
        parent.register(Widget.self) { Widget(serial: 10) }
        let container = parent.makeChild()
        container.register(Widget.self) { Widget(serial: 0) }
        let unrelated = DIContainer()
        unrelated.register(Widget.self) { Widget(serial: 20) }

        let seen = withOverrides(in: container) {
            $0.register(Widget.self) { Widget(serial: 1) }
        } operation: {
            [
                container.resolve(Widget.self).serial, parent.resolve(Widget.self).serial,
                unrelated.resolve(Widget.self).serial,
            ]
        }

        #expect(seen == [1, 10, 20])
    }

    @Test func anOverrideOfOneContainerThatTheCodeResolvesThroughAnotherIsReportedMissed() throws {
        // The test overrides DIContainer.shared (the default), but the code under test resolves through its own app.
        let app = makeContainer()
        let overrideLine = #line + 1
        let layer = DIContainer.shared.overrideLayer { $0.register(Widget.self) { Widget(serial: 1) } }

        let seen = layer.run { app.resolve(Widget.self).serial }

        #expect(seen == 0, "the override does not reach app")
        let miss = try #require(layer.missedOverrides.first)
        #expect(layer.missedOverrides.count == 1)
        #expect(
            miss.message.hasPrefix(
                """
                the override of Widget registered at InjectTestingTests/WithOverridesTests.swift:\(overrideLine) applies \
                to resolves through DIContainer.shared and its children, but no resolve there asked for it, and Widget \
                was resolved through a container of another tree
                """
            ),
            "\(miss.message)"
        )
        #expect(miss.message.contains("fix: override the container the code under test resolves through"))
        #expect(miss.fileID == "InjectTestingTests/WithOverridesTests.swift" && miss.line == overrideLine)
    }

    @Test func onlyResolvesMissOrReachAnOverride() {
        // isRegistered and reset through the app neither miss the override of shared, nor reach it.
        let app = makeContainer()
        let layer = DIContainer.shared.overrideLayer { $0.register(Widget.self) { Widget(serial: 1) } }

        layer.run {
            _ = app.isRegistered(Widget.self)
            app.reset(Widget.self)
        }

        #expect(layer.missedOverrides.isEmpty, "\(layer.missedOverrides.map(\.message))")
    }

    @Test func anInnerOverrideOfAnotherContainerIsMissedWhenAnOuterOneWins() throws {
        // The outer override targets app and wins; the inner one, of shared, never reaches app's resolve.
        let app = makeContainer()
        let outer = app.overrideLayer { $0.register(Widget.self) { Widget(serial: 1) } }

        let (seen, inner) = outer.run {
            let inner = DIContainer.shared.overrideLayer { $0.register(Widget.self) { Widget(serial: 2) } }
            return (inner.run { app.resolve(Widget.self).serial }, inner)
        }

        #expect(seen == 1)
        #expect(outer.missedOverrides.isEmpty)
        #expect(inner.missedOverrides.count == 1, "\(inner.missedOverrides.map(\.message))")
    }

    @Test func resolveAllMissesAnOverrideOfAnotherContainer() {
        let app = makeContainer()
        let layer = DIContainer.shared.overrideLayer { $0.register(Widget.self) { Widget(serial: 1) } }

        let serials = layer.run { app.resolveAll(Widget.self).map(\.serial) }

        #expect(serials == [0])
        #expect(layer.missedOverrides.count == 1, "\(layer.missedOverrides.map(\.message))")
    }

    @Test func anOverrideOfAChildIsNotMissedByAParentsOwnRegistrationOrByValidation() {
        // The root's singleton Gadget keeps the root's Widget, as the app does; the test overrides the session's.
        let root = DIContainer()
        root.register(Widget.self) { Widget(serial: 0) }
        root.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }.scope(.singleton)
        let session = root.makeChild()
        session.register(Widget.self) { Widget(serial: 5) }.scope(.scoped)
        let layer = session.overrideLayer { $0.register(Widget.self) { Widget(serial: 1) } }

        let (serial, report) = layer.run { (session.resolve(Gadget.self).widget.serial, session.validationReport()) }

        #expect(serial == 0)
        #expect(report.untimedProblems.isEmpty, "\(report)")
        #expect(layer.missedOverrides.isEmpty, "\(layer.missedOverrides.map(\.message))")
    }

    @Test func anOverrideWarmUpBuildsIsReached() async throws {
        let app = DIContainer()
        app.register(Widget.self) { Widget(serial: 0) }.scope(.singleton).eager()
        let legacy = makeContainer()
        let layer = app.overrideLayer { $0.register(Widget.self) { Widget(serial: 1) }.scope(.singleton).eager() }

        let serial = try await layer.run {
            _ = try await app.warmUp()
            return legacy.resolve(Widget.self).serial
        }

        #expect(serial == 0)
        #expect(layer.missedOverrides.isEmpty, "\(layer.missedOverrides.map(\.message))")
    }

    @Test func anOverrideThatAResolveReachedIsNotReportedWhenAnotherContainerMissesIt() {
        // The override is used through its target: that a resolve through another container misses it is the test.
        let container = makeContainer()
        let unrelated = makeContainer()
        let layer = container.overrideLayer { $0.register(Widget.self) { Widget(serial: 1) } }

        let seen = layer.run { [container.resolve(Widget.self).serial, unrelated.resolve(Widget.self).serial] }

        #expect(seen == [1, 0])
        #expect(layer.missedOverrides.isEmpty, "\(layer.missedOverrides.map(\.message))")
    }

    @Test func anOverrideOfAnArgumentRegistrationIsValidatedWithTheSampleOfTheOneItReplaces() {
        let container = DIContainer()
        container.register(Widget.self) { (_: DIResolver, serial: Int) in Widget(serial: serial) }
            .validationArgument(7)
        let built = Collector<Int>()

        let report = withOverrides(in: container) {
            $0.register(Widget.self) { (_: DIResolver, serial: Int) in
                built.append(serial)
                return Widget(serial: serial + 100)
            }
        } operation: {
            container.validationReport()
        }

        #expect(report.untimedProblems.isEmpty, "\(report)")
        #expect(built.values == [7], "the override was built with the replaced registration's sample")
    }

    @Test func aResolveOutsideTheOverridesTaskThatFindsNothingIsToldTheOverrideIsTheTasks() async throws {
        let container = DIContainer()

        let outcome = await withOverrides(in: container) {
            $0.register(OnlyOverridden.self) { OnlyOverridden(tag: "override") }
        } operation: {
            await Task.detached { Result { try container.resolveThrowing(OnlyOverridden.self) } }.value
        }

        let error = try #require(throws: ResolutionError.self) { try outcome.get() }
        #expect(error.description.contains("a test override of OnlyOverridden, registered at"), "\(error)")
        #expect(error.description.contains("is active in another task, but this resolve runs outside it"), "\(error)")
        #expect(error.description.contains("fix: resolve inside the override's task"), "\(error)")
    }

    @Test func anOverrideOfAProtocolAnArgumentRegistrationImplementsBorrowsThatRegistrationsSample() {
        // The app registers a concrete type with a sample, forwarded to the protocol; the test overrides the protocol.
        let container = DIContainer()
        container.register(Gadget.self) { (_: DIResolver, serial: Int) in Gadget(widget: Widget(serial: serial)) }
            .implements(GadgetMaking.self)
            .validationArgument(7)
        let built = Collector<Int>()

        let report = withOverrides(in: container) {
            $0.register(GadgetMaking.self) { (_: DIResolver, serial: Int) in
                built.append(serial)
                return Gadget(widget: Widget(serial: serial))
            }
        } operation: {
            container.validationReport()
        }

        #expect(report.untimedProblems.isEmpty, "\(report)")
        #expect(built.values == [7])
    }

    @Test func anOverrideOfAParentBorrowsTheSampleOfTheChildRegistrationItReplacesThere() {
        let root = DIContainer()
        let child = root.makeChild()
        child.register(Widget.self) { (_: DIResolver, serial: Int) in Widget(serial: serial) }.validationArgument(3)
        let built = Collector<Int>()

        let report = withOverrides(in: root) {
            $0.register(Widget.self) { (_: DIResolver, serial: Int) in
                built.append(serial)
                return Widget(serial: serial)
            }
        } operation: {
            child.validationReport()
        }

        #expect(report.untimedProblems.isEmpty, "\(report)")
        #expect(built.values == [3])
    }

    @Test func propertyWrappersSeeTheOverrides() {
        wrapperContainer.register(Widget.self) { Widget(serial: 0) }.scope(.singleton)

        let seen = withOverrides(in: wrapperContainer) {
            $0.register(Widget.self) { Widget(serial: 1) }.scope(.singleton)
            $0.register(OnlyOverridden.self) { OnlyOverridden(tag: "override") }
        } operation: {
            let holder = WrapperHolder()
            return (holder.injected.serial, holder.lazy.serial, holder.weakly?.serial, holder.optional?.tag)
        }

        #expect(seen.0 == 1, "@Injected")
        #expect(seen.1 == 1, "@LazyInjected")
        #expect(seen.2 == 1, "@WeakInjected")
        #expect(seen.3 == "override", "@OptionalInjected")

        let after = WrapperHolder()
        #expect(after.injected.serial == 0)
        #expect(after.lazy.serial == 0)
        #expect(after.optional == nil)
    }

    // MARK: caches

    @Test(arguments: [Scope.singleton, .cached, .scoped, .custom("session")])
    func cachesAreFreshInsideAndTheContainersAreBackAfter(scope: Scope) {
        let made = Counter()
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: made.increment()) }.scope(scope)
        let before = container.resolve(Widget.self)

        let inside = withOverrides(in: container) {
            $0.register(OnlyOverridden.self) { OnlyOverridden(tag: "unrelated") }
        } operation: {
            let first = container.resolve(Widget.self)
            let second = container.resolve(Widget.self)
            #expect(first === second, "\(scope) is still shared inside the scope")
            return first
        }

        #expect(inside !== before, "a \(scope) instance resolved before the scope was seen inside it")
        #expect(container.resolve(Widget.self) === before, "the container's \(scope) instance was replaced")
        #expect(made.value == 2)
    }

    @Test func everythingBuiltInsideIsDroppedAfter() {
        let made = Counter()
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: made.increment()) }.scope(.singleton)
        weak var builtInside: Widget?
        weak var overriddenInside: OnlyOverridden?

        withOverrides(in: container) {
            $0.register(OnlyOverridden.self) { OnlyOverridden(tag: "override") }.scope(.singleton)
        } operation: {
            let widget = container.resolve(Widget.self)
            let overridden = container.optional(OnlyOverridden.self)
            #expect(overridden != nil)
            builtInside = widget
            overriddenInside = overridden
            #expect(widget.serial == 1)
        }

        #expect(builtInside == nil, "the container's singleton built inside the scope survived it")
        #expect(overriddenInside == nil, "the override's singleton survived the scope")
        #expect(container.resolve(Widget.self).serial == 2, "the singleton built inside was kept by the container")
        #expect(!container.isRegistered(OnlyOverridden.self))
    }

    // MARK: nesting

    @Test func nestedOverridesInnerWinsAndOuterIsBackAfter() {
        let container = makeContainer()

        let seen = withOverrides(in: container) {
            $0.register(Widget.self) { Widget(serial: 1) }
            $0.register(OnlyOverridden.self) { OnlyOverridden(tag: "outer") }
        } operation: {
            var seen = [container.resolve(Widget.self).serial]
            let inner = withOverrides(in: container) {
                $0.register(Widget.self) { Widget(serial: 2) }
            } operation: {
                (container.resolve(Widget.self).serial, container.optional(OnlyOverridden.self)?.tag)
            }
            #expect(inner.1 == "outer", "the outer override that the inner one does not replace must still apply")
            seen.append(inner.0)
            seen.append(container.resolve(Widget.self).serial)
            return seen
        }

        #expect(seen == [1, 2, 1])
        #expect(container.resolve(Widget.self).serial == 0)
    }

    @Test func nestedAsynchronousOverridesInnerWinsAndOuterIsBackAfter() async {
        let container = makeContainer()

        let seen = await withOverrides(in: container) {
            $0.register(Widget.self) { Widget(serial: 1) }
        } operation: {
            var seen = [container.resolve(Widget.self).serial]
            let inner = await withOverrides(in: container) {
                $0.register(Widget.self) { Widget(serial: 2) }
            } operation: {
                await Task.yield()
                return container.resolve(Widget.self).serial
            }
            seen.append(inner)
            await Task.yield()
            seen.append(container.resolve(Widget.self).serial)
            return seen
        }

        #expect(seen == [1, 2, 1])
        #expect(container.resolve(Widget.self).serial == 0)
    }

    @Test func nestedOverrideOnAChildContainerStacksOnTheParentsOverride() {
        let container = makeContainer()
        let child = container.makeChild()

        let seen = withOverrides(in: container) {
            $0.register(Widget.self) { Widget(serial: 1) }
        } operation: {
            withOverrides(in: child) {
                $0.register(OnlyOverridden.self) { OnlyOverridden(tag: "child") }
            } operation: {
                (
                    child.resolve(Widget.self).serial, child.optional(OnlyOverridden.self)?.tag,
                    container.optional(OnlyOverridden.self)?.tag
                )
            }
        }

        #expect(seen.0 == 1)
        #expect(seen.1 == "child")
        #expect(seen.2 == nil, "an override of the child reached its parent")
    }

    // MARK: what the task-local does not reach

    @Test func resolveOnADispatchQueueInsideTheScopeSeesTheContainersOwnRegistration() {
        let container = makeContainer()

        let seen: (queue: Int?, thread: Int?) = withOverrides(in: container) {
            $0.register(Widget.self) { Widget(serial: 1) }
        } operation: {
            #expect(container.resolve(Widget.self).serial == 1)
            let queue: Int? = onDispatchQueue { container.resolve(Widget.self).serial }
            let thread: Int? = onThread { container.resolve(Widget.self).serial }
            return (queue, thread)
        }

        #expect(seen.queue == 0, "a resolve on a DispatchQueue saw the task's override (or timed out: nil)")
        #expect(seen.thread == 0, "a resolve on a Thread saw the task's override (or timed out: nil)")
    }

    @Test func factorysResolverHandedToAnotherThreadKeepsTheOverrides() throws {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 0) }
        // The factory resolves its dependency on another thread, through its resolver, and waits for it.
        container.register(Gadget.self) { r in
            let widget = onThread { Result { try r.resolve(Widget.self) } }
            guard let widget else { throw FixtureError(text: "the resolve on the other thread timed out") }
            return Gadget(widget: try widget.get())
        }

        let seen = try withOverrides(in: container) {
            $0.register(Widget.self) { Widget(serial: 1) }
        } operation: {
            try container.resolveThrowing(Gadget.self).widget.serial
        }

        #expect(seen == 1, "the resolver lost the overrides on the other thread")
        #expect(try container.resolveThrowing(Gadget.self).widget.serial == 0)
    }
}

/// What a ``Gadget`` is forwarded as, by a test override.
private protocol Tool: Sendable {}
extension Gadget: Tool {}

/// Holds a widget weakly, made by a factory: its wrapper resolves through that factory's container.
private final class WeakWidgetHolder: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in init, and synchronises its own reads.
    @WeakInjected var widget: Widget?
}

/// The usual slips in an overrides closure: registering into the real container instead of the closure's parameter,
/// and sealing the override's container.
struct OverridesClosureMistakeTests {
    @Test func registeringIntoTheRealContainerInsideTheOverridesClosureTrapsSayingWhy() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = DIContainer()
            app.register(Widget.self) { Widget(serial: 0) }
            withOverrides(in: app) { _ in
                app.register(Widget.self) { Widget(serial: 1) }
            } operation: {
            }
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("registers into the real container inside a test override's closure"), "\(stderr)")
        #expect(stderr.contains("WithOverridesTests.swift:"), "the registration's line: \(stderr)")
        #expect(stderr.contains("fix: register on the closure's parameter"), "\(stderr)")
    }

    @Test func registeringIntoAParentOfTheOverriddenContainerTrapsToo() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = DIContainer()
            let session = app.makeChild()
            withOverrides(in: session) { _ in
                app.register(Widget.self) { Widget(serial: 1) }
            } operation: {
            }
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("registers into the real container inside a test override's closure"), "\(stderr)")
    }

    @Test func aContainerOfItsOwnMadeInsideTheClosureTakesRegistrations() {
        let app = DIContainer()
        app.register(Widget.self) { Widget(serial: 0) }

        let serial = withOverrides(in: app) {
            let helper = DIContainer()
            helper.register(Widget.self) { Widget(serial: 7) }
            let seven = helper.resolve(Widget.self)
            $0.register(Widget.self) { seven }
        } operation: {
            app.resolve(Widget.self).serial
        }

        #expect(serial == 7)
        #expect(app.resolve(Widget.self).serial == 0)
    }

    @Test func aChildOfTheOverriddenContainerMadeInsideTheClosureTakesRegistrations() async {
        // In a child process: a trap here would end the whole test run.
        await #expect(processExitsWith: .success) {
            let app = DIContainer()
            app.register(Widget.self) { Widget(serial: 0) }
            let serial = withOverrides(in: app) {
                let scratch = app.makeChild()
                scratch.register(Widget.self) { Widget(serial: 7) }
                let seven = scratch.resolve(Widget.self)
                $0.register(Widget.self) { seven }
            } operation: {
                app.resolve(Widget.self).serial
            }
            precondition(serial == 7, "the override got \(serial)")
            precondition(app.resolve(Widget.self).serial == 0)
        }
    }

    @Test func anOverrideThatTakesAnotherArgumentTypeSaysTheOverrideIsWhatDiffers() throws {
        let app = DIContainer()
        app.register(Widget.self) { (_: DIResolver, serial: Int) in Widget(serial: serial) }
        let line = #line + 2
        let error = try withOverrides(in: app) {
            $0.register(Widget.self) { (_: DIResolver, serial: String) in Widget(serial: serial.count) }
        } operation: {
            try #require(throws: ResolutionError.self) { try app.resolveThrowing(Widget.self, argument: 5) }
        }

        #expect(error.kind == .argumentMismatch)
        #expect(error.registration == "\(#fileID):\(line)", "the override's line: \(error)")
        #expect(error.description.contains("Widget is a test override, registered at"), "\(error)")
        #expect(error.description.contains("the code under test resolved it with one of type Int"), "\(error)")
        #expect(error.description.contains("(r: DIResolver, argument: Int) in ..."), "\(error)")
    }

    @Test func resettingTheRealContainerInsideTheOverridesClosureTrapsSayingWhereResetBelongs() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = DIContainer()
            app.register(Widget.self) { Widget(serial: 0) }.scope(.cached)
            withOverrides(in: app) { _ in
                app.reset(.cached)
            } operation: {
            }
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(
            stderr.contains("reset(.cached) changes the real container inside a test override's closure"),
            "\(stderr)"
        )
        #expect(stderr.contains("WithOverridesTests.swift:"), "the call's line: \(stderr)")
        #expect(stderr.contains("fix: call reset in the test's operation"), "\(stderr)")
        #expect(!stderr.contains("the registration stays"), "nothing was registered: \(stderr)")
        #expect(
            stderr.contains("the override ends, and the instances the reset dropped are not given back"),
            "\(stderr)"
        )
    }

    @Test func withOverridesInsideAFactoryTrapsInsteadOfBeingIgnored() async throws {
        // The factory's resolution keeps the overrides it started with: these would reach neither its resolver nor
        // the wrappers of what it builds, silently.
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = DIContainer()
            app.register(Widget.self) { Widget(serial: 0) }
            app.register(Gadget.self) { r in
                withOverrides(in: app) {
                    $0.register(Widget.self) { Widget(serial: 1) }
                } operation: {
                    Gadget(widget: try! r.resolve())
                }
            }
            _ = app.resolve(Gadget.self)
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("withOverrides was called inside Gadget's factory, registered at"), "\(stderr)")
        #expect(stderr.contains("WithOverridesTests.swift:"), "the factory's line: \(stderr)")
        #expect(stderr.contains("fix: wrap the resolve"), "\(stderr)")
    }

    @Test func resettingAScopeThatHoldsNothingInsideTheOverridesClosureIsTheNoOpItIsEverywhere() {
        let app = DIContainer()
        app.register(Widget.self) { Widget(serial: 0) }.scope(.singleton)
        let before = app.resolve(Widget.self)
        withOverrides(in: app) { _ in
            app.reset(.singleton)
            app.reset(.transient)
        } operation: {
        }
        #expect(app.resolve(Widget.self) === before)
    }

    @Test func sealingTheRealContainerInsideTheOverridesClosureTraps() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = DIContainer()
            withOverrides(in: app) { _ in
                app.seal()
            } operation: {
            }
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("seal() changes the real container inside a test override's closure"), "\(stderr)")
        #expect(!stderr.contains("the registration stays"), "nothing was registered: \(stderr)")
        #expect(stderr.contains("the override ends, and the container stays sealed"), "\(stderr)")
    }

    @Test func aPushInsideWithOverridesTrapsInsteadOfHidingAndKeepingIt() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = DIContainer()
            withOverrides(in: app) { _ in
            } operation: {
                // What XCTestCase.pushOverrides does, after it sets up the pop.
                app.overrideLayer { $0.register(Widget.self) { Widget(serial: 2) } }.push(file: #fileID, line: #line)
            }
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("pushOverrides was called inside withOverrides"), "\(stderr)")
        #expect(stderr.contains("fix: call pushOverrides in setUp or at the start of the test"), "\(stderr)")
    }

    @Test func registeringIntoAChildOfTheOverriddenContainerMadeBeforeTheTestTraps() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = DIContainer()
            let session = app.makeChild()
            withOverrides(in: app) { _ in
                session.register(Widget.self) { Widget(serial: 1) }
            } operation: {
            }
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(
            stderr.contains("registers into a child of the overridden container that was made before the closure"),
            "\(stderr)"
        )
        #expect(stderr.contains("apply to resolves through the overridden container's children too"), "\(stderr)")
    }

    @Test func validatingAnotherContainerFromATaskAnAsyncFactoryAwaitsDoesNotTrap() async throws {
        let app = DIContainer()
        let unrelated = DIContainer()
        unrelated.register(Widget.self) { Widget(serial: 3) }
        app.register(Gadget.self) { (_: DIResolver) async throws -> Gadget in
            let valid = await Task { unrelated.validationReport().isValid }.value
            return Gadget(widget: Widget(serial: valid ? 1 : 0))
        }

        #expect(try await app.resolveAsync(Gadget.self).widget.serial == 1)
    }

    @Test func aWeakPropertyWarningJudgesTheOverriddenScope() {
        let app = DIContainer()
        app.register(Widget.self) { Widget(serial: 0) }.scope(.transient)
        app.register(WeakWidgetHolder.self) { WeakWidgetHolder() }
        #expect(app.validationReport().untimedProblems.count == 1, "\(app.validationReport())")

        let report = withOverrides(in: app) {
            $0.register(Widget.self) { Widget(serial: 1) }.scope(.singleton)
        } operation: {
            app.validationReport()
        }

        #expect(report.untimedProblems.isEmpty, "the override keeps its Widget: \(report)")
    }

    @Test func anOverridesForwardOfItsOwnArgumentRegistrationIsValidatedWithItsSample() {
        let app = DIContainer()
        app.register(Widget.self) { Widget(serial: 0) }

        let (report, all) = withOverrides(in: app) {
            $0.register(Gadget.self) { (_: DIResolver, serial: Int) in Gadget(widget: Widget(serial: serial)) }
                .validationArgument(7)
                .implements(Tool.self)
        } operation: {
            (app.validationReport(), app.resolveAll(Tool.self))
        }

        #expect(report.untimedProblems.isEmpty, "\(report)")
        #expect(all.isEmpty, "an argument registration's forward is left out of resolveAll")
    }

    @Test func aRegistrationOnlyAnOverrideMakesIsValidatedToo() async {
        let app = DIContainer()
        app.register(Widget.self) { Widget(serial: 0) }
        let line = #line + 2
        let (report, asyncReport) = await withOverrides(in: app) {
            $0.register(OnlyOverridden.self) { r in
                OnlyOverridden(tag: "\(try r.resolve(Widget.self, name: "missing").serial)")
            }
        } operation: {
            (app.validationReport(), await app.validationReportAsync())
        }

        for report in [report, asyncReport] {
            #expect(!report.isValid, "\(report)")
            #expect(report.description.contains("nothing is registered for Widget named \"missing\""), "\(report)")
            #expect(report.untimedProblems.contains { $0.location == "\(#fileID):\(line)" }, "\(report)")
        }
    }

    @Test func anOverrideThatResolvesWhatItReplacesSaysHowToWrapTheRealOne() throws {
        let app = DIContainer()
        app.register(Widget.self) { Widget(serial: 0) }

        let error = try withOverrides(in: app) {
            $0.register(Widget.self) { r in Widget(serial: try r.resolve(Widget.self).serial + 1) }
        } operation: {
            try #require(throws: ResolutionError.self) { try app.resolveThrowing(Widget.self) }
        }

        #expect(error.kind == .cycle)
        #expect(error.description.contains("Widget is a test override, and its factory asks for Widget"), "\(error)")
        #expect(error.description.contains("let real = container.resolve(Widget.self)"), "\(error)")
        #expect(!error.description.contains("@LazyInjected"), "advice that cannot work here: \(error)")
    }

    @Test func wrappingTheRealServiceCapturedBeforeTheOverrideWorks() {
        let app = DIContainer()
        app.register(Widget.self) { Widget(serial: 0) }
        let real = app.resolve(Widget.self)

        let serial = withOverrides(in: app) {
            $0.register(Widget.self) { Widget(serial: real.serial + 1) }
        } operation: {
            app.resolve(Widget.self).serial
        }

        #expect(serial == 1)
    }

    @Test func resettingASingletonThatOnlyAnOverrideRegistersSaysItIsTheOverrides() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = DIContainer()
            withOverrides(in: app) {
                $0.register(Widget.self) { Widget(serial: 1) }.scope(.singleton)
            } operation: {
                app.reset(Widget.self)
            }
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("Widget, registered by a test override at"), "\(stderr)")
        #expect(stderr.contains("is a .singleton"), "\(stderr)")
    }

    @Test func sealingTheOverridesContainerTrapsNamingThatContainer() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = DIContainer()
            withOverrides(in: app) {
                $0.seal()
                $0.register(Widget.self) { Widget(serial: 1) }
            } operation: {
            }
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("on the container of a test override's closure, which seal() closed"), "\(stderr)")
        #expect(stderr.contains("fix: remove seal() from the overrides closure"), "\(stderr)")
        #expect(!stderr.contains("replace the service with an override"), "\(stderr)")
    }
}
