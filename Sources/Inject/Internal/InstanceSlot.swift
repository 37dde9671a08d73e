/// One shared instance and the gate that makes its build happen once.
///
/// `instance(thread:build:)` runs `build` exactly once, even when many threads ask at once: the first caller
/// becomes the builder, the others wait in ``Parking`` (not on a lock held by the builder) and then read the
/// result. A build that throws stores nothing, so the next caller builds again. `reset()` drops the instance; a
/// build that was under way when `reset()` ran hands its instance to its own caller but does not store it.
///
/// `instanceAsync(builder:waiter:build:)` is the same gate for async resolutions: a task that finds a build under
/// way registers its continuation, under the slot's lock, and suspends; the build's end resumes every waiter, also
/// under that lock's protection, so no thread is blocked and no wake-up is lost. A waiting task that is cancelled
/// stops waiting with `CancellationError`; the build goes on for the others.
///
/// The slot's lock is held only to read or change its state, never while `build` runs.
final class InstanceSlot<T>: Gate, @unchecked Sendable {
    // @unchecked: `state` is only touched under its lock, `publishTo` only atomically; `T` is handed out as the
    // registration's contract says (see Docs/ThreadSafety.md).
    private struct State {
        var value: T?
        weak var object: AnyObject?
        var builder: ObjectIdentifier?
        var waiters = 0
        var generation = 0
        /// Tasks waiting for the build under way, by waiter number.
        var asyncWaiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextWaiter = 0
        /// How many builds started: the number of the one under way, while there is a builder.
        var builds = 0
        /// The latest build that threw, with its error, for the callers that waited for it.
        var failure: (build: Int, error: any Error)?

        func current(_ holdsWeakly: Bool) -> T? {
            holdsWeakly ? object.map { $0 as! T } : value
        }
    }

    enum Failure: Error {
        /// The thread building the instance asked for it again (only ``LazySingleton`` can get here; the
        /// resolution stack catches container cycles first).
        case recursion
        /// The build this caller waited for threw `error`. Every caller that waited for that build gets its error,
        /// rather than running the failing factory again one after another; the next caller builds again.
        case sharedBuildFailed(any Error)
    }

    private let state = Locked(State())
    private let service: Any.Type
    private let name: DIContainer.Name?
    private let holdsWeakly: Bool
    /// Where to publish a built singleton's storage for lock-free reads (cell 0 of its entry), or `nil`.
    private let publishTo: ReferenceCell?
    /// The registration's `onRelease`, run once for each instance the slot lets go of (never for a weak one).
    private let onRelease: (@Sendable (T) -> Void)?

    init(
        service: Any.Type,
        name: DIContainer.Name?,
        holdsWeakly: Bool = false,
        publishTo: ReferenceCell? = nil,
        onRelease: (@Sendable (T) -> Void)? = nil
    ) {
        self.service = service
        self.name = name
        self.holdsWeakly = holdsWeakly
        self.publishTo = publishTo
        self.onRelease = holdsWeakly ? nil : onRelease
    }

    /// The instance leaves its scope with the slot: `onRelease` runs, on the thread that let go of the slot.
    deinit {
        if let onRelease, let value = state.withLock({ $0.value }) {
            onRelease(value)
        }
    }

    var builder: ObjectIdentifier? { state.withLock { $0.builder } }

    /// How many callers wait for the build under way: threads parked and tasks suspended.
    var waitingCount: Int { state.withLock { $0.waiters + $0.asyncWaiters.count } }

    var label: String { Describe.service(service, name) }

    /// The stored instance, without building one.
    var current: T? { state.withLock { $0.current(holdsWeakly) } }

    /// Drops the stored instance; the next `instance` call builds again. `onRelease` runs for it, with no lock held.
    func reset() {
        let dropped: T? = state.withLock { state in
            defer {
                state.value = nil
                state.object = nil
                state.generation += 1
            }
            return state.value
        }
        if let onRelease, let dropped {
            onRelease(dropped)
        }
    }

    /// Stores `value` as the instance, as if it had just been built; a build under way is handed to its own caller
    /// but not kept. Not for slots that publish a singleton.
    func replace(with value: T) {
        state.withLock { state in
            if holdsWeakly {
                state.object = value as AnyObject
            } else {
                state.value = value
            }
            state.generation += 1
        }
    }

    /// The stored instance, or the one `build` makes, which is then stored.
    ///
    /// - Parameters:
    ///   - thread: The calling thread's identity (its ``ResolutionContext``).
    ///   - build: Makes the instance. Runs at most once at a time, with no lock held.
    /// - Throws: What `build` throws, ``Failure/recursion``, ``Failure/sharedBuildFailed(_:)`` (the build this
    ///   caller waited for threw), or ``Parking/Deadlock``.
    func instance(thread: ObjectIdentifier, build: () throws -> T) throws -> T {
        var awaited: Int?
        while true {
            switch nextStep(for: thread, countingWaiter: true, awaited: awaited) {
            case .ready(let value):
                return value
            case .recursion:
                throw Failure.recursion
            case .failed(let error):
                throw Failure.sharedBuildFailed(error)
            case .wait(let build):
                awaited = build
                defer { state.withLock { $0.waiters -= 1 } }
                try Parking.shared.wait(for: self, thread: thread)
            case .build(let generation):
                let value: T
                do {
                    value = try build()
                } catch {
                    finish(nil, generation: generation, error: error)
                    throw error
                }
                finish(value, generation: generation)
                return value
            }
        }
    }

    /// What `builder` does next, decided under the lock: take the instance, take the error of the build it waited
    /// for (`awaited`) if that build threw, become the builder, or wait (counted for ``Parking``'s wake-up when
    /// `countingWaiter`).
    private func nextStep(for builder: ObjectIdentifier, countingWaiter: Bool, awaited: Int?) -> Step {
        state.withLock { state in
            if let value = state.current(holdsWeakly) {
                return .ready(value)
            }
            if let awaited, let failure = state.failure, failure.build == awaited {
                return .failed(failure.error)
            }
            if let current = state.builder {
                if current == builder {
                    return .recursion
                }
                if countingWaiter {
                    state.waiters += 1
                }
                return .wait(build: state.builds)
            }
            state.builder = builder
            state.builds += 1
            return .build(generation: state.generation)
        }
    }

    private enum Step {
        case ready(T)
        case recursion
        /// The build the caller waited for threw this.
        case failed(any Error)
        /// Another caller is running build number `build`.
        case wait(build: Int)
        case build(generation: Int)
    }

    /// The stored instance, or the one `build` makes, which is then stored: the async form of
    /// ``instance(thread:build:)``. Waiting suspends the task; it never blocks its thread.
    ///
    /// - Parameters:
    ///   - builder: The identity the build runs under: an async build's frame, or the thread that runs a synchronous
    ///     factory inline.
    ///   - waiter: Registers a wait for the wait-for cycle check, and ends it: see ``AsyncWaits``.
    ///   - build: Makes the instance. Runs at most once at a time, with no lock held.
    /// - Throws: What `build` throws, ``Failure/recursion``, ``Failure/sharedBuildFailed(_:)`` (the build waited
    ///   for threw), `CancellationError` when the waiting task is cancelled, or ``Parking/Deadlock`` when the build
    ///   waited for needs this task's own build.
    func instanceAsync(
        builder: ObjectIdentifier,
        waiter: AsyncWaits.Waiter?,
        build: () async throws -> T
    ) async throws -> T {
        var awaited: Int?
        while true {
            switch nextStep(for: builder, countingWaiter: false, awaited: awaited) {
            case .ready(let value):
                return value
            case .recursion:
                throw Failure.recursion
            case .failed(let error):
                throw Failure.sharedBuildFailed(error)
            case .wait(let build):
                awaited = build
                try await waitForBuild(waiter)
            case .build(let generation):
                let value: T
                do {
                    value = try await build()
                } catch {
                    finish(nil, generation: generation, error: error)
                    throw error
                }
                finish(value, generation: generation)
                return value
            }
        }
    }

    /// Suspends until the build under way ends (or the task is cancelled). The decision to suspend and the
    /// registration of the continuation happen under the same lock that ``finish(_:generation:error:)`` takes to take
    /// the waiters, so a wake-up cannot be lost and a continuation is resumed exactly once.
    private func waitForBuild(_ waiter: AsyncWaits.Waiter?) async throws {
        if let waiter {
            try AsyncWaits.shared.begin(waiter, waitingFor: self)
        }
        defer {
            if let waiter {
                AsyncWaits.shared.end(waiter, waitingFor: self)
            }
        }
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled {
                        return .failure(CancellationError())
                    }
                    if state.builder == nil || state.current(holdsWeakly) != nil {
                        return .success(())
                    }
                    state.asyncWaiters.append((id, continuation))
                    return nil
                }
                if let now {
                    continuation.resume(with: now)
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state in
                state.asyncWaiters.firstIndex { $0.id == id }.map { state.asyncWaiters.remove(at: $0).continuation }
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }

    /// Ends the build under way: keeps `value`, or, when the build threw `error`, keeps the error for the callers
    /// that waited for it (a cancellation excepted: the build stopped for its own caller, not for them, so one of
    /// them builds again). Then wakes them.
    private func finish(_ value: T?, generation: Int, error: (any Error)? = nil) {
        let (stored, wake, waiting): (Bool, Bool, [CheckedContinuation<Void, any Error>]) = state.withLock { state in
            defer { state.asyncWaiters.removeAll() }
            state.builder = nil
            if let error, !(error is CancellationError) {
                state.failure = (state.builds, error)
            } else if value != nil {
                // Nobody can still want an older failure: its waiters find this instance first.
                state.failure = nil
            }
            var stored = false
            if let value, state.generation == generation {
                if holdsWeakly {
                    // A value type cannot be held weakly: it is handed out, not kept (`.weak` acts as `.transient`).
                    if Swift.type(of: value as Any) is AnyObject.Type {
                        state.object = value as AnyObject
                    }
                } else {
                    state.value = value
                }
                stored = true
            }
            return (stored, state.waiters > 0, state.asyncWaiters.map(\.continuation))
        }
        if stored, let value, let publishTo {
            publishTo.publishValueOnce(value)
        }
        if wake {
            Parking.shared.wakeAll()
        }
        for continuation in waiting {
            continuation.resume()
        }
    }
}
