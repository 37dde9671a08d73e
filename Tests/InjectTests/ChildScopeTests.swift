import Inject
import Testing

struct ChildScopeTests {
    @Test func aScopedServiceResolvedThroughTheRootIsToldToResolveThroughTheChild() throws {
        final class RequestContext: Sendable {}
        final class Transaction: Sendable {
            init(context: RequestContext) {}
        }
        let server = DIContainer()
        server.register { r in Transaction(context: try r.resolve()) }.scope(.scoped)
        let request = server.makeChild()
        request.register { RequestContext() }.scope(.scoped)

        let error = try #require(throws: ResolutionError.self) { try server.resolveThrowing(Transaction.self) }

        #expect(
            error.description.contains(
                "or, if each child container (a session's, a request's) registers RequestContext, resolve Transaction, which is .scoped, through that child rather than the root."
            ),
            "\(error)"
        )
        _ = try request.resolveThrowing(Transaction.self)
    }

    @Test func makeChildIsTheSameAsInitWithParent() {
        let parent = DIContainer()
        let made = parent.makeChild()
        let initialised = DIContainer(parent: parent)
        parent.register(Widget.self) { Widget(serial: 21) }

        #expect(made.parent === parent)
        #expect(initialised.parent === parent)
        #expect(parent.parent == nil)
        #expect(made.resolve(Widget.self).serial == 21)
        #expect(initialised.resolve(Widget.self).serial == 21)
    }

    @Test func aChildSeesItsParentsAndGrandparentsRegistrations() {
        let root = DIContainer()
        let grandchild = root.makeChild().makeChild()
        root.register(Widget.self) { Widget(serial: 22) }

        #expect(grandchild.resolve(Widget.self).serial == 22)
    }

    @Test func aParentNeverSeesAChildsRegistration() throws {
        let parent = DIContainer()
        let child = parent.makeChild()
        child.register(Widget.self) { Widget() }

        #expect(parent.optional(Widget.self) == nil)
        let error = try #require(throws: ResolutionError.self) {
            try parent.resolveThrowing(Widget.self)
        }
        #expect(error.kind == .notRegistered)
    }

    @Test func aChildsRegistrationShadowsTheParentsOnlyInTheChild() {
        let parent = DIContainer()
        let child = parent.makeChild()
        let sibling = parent.makeChild()
        parent.register(Logger.self) { Logger(tag: "parent") }
        child.register(Logger.self) { Logger(tag: "child") }

        #expect(child.resolve(Logger.self).tag == "child")
        #expect(parent.resolve(Logger.self).tag == "parent")
        #expect(sibling.resolve(Logger.self).tag == "parent")
    }

    @Test(arguments: [Scope.singleton, .cached])
    func aSharedInstanceTakesItsDependenciesFromItsRegisteringContainer(scope: Scope) {
        let parent = DIContainer()
        let child = parent.makeChild()
        parent.register(Logger.self) { Logger(tag: "parent") }
        parent.register(Reporter.self) { r in Reporter(logger: try r.resolve()) }.scope(scope)
        child.register(Logger.self) { Logger(tag: "child") }

        // Resolved through the child first: the child's shadowing Logger must still not be captured.
        let throughChild = child.resolve(Reporter.self)
        let throughParent = parent.resolve(Reporter.self)

        #expect(throughChild.logger.tag == "parent")
        #expect(throughParent === throughChild)
    }

    @Test(arguments: [Scope.transient, .graph, .scoped])
    func aParentRegistrationResolvedThroughAChildTakesTheChildsDependencies(scope: Scope) {
        let parent = DIContainer()
        let child = parent.makeChild()
        parent.register(Logger.self) { Logger(tag: "parent") }
        parent.register(Reporter.self) { r in Reporter(logger: try r.resolve()) }.scope(scope)
        child.register(Logger.self) { Logger(tag: "child") }

        #expect(child.resolve(Reporter.self).logger.tag == "child")
        #expect(parent.resolve(Reporter.self).logger.tag == "parent")
    }

    @Test func aGraphDependencyOfAParentRegistrationIsSharedInTheChildsResolve() {
        let parent = DIContainer()
        let child = parent.makeChild()
        parent.register(Widget.self) { Widget() }
        parent.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }.scope(.transient)
        parent.register(Point.self) { r in
            let left = try r.resolve(Gadget.self)
            let right = try r.resolve(Gadget.self)
            return Point(x: left.widget === right.widget ? 1 : 0, y: 0)
        }

        #expect(child.resolve(Point.self).x == 1)
    }

    @Test func scopedGivesEachChildItsOwnInstance() {
        let parent = DIContainer()
        parent.register(Widget.self) { Widget() }.scope(.scoped)
        let first = parent.makeChild()
        let second = parent.makeChild()
        let grandchild = first.makeChild()

        #expect(first.resolve(Widget.self) === first.resolve(Widget.self))
        #expect(first.resolve(Widget.self) !== second.resolve(Widget.self))
        #expect(grandchild.resolve(Widget.self) !== first.resolve(Widget.self))
    }

    @Test func releasingAChildReleasesItsScopedInstancesButNotItsParents() {
        let parent = DIContainer()
        parent.register(Widget.self) { Widget() }.scope(.scoped)
        parent.register(Widget.self, name: .live) { Widget() }.scope(.singleton)
        let parentsOwn = parent.resolve(Widget.self)
        var child: DIContainer? = parent.makeChild()
        weak let scoped = child?.resolve(Widget.self)
        weak let singleton = child?.resolve(Widget.self, name: .live)
        #expect(scoped != nil)
        #expect(scoped !== parentsOwn)

        child = nil

        #expect(scoped == nil)
        #expect(singleton != nil)
        #expect(parent.resolve(Widget.self) === parentsOwn)
    }

    @Test func aChildsSingletonIsItsOwn() {
        let parent = DIContainer()
        let child = parent.makeChild()
        parent.register(Widget.self) { Widget(serial: 1) }.scope(.singleton)
        child.register(Widget.self) { Widget(serial: 2) }.scope(.singleton)

        #expect(parent.resolve(Widget.self).serial == 1)
        #expect(child.resolve(Widget.self).serial == 2)
        #expect(child.resolve(Widget.self) !== parent.resolve(Widget.self))
    }
}
