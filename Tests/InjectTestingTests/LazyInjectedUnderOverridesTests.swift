import Inject
import InjectTestSupport
import InjectTesting
import Testing

// A @LazyInjected property resolves apart under a test override: what it resolved there is never handed out outside
// it, as for every other instance built under an override. A global object's lazy property, first read in a test,
// must not keep the test's mock for the rest of the process.

private protocol Feed: Sendable {
    var source: String { get }
}

private struct LiveFeed: Feed {
    let source = "live"
}

private struct MockFeed: Feed {
    let source: String
}

private final class Session: Sendable {
    let user: String

    init(user: String) {
        self.user = user
    }
}

/// An object that outlives tests, as a global or an app-wide singleton does.
private final class AppState: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in init, and synchronises its own reads.
    @LazyInjected var feed: any Feed
    @WeakInjected var session: Session?

    init(container: DIContainer) {
        _feed = LazyInjected(container: container)
        _session = WeakInjected(container: container)
    }
}

struct LazyInjectedUnderOverridesTests {
    private static func container() -> DIContainer {
        let container = DIContainer()
        container.register((any Feed).self) { LiveFeed() }.scope(.singleton)
        container.register { Session(user: "real") }.scope(.singleton)
        return container
    }

    @Test func aLongLivedObjectFirstReadInATestGetsTheContainersServiceAfterIt() {
        let container = Self.container()
        let state = AppState(container: container)

        let inside = withOverrides(in: container) {
            $0.register((any Feed).self) { MockFeed(source: "mock") }
        } operation: {
            (state.feed.source, state.feed.source)
        }

        #expect(inside == ("mock", "mock"))
        #expect(state.feed.source == "live", "the test's mock leaked out of it through a lazy property")
        #expect(state.$feed.isResolved)
    }

    @Test func aLongLivedObjectReadBeforeATestGetsTheOverridesServiceInIt() {
        let container = Self.container()
        let state = AppState(container: container)
        #expect(state.feed.source == "live")

        let inside = withOverrides(in: container) {
            $0.register((any Feed).self) { MockFeed(source: "mock") }
        } operation: {
            state.feed.source
        }

        #expect(inside == "mock")
        #expect(state.feed.source == "live")
    }

    @Test func eachOverrideGetsItsOwnAndResolvesItOnce() async {
        let container = Self.container()
        let state = AppState(container: container)
        let builds = Counter()

        await withTaskGroup(of: [String].self) { group in
            for test in ["a", "b"] {
                group.addTask {
                    await withOverrides(in: container) {
                        $0.register((any Feed).self) {
                            _ = builds.increment()
                            return MockFeed(source: test)
                        }
                    } operation: {
                        var seen: [String] = []
                        for _ in 0..<50 {
                            seen.append(state.feed.source)
                            await Task.yield()
                        }
                        return Array(Set(seen + [test]))
                    }
                }
            }
            for await seen in group {
                #expect(seen.count == 1, "a test saw another test's mock: \(seen)")
            }
        }

        #expect(builds.value == 2, "each override's mock is resolved once, however often it is read")
        #expect(state.feed.source == "live")
    }

    @Test func resetInsideAnOverrideLeavesTheAppsInstance() {
        let container = DIContainer()
        let liveBuilds = Counter()
        container.register((any Feed).self) {
            _ = liveBuilds.increment()
            return LiveFeed()
        }
        .scope(.transient)
        let state = AppState(container: container)
        _ = state.feed

        withOverrides(in: container) {
            $0.register((any Feed).self) { MockFeed(source: "mock") }
        } operation: {
            state.$feed.reset()
        }

        #expect(state.$feed.isResolved, "the app's instance, read before the test, is still there")
        #expect(state.feed.source == "live")
        #expect(liveBuilds.value == 1, "not resolved again")
    }

    @Test func resetUnderOneOverrideLeavesWhatAnotherOverrideResolved() {
        let container = Self.container()
        let state = AppState(container: container)
        let outerBuilds = Counter()

        withOverrides(in: container) {
            $0.register((any Feed).self) {
                _ = outerBuilds.increment()
                return MockFeed(source: "outer")
            }
            .scope(.transient)
        } operation: {
            _ = state.feed
            withOverrides(in: container) {
                $0.register((any Feed).self) { MockFeed(source: "inner") }
            } operation: {
                #expect(state.feed.source == "inner")
                state.$feed.reset()
            }
            #expect(state.$feed.isResolved)
            #expect(state.feed.source == "outer")
        }

        #expect(outerBuilds.value == 1, "the other override's instance was kept")
    }

    @Test func resetInsideAnOverrideForgetsWhatItResolved() {
        let container = Self.container()
        let state = AppState(container: container)
        let builds = Counter()

        withOverrides(in: container) {
            $0.register((any Feed).self) {
                _ = builds.increment()
                return MockFeed(source: "mock")
            }
            .scope(.transient)
        } operation: {
            _ = state.feed
            state.$feed.reset()
            #expect(!state.$feed.isResolved)
            _ = state.feed
        }

        #expect(builds.value == 2)
    }

    @Test func aWeakPropertyFirstReadInATestGetsTheContainersServiceAfterIt() {
        let container = Self.container()
        let state = AppState(container: container)

        let inside = withOverrides(in: container) {
            $0.register { Session(user: "mock") }.scope(.singleton)
        } operation: {
            state.session?.user
        }

        #expect(inside == "mock")
        #expect(state.session?.user == "real", "the test's mock, or nothing, instead of the app's session")
    }
}
