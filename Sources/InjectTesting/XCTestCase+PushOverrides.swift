import Inject
import XCTest

extension XCTestCase {
    /// Overrides registrations of `container` for the rest of the test; popped automatically at tear-down.
    ///
    /// ```swift
    /// override func setUp() {
    ///     super.setUp()
    ///     pushOverrides { $0.register(APIClient.self) { MockAPI() } }
    /// }
    /// ```
    ///
    /// Call it in `setUp` or in the test. Several pushes stack, the last one winning where they overlap, and every
    /// push is popped when the test ends (by a teardown block, before `tearDown()` runs), so no override leaks into
    /// the next test. Caches are fresh while pushed, as with ``withOverrides(in:_:operation:)-(_,_,()->R)``.
    ///
    /// > Important: A push is process-wide, so that it reaches code the test runs on other threads and queues. Use it
    /// > in XCTest suites, which run their tests one at a time. For tests that run in parallel (Swift Testing's
    /// > default), use ``withOverrides(in:_:operation:)-(_,_,()->R)`` or the `.overrides` trait, which are bound to
    /// > the test's task.
    ///
    /// Not inside ``withOverrides(in:_:operation:)-(_,_,()->R)`` or under the `.overrides` trait, whose override would
    /// hide the push and be kept by it (that traps, saying so), and not in `tearDown()`, where XCTest takes no more
    /// teardown blocks.
    ///
    /// - Parameters:
    ///   - container: The container to override; ``DIContainer/shared`` by default.
    ///   - file: The call, named by its trap; leave the default.
    ///   - line: The call's line; leave the default.
    ///   - overrides: Registers the overrides, on a container of their own that is passed in.
    public func pushOverrides(
        in container: DIContainer = .shared,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ overrides: (DIContainer) -> Void
    ) {
        let layer = container.overrideLayer(overrides)
        // The pop is set up first: a push is never left without the block that ends it.
        // No report of overrides no resolve reached: one pushed in setUp is set for every test of the class.
        addTeardownBlock { layer.pop() }
        layer.push(file: file, line: line)
    }
}
