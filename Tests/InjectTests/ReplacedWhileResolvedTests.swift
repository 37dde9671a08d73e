import Foundation
import Inject
import InjectTestSupport
import Testing

// A resolve that found a registration just before it was replaced (another thread's `register`, or a factory of the
// same `resolveAll`) gets the replacement, resolved as a resolve of the replacement through the same container
// would be: never the old factory's instance cached where nothing releases it, and never the replacement's
// dependencies from another container.

/// Where it was built: told apart by the container's name for it.
private final class Store: Sendable {
    let home: String

    init(home: String) {
        self.home = home
    }
}

/// Built by one version of a registration, with a ``Store`` from where that version's dependencies come.
private final class Handler: Sendable {
    let version: Int
    let store: Store

    init(version: Int, store: Store) {
        self.version = version
        self.store = store
    }
}

struct ReplacedWhileResolvedTests {
    /// A root with a singleton `Store`, handlers "a" and "b" (in that order), "b" under `oldScope`, and a child with a
    /// `Store` of its own; "a"'s factory registers "b" anew, under `newScope`, so that `resolveAll` through the child,
    /// which found the old "b" before it ran "a", reaches a replaced registration.
    private func handlersAfterAReplacement(
        oldScope: Scope,
        newScope: Scope,
        builtBefore: Bool,
        throughRoot: Bool = false
    ) -> (handlers: [Handler], child: DIContainer) {
        let root = DIContainer()
        root.register { Store(home: "root") }.scope(.singleton)
        root.register(Handler.self, name: "a") { r in
            root.register(Handler.self, name: "b") { r in try Handler(version: 2, store: r.resolve()) }
                .scope(newScope)
            return try Handler(version: 1, store: r.resolve())
        }
        root.register(Handler.self, name: "b") { r in try Handler(version: 1, store: r.resolve()) }
            .scope(oldScope)
        let child = root.makeChild()
        child.register { Store(home: "child") }.scope(.singleton)
        let through = throughRoot ? root : child
        if builtBefore {
            #expect(through.resolve(Handler.self, name: "b").version == 1)
        }
        return (through.resolveAll(Handler.self), child)
    }

    @Test(
        arguments: [Scope.transient, .graph, .scoped, .cached, .singleton, .weak, .custom("session")],
        [false, true]
    )
    func aRegistrationOfAnyScopeReplacedDuringResolveAllIsNeverBuiltByItsOldFactory(
        oldScope: Scope,
        throughRoot: Bool
    ) {
        let (handlers, _) = handlersAfterAReplacement(
            oldScope: oldScope,
            newScope: .transient,
            builtBefore: false,
            throughRoot: throughRoot
        )

        #expect(handlers.map(\.version) == [1, 2], "the old factory ran after it was replaced")
    }

    @Test(arguments: [false, true])
    func aScopedRegistrationBuiltAndReplacedDuringResolveAllGivesTheReplacement(throughRoot: Bool) {
        // The container's own .scoped instance of the old registration is retired with it; a resolve that found the
        // old registration gets the replacement, not an internal error.
        let (handlers, _) = handlersAfterAReplacement(
            oldScope: .scoped,
            newScope: .scoped,
            builtBefore: true,
            throughRoot: throughRoot
        )

        #expect(handlers.map(\.version) == [1, 2], "the old instance or factory was used after the replacement")
    }

    @Test(arguments: [false, true])
    func aCachedRegistrationReplacedByATransientOneResolvesTheReplacementsDependenciesThroughTheChild(
        builtBefore: Bool
    ) {
        let (handlers, _) = handlersAfterAReplacement(oldScope: .cached, newScope: .transient, builtBefore: builtBefore)

        #expect(handlers.map(\.version) == [1, 2], "the old factory ran after it was replaced")
        #expect(handlers.last?.store.home == "child", "a transient resolved through the child takes the child's Store")
    }

    @Test(arguments: [false, true])
    func aGraphServiceReplacedDuringAResolveIsStillOneInstanceInThatResolve(withArgument: Bool) {
        // Another thread replaces Store between the handler's two requests for it: one resolve, one Store.
        let container = DIContainer()
        if withArgument {
            container.register(Store.self) { (_: DIResolver, home: String) in Store(home: home) }.scope(.graph)
        } else {
            container.register(Store.self) { Store(home: "first") }
        }
        container.register(Handler.self) { r in
            let first: Store = withArgument ? try r.resolve(argument: "first") : try r.resolve()
            DispatchQueue.global().sync {
                if withArgument {
                    container.register(Store.self) { (_: DIResolver, _: String) in Store(home: "replacement") }
                        .scope(.graph)
                } else {
                    container.register(Store.self) { Store(home: "replacement") }
                }
            }
            let second: Store = withArgument ? try r.resolve(argument: "first") : try r.resolve()
            #expect(first === second, "one .graph Store per top-level resolve")
            return Handler(version: 1, store: first)
        }

        _ = container.resolve(Handler.self)

        let next = withArgument ? container.resolve(Store.self, argument: "first") : container.resolve(Store.self)
        #expect(next.home == "replacement", "the next resolve gets the replacement")
    }

    @Test func aGraphArgumentRegistrationReplacedByOneOfAnotherArgumentTypeDoesNotGetTheOldInstances() {
        // 7 and 7.0 are equal as AnyHashable: the values of the two registrations are still kept apart.
        let container = DIContainer()
        container.register(Store.self) { (_: DIResolver, number: Int) in Store(home: "int \(number)") }.scope(.graph)
        container.register(Handler.self) { r in
            _ = try r.resolve(Store.self, argument: 7)
            DispatchQueue.global().sync {
                _ = container.register(Store.self) { (_: DIResolver, number: Double) in Store(home: "double \(number)")
                }
                .scope(.graph)
            }
            let store = try r.resolve(Store.self, argument: 7.0)
            #expect(store.home == "double 7.0", "built by the replacement, not the Int factory's instance")
            return Handler(version: 1, store: store)
        }

        _ = container.resolve(Handler.self)
    }

    @Test func aSingletonNeverBuiltAndReplacedByAScopedOneIsNotBuiltByTheOldFactory() {
        let (handlers, child) = handlersAfterAReplacement(oldScope: .singleton, newScope: .scoped, builtBefore: false)

        #expect(handlers.map(\.version) == [1, 2], "the old factory ran after it was replaced")
        #expect(handlers.last?.store.home == "child")
        #expect(handlers.last === child.resolve(Handler.self, name: "b"), "the child keeps its .scoped instance")
    }
}

extension ReplacedWhileResolvedTests {
    @Test func anArgumentRegistrationReRegisteredWhileThreadsResolveIsBuiltAtMostOncePerRegistrationAndValue() {
        let container = DIContainer()
        let builds = Collector<Int>()
        let versions = 500
        container.register(Handler.self) { (_, id: Int) in Handler(version: 0, store: Store(home: "\(id)")) }
            .scope(.cached)
        let done = Cell<Bool>()
        let resolved = Counter()

        finishes(within: 60, "re-registering an argument registration while four threads resolve it") {
            onThreadsAtOnce(5) { worker in
                if worker == 0 {
                    for version in 1...versions {
                        container.register(Handler.self) { (_, id: Int) in
                            builds.append(version)
                            Thread.sleep(forTimeInterval: 0.000_02)  // long enough for others to wait for it
                            return Handler(version: version, store: Store(home: "\(id)"))
                        }
                        .scope(.cached)
                        // Let the resolvers reach this registration before the next one replaces it.
                        let before = resolved.value
                        while resolved.value < before + 4 {
                            sched_yield()
                        }
                    }
                    done.value = true
                } else {
                    while done.value != true {
                        _ = container.resolve(Handler.self, argument: 7)
                        _ = resolved.increment()
                    }
                }
            }
        }

        let counts = Dictionary(builds.values.map { ($0, 1) }, uniquingKeysWith: +)
        let twice = counts.filter { $0.value > 1 }.keys.sorted()
        #expect(twice.isEmpty, "\(twice.count) registrations' factories ran more than once, e.g. \(twice.prefix(5))")
        #expect(resolved.value >= 4 * versions, "the resolves did not overlap the registrations")
    }
}
