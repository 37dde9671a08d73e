import Dispatch
import Foundation
import InjectTestSupport
import InjectTesting
import XCTest

// `pushOverrides` is process-wide: every test here pushes onto a container of its own (a new `XCTestCase` instance
// runs each test), never onto `DIContainer.shared`, so Swift Testing tests running at the same time see nothing.

/// `XCTestCase.pushOverrides(in:_:)` in the test itself: the push wins until the test ends, reaches other threads,
/// stacks, and is popped by a teardown block, which XCTest runs before `tearDown()`, where that is checked.
final class PushOverridesTests: XCTestCase {
    private let container = DIContainer()
    private let made = Counter()
    /// The container's singleton `Gadget`, resolved before any push.
    private var gadgetBeforePush: Gadget?

    override func setUp() {
        super.setUp()
        let made = self.made
        container.register(Widget.self) { Widget(serial: 0) }
        container.register(Gadget.self) { Gadget(widget: Widget(serial: 100 + made.increment())) }.scope(.singleton)
        gadgetBeforePush = container.resolve(Gadget.self)
    }

    override func tearDown() {
        // The teardown blocks have run: every push must be gone, and the container exactly as before.
        XCTAssertEqual(container.resolve(Widget.self).serial, 0, "a pushed override outlived the test")
        XCTAssertNil(container.optional(OnlyOverridden.self), "a pushed registration outlived the test")
        XCTAssertFalse(container.isRegistered(OnlyOverridden.self))
        XCTAssertTrue(container.resolve(Gadget.self) === gadgetBeforePush, "the container's singleton was replaced")
        super.tearDown()
    }

    func testPushedOverrideWinsForTheRestOfTheTest() {
        pushOverrides(in: container) { $0.register(Widget.self) { Widget(serial: 1) } }

        XCTAssertEqual(container.resolve(Widget.self).serial, 1)
        XCTAssertEqual(container.makeChild().resolve(Widget.self).serial, 1)
        XCTAssertEqual(container.resolve(Widget.self).serial, 1)
    }

    func testPushedOverrideIsProcessWideAndReachesOtherThreads() {
        pushOverrides(in: container) { $0.register(Widget.self) { Widget(serial: 1) } }
        let container = self.container

        XCTAssertEqual(onDispatchQueue { container.resolve(Widget.self).serial }, 1, "on a DispatchQueue")
        XCTAssertEqual(onThread { container.resolve(Widget.self).serial }, 1, "on a Thread")
    }

    func testSeveralPushesStackTheLastWinningAndAllArePopped() {
        pushOverrides(in: container) {
            $0.register(Widget.self) { Widget(serial: 1) }
            $0.register(OnlyOverridden.self) { OnlyOverridden(tag: "first") }
        }
        XCTAssertEqual(container.resolve(Widget.self).serial, 1)

        pushOverrides(in: container) { $0.register(Widget.self) { Widget(serial: 2) } }
        XCTAssertEqual(container.resolve(Widget.self).serial, 2, "the last push must win")
        XCTAssertEqual(container.optional(OnlyOverridden.self)?.tag, "first", "the first push must still apply")

        pushOverrides(in: container) { $0.register(OnlyOverridden.self) { OnlyOverridden(tag: "third") } }
        XCTAssertEqual(container.resolve(Widget.self).serial, 2)
        XCTAssertEqual(container.optional(OnlyOverridden.self)?.tag, "third")
    }

    func testCachesAreFreshWhilePushed() {
        pushOverrides(in: container) { $0.register(OnlyOverridden.self) { OnlyOverridden(tag: "unrelated") } }

        let inside = container.resolve(Gadget.self)
        XCTAssertFalse(inside === gadgetBeforePush, "a singleton resolved before the push was seen while pushed")
        XCTAssertTrue(container.resolve(Gadget.self) === inside, "the singleton is not shared while pushed")
        XCTAssertEqual(made.value, 2)
    }

    func testPushDoesNotReachOtherContainers() {
        let other = DIContainer()
        other.register(Widget.self) { Widget(serial: 20) }
        let parent = DIContainer()
        parent.register(Widget.self) { Widget(serial: 10) }
        let child = parent.makeChild()
        pushOverrides(in: container) { $0.register(Widget.self) { Widget(serial: 1) } }
        pushOverrides(in: child) { $0.register(Widget.self) { Widget(serial: 2) } }

        XCTAssertEqual(other.resolve(Widget.self).serial, 20)
        XCTAssertEqual(parent.resolve(Widget.self).serial, 10, "a push onto a child reached its parent")
        XCTAssertEqual(child.resolve(Widget.self).serial, 2)
        XCTAssertEqual(container.resolve(Widget.self).serial, 1)
    }
}

/// `pushOverrides` in `setUp`: the test sees it, and it is gone by `tearDown()`.
final class PushOverridesInSetUpTests: XCTestCase {
    private let container = DIContainer()

    override func setUp() {
        super.setUp()
        container.register(Widget.self) { Widget(serial: 0) }
        pushOverrides(in: container) { $0.register(Widget.self) { Widget(serial: 1) } }
    }

    override func tearDown() {
        XCTAssertEqual(container.resolve(Widget.self).serial, 0, "the push made in setUp outlived the test")
        super.tearDown()
    }

    func testPushMadeInSetUpAppliesToTheTest() {
        XCTAssertEqual(container.resolve(Widget.self).serial, 1)
    }

    func testPushInTheTestStacksOnThePushMadeInSetUp() {
        XCTAssertEqual(container.resolve(Widget.self).serial, 1)
        pushOverrides(in: container) { $0.register(Widget.self) { Widget(serial: 2) } }
        XCTAssertEqual(container.resolve(Widget.self).serial, 2)
    }
}
