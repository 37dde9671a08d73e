import Foundation
import InjectTesting
import Testing

// Trait arguments are evaluated when the tests are discovered, so each container a trait overrides is a global here.

/// The container of the test-level trait tests.
private let traitContainer: DIContainer = {
    let container = DIContainer()
    container.register(Widget.self) { Widget(serial: 0) }
    container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }
    return container
}()

/// The container of the parameterised test: the override's `Claimable` must be a new one for each case.
private let casesContainer = DIContainer()

/// The container of ``OverridesSuiteTraitTests``.
private let suiteContainer: DIContainer = {
    let container = DIContainer()
    container.register(Widget.self) { Widget(serial: 0) }
    container.register(OnlyOverridden.self) { OnlyOverridden(tag: "container") }
    return container
}()

/// A service only the tests of this file know, so that overriding it in `DIContainer.shared` collides with nothing.
private final class SharedTraitProbe: Sendable {
    let tag: String

    init(tag: String) {
        self.tag = tag
    }
}

/// Resolves the probe with the wrappers' default container, `DIContainer.shared`. `@Injected` traps when the probe
/// is missing: build it only where the override is in place.
private final class SharedProbeHolder {
    @Injected var injected: SharedTraitProbe
    @OptionalInjected var optional: SharedTraitProbe?
}

/// As ``SharedProbeHolder``, without the wrapper that traps.
private final class OptionalSharedProbeHolder {
    @OptionalInjected var optional: SharedTraitProbe?
}

/// The `.overrides` trait on single tests.
struct OverridesTraitTests {
    @Test(.overrides(in: traitContainer) { $0.register(Widget.self) { Widget(serial: 1) } })
    func traitOverridesTheContainerForTheTest() throws {
        #expect(traitContainer.resolve(Widget.self).serial == 1)
        #expect(try traitContainer.resolveThrowing(Gadget.self).widget.serial == 1)
        #expect(traitContainer.makeChild().resolve(Widget.self).serial == 1)
    }

    @Test(.overrides(in: traitContainer) { $0.register(Widget.self) { Widget(serial: 2) } })
    func traitOverridesAnAsynchronousTestAcrossSuspensionPoints() async throws {
        for _ in 0..<5 {
            #expect(traitContainer.resolve(Widget.self).serial == 2)
            try await Task.sleep(nanoseconds: 1_000_000)
            #expect(await Task { traitContainer.resolve(Widget.self).serial }.value == 2)
        }
    }

    @Test func aTestWithoutTheTraitSeesTheContainersOwnRegistration() {
        #expect(traitContainer.resolve(Widget.self).serial == 0)
    }

    @Test(.overrides { $0.register(SharedTraitProbe.self) { SharedTraitProbe(tag: "shared override") } })
    func traitOverridesTheSharedContainerByDefault() {
        #expect(DIContainer.shared.optional(SharedTraitProbe.self)?.tag == "shared override")
        // `@Injected` traps on a missing registration: build the holder only when the override is there.
        guard DIContainer.shared.isRegistered(SharedTraitProbe.self) else { return }
        let holder = SharedProbeHolder()
        #expect(holder.injected.tag == "shared override")
        #expect(holder.optional?.tag == "shared override")
    }

    @Test func aTestWithoutTheTraitDoesNotSeeTheSharedContainersOverride() {
        #expect(DIContainer.shared.optional(SharedTraitProbe.self) == nil)
        #expect(OptionalSharedProbeHolder().optional == nil)
    }

    @Test(
        .overrides(in: casesContainer) { $0.register(Claimable.self) { Claimable() }.scope(.singleton) },
        arguments: 0..<6
    )
    func eachCaseOfAParameterisedTestGetsItsOwnLayer(index: Int) throws {
        let claimable = try casesContainer.resolveThrowing(Claimable.self)
        let previous = claimable.claim(for: "case \(index)")
        #expect(previous == nil, "case \(index) got the singleton that \(previous ?? "") had built in its layer")
        #expect(claimable === casesContainer.resolve(Claimable.self), "the singleton is not shared within the case")
    }
}

/// The `.overrides` trait on a suite: every test, in nested suites too, runs in a fresh layer of its own, and a trait
/// on a test stacks on the suite's, the test's winning.
@Suite(
    .overrides(in: suiteContainer) {
        $0.register(Widget.self) { Widget(serial: 1) }
        $0.register(OnlyOverridden.self) { OnlyOverridden(tag: "suite") }
        $0.register(Claimable.self) { Claimable() }.scope(.singleton)
    }
)
struct OverridesSuiteTraitTests {
    /// Checks that the suite's override applies and that this test's singleton was built in its own layer.
    private func checkSuiteOverride(in test: String) throws {
        #expect(suiteContainer.resolve(Widget.self).serial == 1)
        let claimable = try suiteContainer.resolveThrowing(Claimable.self)
        let previous = claimable.claim(for: test)
        #expect(previous == nil, "\(test) got the singleton that \(previous ?? "") had built: the layer is shared")
    }

    @Test func firstTestOfTheSuiteSeesTheSuitesOverride() throws {
        try checkSuiteOverride(in: "first")
    }

    @Test func secondTestOfTheSuiteSeesTheSuitesOverride() throws {
        try checkSuiteOverride(in: "second")
    }

    @Test func thirdTestOfTheSuiteSeesTheSuitesOverride() async throws {
        await Task.yield()
        try checkSuiteOverride(in: "third")
    }

    @Test(arguments: ["a", "b", "c"])
    func eachCaseInTheSuiteGetsItsOwnLayer(name: String) throws {
        try checkSuiteOverride(in: "case \(name)")
    }

    @Test(.overrides(in: suiteContainer) { $0.register(Widget.self) { Widget(serial: 2) } })
    func testsTraitStacksOnTheSuitesAndWins() throws {
        #expect(suiteContainer.resolve(Widget.self).serial == 2, "the test's override must win over the suite's")
        #expect(suiteContainer.resolve(OnlyOverridden.self).tag == "suite", "the suite's other overrides must apply")
        let claimable = try suiteContainer.resolveThrowing(Claimable.self)
        #expect(claimable.claim(for: "stacked") == nil)
    }

    @Suite struct NestedSuite {
        @Test func testInANestedSuiteSeesTheOuterSuitesOverride() throws {
            #expect(suiteContainer.resolve(Widget.self).serial == 1)
            #expect(suiteContainer.resolve(OnlyOverridden.self).tag == "suite")
            let claimable = try suiteContainer.resolveThrowing(Claimable.self)
            #expect(claimable.claim(for: "nested") == nil)
        }
    }
}

/// Outside the suite, its trait does not apply.
struct OverridesSuiteTraitBoundaryTests {
    @Test func aTestOutsideTheSuiteSeesTheContainersOwnRegistrations() {
        #expect(suiteContainer.resolve(Widget.self).serial == 0)
        #expect(suiteContainer.resolve(OnlyOverridden.self).tag == "container")
    }
}
