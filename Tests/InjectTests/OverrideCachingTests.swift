import Inject
import InjectTestSupport
import InjectTesting
import Testing

/// Where an override layer caches what is built under it: everything built inside is dropped afterwards, in the
/// overridden container, its children and its parents.
struct OverrideCachingTests {
    final class Service: Sendable {}

    @Test func aParentsSingletonFirstBuiltUnderAnOverrideOfAChildIsDroppedAfterwards() {
        let parent = DIContainer()
        let builds = Counter()
        parent.register { () -> Service in
            builds.increment()
            return Service()
        }.scope(.singleton)
        let child = parent.makeChild()

        let inside = withOverrides(in: child) { _ in
        } operation: {
            child.resolve(Service.self)
        }
        let after = parent.resolve(Service.self)

        #expect(after !== inside, "the parent kept the singleton built under the override")
        #expect(builds.value == 2)
    }

    @Test func aParentsSingletonBuiltBeforeIsFreshInsideAnOverrideOfAChildAndBackAfter() {
        let parent = DIContainer()
        parent.register { Service() }.scope(.singleton)
        let child = parent.makeChild()
        let before = child.resolve(Service.self)

        let inside = withOverrides(in: child) { _ in
        } operation: {
            child.resolve(Service.self)
        }

        #expect(inside !== before)
        #expect(parent.resolve(Service.self) === before)
    }

    @Test func anOverrideOfAChildDoesNotReachItsParentsRegistrations() {
        let parent = DIContainer()
        parent.register(String.self) { "real" }
        parent.register { r in "holder of \(try r.resolve(String.self))" as Substring }.scope(.singleton)
        let child = parent.makeChild()

        let seen = withOverrides(in: child) {
            $0.register(String.self) { "mock" }
        } operation: {
            (child.resolve(Substring.self), child.resolve(String.self))
        }

        #expect(seen.0 == "holder of real", "a parent's singleton resolves its dependencies from the parent")
        #expect(seen.1 == "mock")
    }
}
