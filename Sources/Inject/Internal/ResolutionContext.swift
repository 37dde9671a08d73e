#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The resolution running on one thread: the stack of registrations being built, the graph-scope instances of the
/// current top-level resolve, and the overlay it resolves under.
///
/// One per thread, in thread-local storage (a pthread key), so that `@Injected` wrappers initialised inside a
/// factory join the resolution that runs the factory, and so that a resolution on another thread never shares a
/// graph or sees a false cycle. It is reused by every top-level resolve on its thread and only ever touched by
/// that thread; its identity is the thread's identity for ``InstanceSlot`` and ``Parking``.
final class ResolutionContext {
    /// A registration being built.
    struct Frame {
        // Unowned: the entry and container are alive for as long as the resolve that pushed the frame.
        unowned(unsafe) let entry: EntryBase
        unowned(unsafe) let container: DIContainer
        /// The instance, boxed, once the factory has returned and while `resolveProperties` runs: a request for
        /// the same registration then gets it back, which is how a cycle is closed.
        var inProgress: AnyObject?
    }

    struct GraphKey: Hashable {
        let entry: ObjectIdentifier
        let container: ObjectIdentifier
    }

    /// How deep one resolution may go before it is reported as runaway recursion. Real graphs stay far below;
    /// cycles are caught long before, by the stack check.
    static let maximumDepth = 256

    var frames: [Frame] = []
    var graph: [GraphKey: AnyObject] = [:]
    var overlay: Overlay?

    private init() {
        frames.reserveCapacity(16)
    }

    /// Whether a resolve is under way on this thread.
    var isResolving: Bool { !frames.isEmpty }

    /// Ends a top-level resolve: graph-scope instances are released and the overlay forgotten.
    func endTopLevel() {
        if !graph.isEmpty {
            graph.removeAll(keepingCapacity: graph.count <= 64)
        }
        overlay = nil
    }

    /// The calling thread's context, made on first use.
    static var current: ResolutionContext {
        let key = ThreadContextKey.key
        if let raw = pthread_getspecific(key) {
            return Unmanaged<ResolutionContext>.fromOpaque(raw).takeUnretainedValue()
        }
        let context = ResolutionContext()
        pthread_setspecific(key, Unmanaged.passRetained(context).toOpaque())
        return context
    }
}

private enum ThreadContextKey {
    /// The pthread key under which each thread keeps its context; the destructor releases it when the thread ends.
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        #if canImport(Darwin)
        let status = pthread_key_create(&key) { raw in
            Unmanaged<ResolutionContext>.fromOpaque(raw).release()
        }
        #else
        let status = pthread_key_create(&key) { raw in
            if let raw {
                Unmanaged<ResolutionContext>.fromOpaque(raw).release()
            }
        }
        #endif
        precondition(status == 0, "Inject: pthread_key_create failed with \(status)")
        return key
    }()
}
