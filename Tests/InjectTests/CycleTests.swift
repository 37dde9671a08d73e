import Inject
import InjectTestSupport
import Testing

private final class CycleA: Sendable {
    let b: CycleB

    init(b: CycleB) {
        self.b = b
    }
}

private final class CycleB: Sendable {
    let a: CycleA

    init(a: CycleA) {
        self.a = a
    }
}

private final class CycleC: Sendable {
    let a: CycleA

    init(a: CycleA) {
        self.a = a
    }
}

/// A parent whose child is set after it is built, by `resolveProperties`.
private final class TreeParent: @unchecked Sendable {
    // @unchecked: `child` is set once, inside the resolve that builds the parent, before it is handed out.
    var child: TreeChild?
}

private final class TreeChild: Sendable {
    weak let parent: TreeParent?

    init(parent: TreeParent) {
        self.parent = parent
    }
}

struct CycleTests {
    @Test func aTwoStepCycleIsAnErrorNamingEveryStep() throws {
        let container = DIContainer()
        container.register(CycleA.self) { r in CycleA(b: try r.resolve()) }
        container.register(CycleB.self) { r in CycleB(a: try r.resolve()) }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(CycleA.self)
        }

        #expect(error.kind == .cycle)
        #expect(error.description.contains("CycleA -> CycleB -> CycleA"))
        #expect(error.path == ["CycleA", "CycleB", "CycleA"])
        #expect(
            error.description.contains(
                """
                (here: get CycleB in CycleA's resolveProperties instead of its factory; get CycleA in CycleB's \
                resolveProperties instead of its factory: a factory that asks
                """
            ),
            "\(error)"
        )
    }

    @Test func aThreeStepCycleIsAnErrorNamingEveryStep() throws {
        let container = DIContainer()
        container.register(CycleA.self) { r in CycleA(b: try r.resolve()) }
        container.register(CycleB.self) { r in CycleB(a: try r.resolve(CycleC.self).a) }
        container.register(CycleC.self) { r in CycleC(a: try r.resolve()) }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(CycleA.self)
        }

        #expect(error.kind == .cycle)
        #expect(error.description.contains("CycleA -> CycleB -> CycleC -> CycleA"))
    }

    @Test func aCycleEnteredHalfwayNamesOnlyTheLoop() throws {
        let container = DIContainer()
        container.register(Gadget.self) { r in
            _ = try r.resolve(CycleB.self)
            return Gadget(widget: Widget())
        }
        container.register(CycleA.self) { r in CycleA(b: try r.resolve()) }
        container.register(CycleB.self) { r in CycleB(a: try r.resolve()) }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(Gadget.self)
        }

        #expect(error.kind == .cycle)
        #expect(error.description.contains("CycleB -> CycleA -> CycleB"))
        #expect(error.path == ["Gadget", "CycleB", "CycleA", "CycleB"])
    }

    @Test func aFactoryAskingForItselfIsACycle() throws {
        let container = DIContainer()
        container.register(Widget.self) { r in try r.resolve(Widget.self) }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(Widget.self)
        }

        #expect(error.kind == .cycle)
        #expect(error.description.contains("Widget -> Widget"))
    }

    @Test func aCycleClosedByResolvePropertiesInGraphScopeWorks() {
        let container = DIContainer()
        container.register(TreeParent.self) { TreeParent() }
            .resolveProperties { r, parent in parent.child = try r.resolve(TreeChild.self) }
        container.register(TreeChild.self) { r in TreeChild(parent: try r.resolve()) }

        let parent = container.resolve(TreeParent.self)

        #expect(parent.child?.parent === parent)
    }

    @Test func aCycleClosedByResolvePropertiesGivesEachResolveItsOwnParent() {
        let container = DIContainer()
        container.register(TreeParent.self) { TreeParent() }
            .resolveProperties { r, parent in parent.child = try r.resolve(TreeChild.self) }
        container.register(TreeChild.self) { r in TreeChild(parent: try r.resolve()) }

        let first = container.resolve(TreeParent.self)
        let second = container.resolve(TreeParent.self)

        #expect(first !== second)
        #expect(first.child?.parent === first)
        #expect(second.child?.parent === second)
    }

    @Test func aCycleAmongSingletonsIsReportedNotAHang() throws {
        let outcome = Cell<ResolutionError>()
        let finished = finishes("resolving a cycle among singletons") {
            let container = DIContainer()
            container.register(CycleA.self) { r in CycleA(b: try r.resolve()) }.scope(.singleton)
            container.register(CycleB.self) { r in CycleB(a: try r.resolve()) }.scope(.singleton)
            outcome.value = catchError { try container.resolveThrowing(CycleA.self) }
        }

        try #require(finished)
        let error = try #require(outcome.value)
        #expect(error.kind == .cycle)
        #expect(error.description.contains("CycleA -> CycleB -> CycleA"))
    }

    @Test func aCycleThroughAParentSingletonAndAChildIsReportedNotAHang() throws {
        let outcome = Cell<ResolutionError>()
        let finished = finishes("resolving a cycle that crosses containers") {
            let parent = DIContainer()
            let child = parent.makeChild()
            parent.register(CycleA.self) { r in CycleA(b: try r.resolve()) }.scope(.cached)
            parent.register(CycleB.self) { r in CycleB(a: try r.resolve()) }
            outcome.value = catchError { try child.resolveThrowing(CycleB.self) }
        }

        try #require(finished)
        let error = try #require(outcome.value)
        #expect(error.kind == .cycle)
        #expect(error.description.contains("CycleA -> CycleB -> CycleA"))
    }
}

/// The `ResolutionError` `body` throws, or `nil` when it returns or throws something else.
private func catchError<T>(_ body: () throws -> T) -> ResolutionError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error as? ResolutionError
    }
}
