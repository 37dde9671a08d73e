#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `NaiveContainer` with a mutex around the dictionary read: the thread-safe reference for the two-thread
/// workload (W5). The lock (a pthread mutex) is held only for the lookup, never while a factory runs.
public final class LockedContainer: @unchecked Sendable {
    private let lock = PthreadMutex()
    // Every access to the dictionary holds the lock. The factories are boxed: a bare closure copied out of the
    // dictionary to be called after the unlock gets a heap-allocated reabstraction thunk (one malloc per resolve).
    private var factories: [ObjectIdentifier: Factory] = [:]

    private final class Factory {
        let make: (LockedContainer) -> Any
        init(_ make: @escaping (LockedContainer) -> Any) { self.make = make }
    }

    /// An empty container.
    public init() {}

    /// Registers an already built instance under its dynamic type (a singleton).
    public func register(instance: AnyObject) {
        lock.lock()
        defer { lock.unlock() }
        factories[ObjectIdentifier(type(of: instance))] = Factory { _ in instance }
    }

    /// Looks the factory for `T` up under the lock, then runs it and casts its result with `as!`; traps when
    /// there is none.
    public func resolve<T>(_ type: T.Type = T.self) -> T {
        lock.lock()
        let factory = factories[ObjectIdentifier(type)]
        lock.unlock()
        return factory!.make(self) as! T
    }
}

/// A pthread mutex at a stable address.
final class PthreadMutex: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
}

/// One shared instance read through a call that returns it +1, as a container's `resolve` does: the hand-written
/// floor for resolving a singleton (W3, W5). From two threads its cost is the reference counting on the shared object.
public final class SharedInstance<T: AnyObject & Sendable>: Sendable {
    private let value: T

    /// Shares `value`.
    public init(_ value: T) { self.value = value }

    /// The shared instance, returned +1 through a call the optimizer cannot inline.
    @inline(never)
    public func get() -> T { value }
}
