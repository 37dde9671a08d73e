#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Inject's lock needs Darwin, Glibc or Musl")
#endif

#if canImport(Darwin)
typealias LockPrimitive = os_unfair_lock
#else
typealias LockPrimitive = pthread_mutex_t
#endif

/// The storage of a ``Locked`` value: the value and its platform lock in one heap allocation.
///
/// The lock is `os_unfair_lock` on Apple platforms and a pthread mutex elsewhere (the standard library's
/// `Mutex` needs iOS 18). It is not recursive. Inject never holds one while user code runs: every critical
/// section reads or writes a few fields and returns.
final class LockStorage<Value>: ManagedBuffer<Value, LockPrimitive> {
    static func make(_ value: Value) -> LockStorage<Value> {
        let buffer = Self.create(minimumCapacity: 1) { _ in value }
        // `create` is declared to return the base class, but it allocates `Self`.
        let storage = unsafeDowncast(buffer, to: LockStorage<Value>.self)
        storage.withUnsafeMutablePointerToElements { lock in
            #if canImport(Darwin)
            lock.initialize(to: os_unfair_lock())
            #else
            lock.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(lock, nil)
            precondition(status == 0, "Inject: pthread_mutex_init failed with \(status)")
            #endif
        }
        return storage
    }

    deinit {
        withUnsafeMutablePointerToElements { lock in
            #if !canImport(Darwin)
            pthread_mutex_destroy(lock)
            #endif
            _ = lock.deinitialize(count: 1)
        }
    }

    @inline(__always)
    func withLockedValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointers { value, lock in
            #if canImport(Darwin)
            os_unfair_lock_lock(lock)
            defer { os_unfair_lock_unlock(lock) }
            #else
            pthread_mutex_lock(lock)
            defer { pthread_mutex_unlock(lock) }
            #endif
            return try body(&value.pointee)
        }
    }
}

/// A value that is only reachable while holding its lock: the `struct State` behind one lock pattern.
///
/// Copies share the same storage and lock. `package` so that InjectTesting uses the same lock.
package struct Locked<State>: @unchecked Sendable {
    // @unchecked: `State` is read and written only inside `withLock`, under the lock that guards it.
    private let storage: LockStorage<State>

    /// A lock guarding `initial`.
    package init(_ initial: State) {
        storage = .make(initial)
    }

    /// Runs `body` with exclusive access to the state. `body` must not run user code or take another `Locked`
    /// that could be waiting for this one.
    @inline(__always)
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try storage.withLockedValue(body)
    }
}
