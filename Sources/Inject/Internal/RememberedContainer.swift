/// The container a ``LazyInjected`` or ``WeakInjected`` property resolves through, held as long as it should be.
///
/// A child weakly: its `.scoped` services are the objects that hold such properties, and a strong reference back
/// would keep the child, and every instance it built, alive for ever, so that its `onRelease` hooks never ran.
///
/// A root strongly until the property's first read, then weakly. Strongly, so that an object made by code that did
/// not keep the root (a function that builds the composition root and returns the app's first object, a test's
/// `makeSUT()`) still reads its properties later; until the first read only, since the root's own cached services
/// hold such properties too, and a strong reference for ever would keep the root and all it built alive.
final class RememberedContainer: @unchecked Sendable {
    // @unchecked: `state` is only touched under its lock.
    private struct State {
        var strong: DIContainer?
        weak var weak: DIContainer?
    }

    private let state: Locked<State>

    init(_ container: DIContainer) {
        var state = State()
        if container.parent == nil {
            state.strong = container
        }
        state.weak = container
        self.state = Locked(state)
    }

    /// The container, or `nil` when it has been released.
    var container: DIContainer? {
        state.withLock { $0.strong ?? $0.weak }
    }

    /// The property has been read: from now on the container is held weakly, like a child.
    func read() {
        let released = state.withLock { state -> DIContainer? in
            defer { state.strong = nil }
            return state.strong
        }
        _ = released  // let go outside the lock: the container's deinit may run here, and it releases instances
    }
}
