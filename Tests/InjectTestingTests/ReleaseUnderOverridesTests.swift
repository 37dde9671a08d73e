import InjectTestSupport
import InjectTesting
import Testing
import XCTest

/// A session's resources held in `.scoped` instances, closed by `onRelease`.
private final class Socket: Sendable {}

/// Releasing a child container while an override is active releases what was built for it, as without one: the
/// override keeps no container alive, and a session's `onRelease` runs when the session goes, not when the override
/// ends. (An override keeps every instance built under it in its own caches: these must not outlive their
/// container.)
struct ReleaseUnderOverridesTests {
    /// A root whose `.scoped` `Socket` counts its releases in `closed`.
    private func makeApp(_ closed: Counter) -> DIContainer {
        let app = DIContainer()
        app.register(Socket.self) { Socket() }
            .scope(.scoped)
            .onRelease { _ in _ = closed.increment() }
        return app
    }

    @Test func aSessionReleasedInsideAnOverrideClosesItsSocketsThenAndThere() {
        let closed = Counter()
        let app = makeApp(closed)
        weak var releasedSession: DIContainer?
        weak var releasedSocket: Socket?

        withOverrides(in: app) { _ in
        } operation: {
            var session: DIContainer? = app.makeChild()
            releasedSession = session
            releasedSocket = session?.resolve(Socket.self)
            #expect(releasedSocket != nil)
            session = nil
            #expect(releasedSession == nil, "the override kept the released session alive")
            #expect(releasedSocket == nil, "the override kept the released session's socket alive")
            #expect(closed.value == 1, "onRelease waited for the override to end")
        }
        #expect(closed.value == 1, "onRelease ran once, not again when the override ended")
    }

    @Test func aSessionThatOutlivesTheOverrideDropsOnlyWhatWasBuiltUnderIt() {
        let closed = Counter()
        let app = makeApp(closed)
        let session = app.makeChild()
        let outside = session.resolve(Socket.self)

        let inside = withOverrides(in: app) { _ in
        } operation: {
            session.resolve(Socket.self)
        }

        #expect(inside !== outside, "the override has caches of its own")
        #expect(closed.value == 1, "the instance built under the override was released when it ended")
        #expect(session.resolve(Socket.self) === outside)
    }

    @Test func requestChildrenOfAStressTestUnderAnOverrideAreReleasedAsTheyGo() {
        let closed = Counter()
        let app = makeApp(closed)

        withOverrides(in: app) { _ in
        } operation: {
            let report = stressTest(app, threads: 4, iterations: 200) { app in
                let request = app.makeChild()
                _ = try request.resolveThrowing(Socket.self)
            }
            #expect(report.succeeded, "\(report)")
            #expect(closed.value == 800, "every request child's socket is closed when the child goes")
        }
        #expect(closed.value == 800)
    }
}

/// The same for `pushOverrides`, which is process-wide rather than bound to a task.
final class ReleaseUnderPushedOverridesTests: XCTestCase {
    func testAPushedOverrideKeepsNoReleasedChildAliveAndClosesItsSockets() {
        let closed = Counter()
        let app = DIContainer()
        app.register(Socket.self) { Socket() }
            .scope(.scoped)
            .onRelease { _ in _ = closed.increment() }
        pushOverrides(in: app) { _ in }
        weak var releasedSession: DIContainer?

        var session: DIContainer? = app.makeChild()
        releasedSession = session
        XCTAssertNotNil(session?.resolve(Socket.self))
        session = nil

        XCTAssertNil(releasedSession, "the pushed override kept the released session alive")
        XCTAssertEqual(closed.value, 1, "onRelease waited for the push to be popped")
    }
}
