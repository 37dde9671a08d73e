/// The container a ``LazyInjected`` or ``WeakInjected`` property resolves through, held as long as it should be.
///
/// A root container strongly: an object made by code that did not keep the root (a function that builds the
/// composition root and returns the app's first object) still reads its properties later. A child weakly: its
/// `.scoped` services are the objects that hold such properties, and a strong reference back would keep the child,
/// and every instance it built, alive for ever, so that its `onRelease` hooks never ran.
struct RememberedContainer {
    private let root: DIContainer?
    private weak var child: DIContainer?

    init(_ container: DIContainer) {
        if container.parent == nil {
            root = container
        } else {
            root = nil
            child = container
        }
    }

    /// The container, or `nil` when it was a child and has been released.
    var container: DIContainer? {
        root ?? child
    }
}
