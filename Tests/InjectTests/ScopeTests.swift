import Inject
import InjectTestSupport
import Testing

/// Two services built in one resolve, to see whether they share a dependency.
private final class Dashboard: Sendable {
    let left: Gadget
    let right: Gadget

    init(left: Gadget, right: Gadget) {
        self.left = left
        self.right = right
    }
}

/// Value-type services, each resolved twice inside one resolve.
private struct ValueBundle: Sendable {
    let numbers: [Int]
    let texts: [String]
    let points: [Point]
}

struct ScopeTests {
    // MARK: transient

    @Test(arguments: [Scope.transient, .unique])
    func transientBuildsANewInstanceOnEveryResolve(scope: Scope) {
        let made = Counter()
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: made.increment()) }.scope(scope)
        container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }.scope(.transient)
        container.register(Dashboard.self) { r in Dashboard(left: try r.resolve(), right: try r.resolve()) }

        let first = container.resolve(Widget.self)
        let second = container.resolve(Widget.self)
        let dashboard = container.resolve(Dashboard.self)

        #expect(first !== second)
        #expect(dashboard.left.widget !== dashboard.right.widget)
        #expect(made.value == 4)
    }

    // MARK: graph

    @Test func graphIsTheDefaultAndSharesOneInstanceWithinOneResolve() {
        let made = Counter()
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: made.increment()) }
        container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }.scope(.transient)
        container.register(Dashboard.self) { r in Dashboard(left: try r.resolve(), right: try r.resolve()) }

        let dashboard = container.resolve(Dashboard.self)

        #expect(dashboard.left !== dashboard.right)
        #expect(dashboard.left.widget === dashboard.right.widget)
        #expect(made.value == 1)
    }

    @Test func graphBuildsANewInstanceForEachTopLevelResolve() {
        let made = Counter()
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: made.increment()) }.scope(.graph)
        container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }.scope(.transient)
        container.register(Dashboard.self) { r in Dashboard(left: try r.resolve(), right: try r.resolve()) }
            .scope(.transient)

        let first = container.resolve(Dashboard.self)
        let second = container.resolve(Dashboard.self)
        let alone = container.resolve(Widget.self)

        #expect(first.left.widget !== second.left.widget)
        #expect(second.left.widget === second.right.widget)
        #expect(alone !== first.left.widget && alone !== second.left.widget)
        #expect(made.value == 3)
    }

    // MARK: singleton

    @Test(arguments: [Scope.singleton, .application])
    func singletonIsBuiltOnceAndShared(scope: Scope) {
        let made = Counter()
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: made.increment()) }.scope(scope)
        container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }.scope(.transient)
        #expect(made.value == 0)  // lazily: nothing built at registration

        let first = container.resolve(Widget.self)
        let second = container.resolve(Widget.self)
        let gadget = container.resolve(Gadget.self)
        let child = container.makeChild().resolve(Widget.self)

        #expect(first === second)
        #expect(gadget.widget === first)
        #expect(child === first)
        #expect(made.value == 1)
    }

    @Test func resettingTheSingletonScopeDoesNothing() {
        let made = Counter()
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: made.increment()) }.scope(.singleton)
        let before = container.resolve(Widget.self)

        container.reset(.singleton)
        container.reset(.application)
        container.reset(.graph)
        container.reset(.transient)

        #expect(container.resolve(Widget.self) === before)
        #expect(made.value == 1)
    }

    // MARK: cached

    @Test func cachedIsSharedUntilResetCached() {
        let made = Counter()
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: made.increment()) }.scope(.cached)

        let first = container.resolve(Widget.self)
        #expect(container.resolve(Widget.self) === first)
        #expect(made.value == 1)

        container.reset(.cached)
        let afterReset = container.resolve(Widget.self)

        #expect(afterReset !== first)
        #expect(container.resolve(Widget.self) === afterReset)
        #expect(made.value == 2)
    }

    @Test func resetCachedLeavesSingletonsAndOtherScopesAlone() {
        let container = DIContainer()
        container.register(Widget.self) { Widget() }.scope(.cached)
        container.register(Widget.self, name: .live) { Widget() }.scope(.singleton)
        container.register(Widget.self, name: .mock) { Widget() }.scope(.session)
        let cached = container.resolve(Widget.self)
        let singleton = container.resolve(Widget.self, name: .live)
        let session = container.resolve(Widget.self, name: .mock)

        container.reset(.cached)

        #expect(container.resolve(Widget.self) !== cached)
        #expect(container.resolve(Widget.self, name: .live) === singleton)
        #expect(container.resolve(Widget.self, name: .mock) === session)
    }

    // MARK: weak

    @Test(arguments: [Scope.weak, .shared])
    func weakIsSharedWhileHeldAndRebuiltAfterRelease(scope: Scope) {
        let made = Counter()
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: made.increment()) }.scope(scope)

        var held: Widget? = container.resolve(Widget.self)
        #expect(container.resolve(Widget.self) === held)
        #expect(made.value == 1)

        weak let released = held
        held = nil
        #expect(released == nil)

        let rebuilt = container.resolve(Widget.self)
        #expect(rebuilt.serial == 2)
        #expect(made.value == 2)
    }

    @Test func aValueTypeInWeakScopeActsAsTransientAndValidationWarns() throws {
        let container = DIContainer()
        let made = Counter()
        let line = #line + 1
        container.register(Point.self) { Point(x: made.increment(), y: 2) }.scope(.weak)

        #expect(try container.resolveThrowing(Point.self).x == 1)
        #expect(try container.resolveThrowing(Point.self).x == 2, "nothing holds a value type weakly: built again")

        let report = container.validationReport()
        let warning = try onlyProblem(ofKind: .invalidRegistration, in: report)
        #expect(warning.severity == .warning)
        #expect(warning.location == registeredAt(line))
        #expect(warning.message.contains("Point is registered in .weak scope"), "\(warning)")
        #expect(warning.description.contains("as .transient"), "\(warning)")
        #expect(report.isValid)
    }

    // MARK: scoped

    @Test func scopedGivesOneInstancePerResolvingContainer() {
        let made = Counter()
        let parent = DIContainer()
        parent.register(Widget.self) { Widget(serial: made.increment()) }.scope(.scoped)
        let first = parent.makeChild()
        let second = parent.makeChild()

        let inFirst = first.resolve(Widget.self)
        let inSecond = second.resolve(Widget.self)
        let inParent = parent.resolve(Widget.self)

        #expect(first.resolve(Widget.self) === inFirst)
        #expect(second.resolve(Widget.self) === inSecond)
        #expect(parent.resolve(Widget.self) === inParent)
        #expect(inFirst !== inSecond)
        #expect(inParent !== inFirst && inParent !== inSecond)
        #expect(made.value == 3)
    }

    @Test func scopedInstancesAreReleasedWithTheirContainer() {
        let parent = DIContainer()
        parent.register(Widget.self) { Widget() }.scope(.scoped)
        var child: DIContainer? = parent.makeChild()
        weak let instance = child?.resolve(Widget.self)
        weak let released = child
        #expect(instance != nil)  // the child holds it

        child = nil

        #expect(released == nil)
        #expect(instance == nil)
    }

    @Test func resetScopedDropsTheContainersScopedInstances() {
        let container = DIContainer()
        container.register(Widget.self) { Widget() }.scope(.scoped)
        let before = container.resolve(Widget.self)

        container.reset(.scoped)

        #expect(container.resolve(Widget.self) !== before)
    }

    // MARK: custom

    @Test func customScopeIsSharedUntilThatScopeIsReset() {
        let container = DIContainer()
        container.register(Widget.self) { Widget() }.scope(.custom("session"))
        container.register(Widget.self, name: .live) { Widget() }.scope(.custom("device"))
        container.register(Widget.self, name: .mock) { Widget() }.scope(.cached)
        let session = container.resolve(Widget.self)
        let device = container.resolve(Widget.self, name: .live)
        let cached = container.resolve(Widget.self, name: .mock)
        #expect(container.resolve(Widget.self) === session)

        container.reset(.custom("session"))

        let newSession = container.resolve(Widget.self)
        #expect(newSession !== session)
        #expect(container.resolve(Widget.self) === newSession)
        #expect(container.resolve(Widget.self, name: .live) === device)
        #expect(container.resolve(Widget.self, name: .mock) === cached)
    }

    @Test func customScopesWithEqualNamesAreTheSameScope() {
        let container = DIContainer()
        container.register(Widget.self) { Widget() }.scope(.session)
        let before = container.resolve(Widget.self)

        #expect(Scope.custom("session") == Scope.session)
        #expect(Scope.custom("session") != Scope.custom("device"))
        container.reset(.custom("device"))
        #expect(container.resolve(Widget.self) === before)

        container.reset(.custom("session"))
        #expect(container.resolve(Widget.self) !== before)
    }

    // MARK: value types

    @Test(arguments: [Scope.singleton, .cached, .custom("session"), .scoped, .graph])
    func valueTypesWorkInEveryCachingScope(scope: Scope) {
        let made = Counter()
        let container = DIContainer()
        container.register(Int.self) { made.increment() }.scope(scope)
        container.register(String.self) { "text \(made.increment())" }.scope(scope)
        container.register(Point.self) { Point(x: made.increment(), y: 0) }.scope(scope)
        container.register(ValueBundle.self) { r in
            ValueBundle(
                numbers: [try r.resolve(), try r.resolve()],
                texts: [try r.resolve(), try r.resolve()],
                points: [try r.resolve(), try r.resolve()]
            )
        }
        .scope(.transient)

        let bundle = container.resolve(ValueBundle.self)

        // Within one resolve every caching scope, graph included, builds each value once.
        #expect(made.value == 3)
        #expect(bundle.numbers[0] == bundle.numbers[1])
        #expect(bundle.texts[0] == bundle.texts[1])
        #expect(bundle.points[0] == bundle.points[1])

        let again = container.resolve(ValueBundle.self)
        if scope == .graph {
            #expect(made.value == 6)
            #expect(again.numbers[0] != bundle.numbers[0])
        } else {
            #expect(made.value == 3)
            #expect(again.numbers == bundle.numbers)
            #expect(again.texts == bundle.texts)
            #expect(again.points == bundle.points)
            #expect(container.resolve(Int.self) == bundle.numbers[0])
        }
    }
}
