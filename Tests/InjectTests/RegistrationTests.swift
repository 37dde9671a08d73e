import Inject
import InjectTestSupport
import Testing

private struct WidgetModule: DIModule {
    func register(in container: DIContainer) {
        container.register(Widget.self) { Widget(serial: 1) }
    }
}

private struct GreeterModule: DIModule {
    func register(in container: DIContainer) {
        container.register(Greeter.self) { EnglishGreeter(greeting: "from a module") }
    }
}

/// A service whose properties `resolveProperties` sets, recording the order things happen in.
private final class Assembled: @unchecked Sendable {
    // @unchecked: only the test's one thread touches `steps`, inside one resolve.
    var steps: [String]

    init(steps: [String]) {
        self.steps = steps
    }
}

struct RegistrationTests {
    @Test func registeringWithAnExplicitTypeResolvesThatType() {
        let container = DIContainer()
        container.register(Greeter.self) { EnglishGreeter(greeting: "explicit") }

        let greeter = container.resolve(Greeter.self)

        #expect(greeter.greeting == "explicit")
        #expect(greeter is EnglishGreeter)
    }

    @Test func registeringWithAnInferredTypeResolvesTheFactorysType() {
        let container = DIContainer()
        container.register { Widget(serial: 7) }
        container.register { r in Gadget(widget: try r.resolve()) }

        let widget: Widget = container.resolve()
        let gadget = container.resolve(Gadget.self)

        #expect(widget.serial == 7)
        #expect(gadget.widget.serial == 7)
    }

    @Test func namesFromStringLiteralsAndStaticMembersAreTheSameName() {
        let container = DIContainer()
        container.register(Greeter.self, name: "live") { EnglishGreeter(greeting: "literal") }

        #expect(container.resolve(Greeter.self, name: .live).greeting == "literal")
        #expect(DIContainer.Name.live == DIContainer.Name("live"))
        #expect(DIContainer.Name.live.rawValue == "live")
        #expect(DIContainer.Name.live.description == "live")
    }

    @Test func aNameMayBeAnInterpolatedStringLiteral() {
        let container = DIContainer()
        for index in 1...3 {
            container.register(Greeter.self, name: "plugin-\(index)") { EnglishGreeter(greeting: "plugin \(index)") }
        }

        #expect(container.resolve(Greeter.self, name: "plugin-\(2)").greeting == "plugin 2")
        #expect(DIContainer.Name("plugin-3") == "plugin-\(3)")
    }

    @Test func namesDistinguishRegistrationsOfTheSameType() {
        let container = DIContainer()
        container.register(Greeter.self) { EnglishGreeter(greeting: "unnamed") }
        container.register(Greeter.self, name: .live) { EnglishGreeter(greeting: "live") }
        container.register(Greeter.self, name: "mock") { EnglishGreeter(greeting: "mock") }

        #expect(container.resolve(Greeter.self).greeting == "unnamed")
        #expect(container.resolve(Greeter.self, name: .live).greeting == "live")
        #expect(container.resolve(Greeter.self, name: .mock).greeting == "mock")
    }

    @Test(arguments: [Scope.singleton, .cached, .custom("session"), .scoped])
    func implementsGivesTheSameInstanceForTheProtocolAndTheType(scope: Scope) {
        let container = DIContainer()
        container.register(EnglishGreeter.self) { EnglishGreeter() }
            .scope(scope)
            .implements(Greeter.self)

        let concrete = container.resolve(EnglishGreeter.self)
        let forwarded = container.resolve(Greeter.self)

        #expect(forwarded as? EnglishGreeter === concrete)
    }

    @Test func implementsWithANameForwardsUnderThatName() {
        let container = DIContainer()
        container.register(EnglishGreeter.self) { EnglishGreeter(greeting: "named forward") }
            .scope(.singleton)
            .implements(Greeter.self, name: .live)

        #expect(container.resolve(Greeter.self, name: .live).greeting == "named forward")
        #expect(!container.isRegistered(Greeter.self))
    }

    @Test func implementsSharesTheGraphInstanceWithinOneResolve() {
        let container = DIContainer()
        container.register(EnglishGreeter.self) { EnglishGreeter() }.implements(Greeter.self)
        container.register(Pair.self) { r in Pair(first: try r.resolve(Greeter.self), second: try r.resolve()) }

        let pair = container.resolve(Pair.self)

        #expect(pair.first as? EnglishGreeter === pair.second)
    }

    @Test func implementsForwardsToALaterReRegistrationOfTheType() {
        let container = DIContainer()
        container.register(EnglishGreeter.self) { EnglishGreeter(greeting: "first") }.implements(Greeter.self)
        container.register(EnglishGreeter.self) { EnglishGreeter(greeting: "second") }

        #expect(container.resolve(Greeter.self).greeting == "second")
    }

    @Test func resolvePropertiesRunsAfterTheFactoryInTheOrderAdded() {
        let container = DIContainer()
        container.register(Assembled.self) { Assembled(steps: ["factory"]) }
            .resolveProperties { _, made in made.steps.append("first properties") }
            .resolveProperties { _, made in made.steps.append("second properties") }

        let made = container.resolve(Assembled.self)

        #expect(made.steps == ["factory", "first properties", "second properties"])
    }

    @Test func resolvePropertiesRunsOncePerNewInstance() {
        let runs = Counter()
        let container = DIContainer()
        container.register(Widget.self) { Widget() }
            .scope(.singleton)
            .resolveProperties { _, _ in runs.increment() }
        container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }
            .scope(.transient)
            .resolveProperties { _, _ in runs.increment() }

        _ = container.resolve(Widget.self)
        _ = container.resolve(Widget.self)
        #expect(runs.value == 1)

        _ = container.resolve(Gadget.self)
        _ = container.resolve(Gadget.self)
        #expect(runs.value == 3)
    }

    @Test func resolvePropertiesCanResolveDependencies() {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 42) }
        container.register(Assembled.self) { Assembled(steps: []) }
            .resolveProperties { r, made in made.steps.append("widget \(try r.resolve(Widget.self).serial)") }

        #expect(container.resolve(Assembled.self).steps == ["widget 42"])
    }

    @Test func optionalIsNilOnlyWhenNothingIsRegistered() {
        let container = DIContainer()
        #expect(container.optional(Widget.self) == nil)
        #expect(container.optional(Widget.self, name: .live) == nil)

        container.register(Widget.self) { Widget(serial: 3) }

        #expect(container.optional(Widget.self)?.serial == 3)
        #expect(container.optional(Widget.self, name: .live) == nil)
    }

    @Test func optionalFindsAParentsRegistration() {
        let parent = DIContainer()
        parent.register(Widget.self) { Widget(serial: 5) }

        #expect(parent.makeChild().optional(Widget.self)?.serial == 5)
    }

    @Test func resolveThrowingReturnsTheInstanceOrThrows() throws {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 9) }

        #expect(try container.resolveThrowing(Widget.self).serial == 9)
        #expect(throws: ResolutionError.self) {
            try container.resolveThrowing(Gadget.self)
        }
    }

    @Test func isRegisteredLooksThroughParentsButNotIntoChildren() {
        let root = DIContainer()
        let child = root.makeChild()
        let grandchild = child.makeChild()
        root.register(Widget.self) { Widget() }
        child.register(Gadget.self, name: .live) { r in Gadget(widget: try r.resolve()) }

        #expect(root.isRegistered(Widget.self))
        #expect(child.isRegistered(Widget.self))
        #expect(grandchild.isRegistered(Widget.self))
        #expect(grandchild.isRegistered(Gadget.self, name: .live))
        #expect(!root.isRegistered(Gadget.self, name: .live))
        #expect(!child.isRegistered(Gadget.self))
        #expect(!root.isRegistered(Widget.self, name: .live))
        #expect(!root.isRegistered(Greeter.self))
    }

    @Test func installRegistersEveryModule() {
        let container = DIContainer()
        container.install(WidgetModule(), GreeterModule())

        #expect(container.resolve(Widget.self).serial == 1)
        #expect(container.resolve(Greeter.self).greeting == "from a module")
    }

    @Test func aLaterRegistrationReplacesTheEarlierOne() {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 1) }
        container.register(Widget.self) { Widget(serial: 2) }

        #expect(container.resolve(Widget.self).serial == 2)
    }

    @Test func reRegisteringABuiltSingletonReplacesIt() {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 1) }.scope(.singleton)
        #expect(container.resolve(Widget.self).serial == 1)

        container.register(Widget.self) { Widget(serial: 2) }.scope(.singleton)

        #expect(container.resolve(Widget.self).serial == 2)
    }

    @Test func reRegisteringInAChildDoesNotReplaceTheParents() {
        let parent = DIContainer()
        let child = parent.makeChild()
        parent.register(Widget.self) { Widget(serial: 1) }
        child.register(Widget.self) { Widget(serial: 2) }

        #expect(parent.resolve(Widget.self).serial == 1)
        #expect(child.resolve(Widget.self).serial == 2)
    }

    @Test func sealMarksTheContainerSealed() {
        let container = DIContainer()
        #expect(!container.isSealed)

        container.seal()

        #expect(container.isSealed)
        #expect(!container.makeChild().isSealed)
    }

    @Test func aSealedContainerStillResolvesAndItsChildrenStillRegister() {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 4) }
        container.seal()
        let child = container.makeChild()
        child.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }

        #expect(container.resolve(Widget.self).serial == 4)
        #expect(child.resolve(Gadget.self).widget.serial == 4)
    }

    @Test func anOptionalTypeWithoutARegistrationFallsBackToTheWrappedType() throws {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 8) }
        container.register(Gadget.self) { r in
            let widget: Widget? = try r.resolve()
            return Gadget(widget: widget ?? Widget(serial: -1))
        }

        let direct = try container.resolveThrowing(Widget?.self)

        #expect(direct?.serial == 8)
        #expect(container.resolve(Gadget.self).widget.serial == 8)
    }

    @Test func anOptionalTypeWithItsOwnRegistrationUsesIt() {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 8) }
        container.register(Widget?.self) { nil }

        #expect(container.resolve(Widget?.self) == nil)
    }
}

/// Two views of what may be one instance.
private struct Pair: Sendable {
    let first: any Greeter
    let second: EnglishGreeter
}
