import CInjectShims

/// The container a ``LazyInjected`` or ``WeakInjected`` property resolves through, held as long as it should be.
///
/// A child weakly: its `.scoped` services are the objects that hold such properties, and a strong reference back
/// would keep the child, and every instance it built, alive for ever, so that its `onRelease` hooks never ran.
///
/// A root strongly, so that an object made by code that did not keep the root (a function that builds the
/// composition root and returns a screen or a view model it made) still reads its properties later and keeps what
/// the root built alive while it does; except when the property is made by a build that the root itself keeps (a
/// `.singleton`, `.cached` or custom-scope service of the root, or anything its factory makes): the root holds that
/// object, so a strong reference back would be a cycle that kept the root and all it built for ever. Such an object
/// needs its root kept, as the services it was built with do.
struct RememberedContainer: @unchecked Sendable {
    // @unchecked: both references are set in init and never again; a weak reference is read atomically.
    private let strong: DIContainer?
    private weak var weak: DIContainer?
    /// Whether the container is a root: what the message says when it is gone.
    let isRoot: Bool

    init(_ container: DIContainer) {
        weak = container
        isRoot = container.parent == nil
        strong = isRoot && !Self.isMadeForACacheOf(container) ? container : nil
    }

    /// The container, or `nil` when it has been released.
    var container: DIContainer? {
        strong ?? weak
    }

    /// Whether a build under way on this thread (or this task's async build) will be kept in `container`'s caches:
    /// the object that holds the property being made is then held by `container`.
    private static func isMadeForACacheOf(_ container: DIContainer) -> Bool {
        func keeps(_ entry: EntryBase, builtIn home: DIContainer) -> Bool {
            switch Scope.storage(ofCode: entry.scopeCode) {
            case .registration: entry.scopeCode != Scope.Code.weak && entry.owner === container
            case .resolvingContainer: home === container
            case .none, .graph: false
            }
        }
        if let raw = c_inject_get_thread_context() {
            let context = Unmanaged<ResolutionContext>.fromOpaque(raw).takeUnretainedValue()
            if context.frames.contains(where: { keeps($0.entry, builtIn: $0.container) }) {
                return true
            }
        }
        guard let innermost = AsyncFrame.currentIfAny, innermost.isFactoryRunning else { return false }
        return innermost.chain.contains { keeps($0.entry, builtIn: $0.container) }
    }
}
