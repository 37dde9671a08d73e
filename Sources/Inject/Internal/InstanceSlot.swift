import Dispatch

/// One shared instance and the gate that makes its build happen once.
///
/// `instance(thread:build:)` runs `build` exactly once, even when many threads ask at once: the first caller
/// becomes the builder, the others wait in ``Parking`` (not on a lock held by the builder) and then read the
/// result. A build that throws stores nothing, so the next caller builds again. `reset()` drops the instance; a
/// build that was under way when `reset()` ran hands its instance to its own caller and to the callers waiting for
/// it, but does not store it: they asked before the reset, and get the instance of the build they waited for, rather
/// than running the factory again (after a registration was replaced, its old factory).
///
/// `instanceAsync(builder:waiter:build:)` is the same gate for async resolutions: a task that finds a build under
/// way registers its continuation, under the slot's lock, and suspends; the build's end resumes every waiter, also
/// under that lock's protection, so no thread is blocked and no wake-up is lost. A waiting task that is cancelled
/// stops waiting with `CancellationError`; the build goes on for the others.
///
/// The slot's lock is held only to read or change its state, never while `build` runs.
final class InstanceSlot<T>: Gate, ReleasableSlot, @unchecked Sendable {
    // @unchecked: `state` is only touched under its lock, `publishTo` only atomically; `T` is handed out as the
    // registration's contract says (see Docs/ThreadSafety.md).
    //
    // The state is not generic (the instance lives behind a raw pointer, read and written as a `T` only under the
    // lock): unspecialised code that touched a `State<T>`, an `Optional<T>` or a `Step<T>` would look up their
    // metadata in the runtime's cache on every read, which cost a cached `.scoped` read half its time.

    enum Failure: Error {
        /// The thread building the instance asked for it again (only ``LazySingleton`` can get here; the
        /// resolution stack catches container cycles first).
        case recursion
        /// The build this caller waited for threw `error`. Every caller that waited for that build gets its error,
        /// rather than running the failing factory again one after another; the next caller builds again.
        case sharedBuildFailed(any Error)
        /// The registration was replaced and its instance dropped (``retire()``): the caller resolves the
        /// registration that replaced it, rather than running the old factory again.
        case retired
    }

    private let state = Locked(InstanceSlotState())
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
        // No other reference is left: the state is read without the lock's contention, through it all the same.
        let (storage, handoff) = state.withLock { ($0.storage, $0.handoff?.storage) }
        if let handoff {
            _ = Self.release(handoff)
        }
        if let storage {
            let value = Self.release(storage)
            onRelease?(value)
        }
    }

    var builder: ObjectIdentifier? { state.withLock { $0.builder } }

    /// How many callers wait for the build under way: threads parked and tasks suspended.
    var waitingCount: Int { state.withLock { $0.waiters + $0.asyncWaiting } }

    var label: String { Describe.service(service, name) }

    /// What the last build threw, until a build succeeds: for the error of a synchronous read that finds no instance.
    var lastFailure: (any Error)? {
        state.withLock { $0.failure?.error }
    }

    var storedOrder: Int { state.withLock { $0.storedOrder } }

    func addSlots(to batch: inout ReleaseBatch, retiring: Bool) {
        batch.append(self, retire: retiring)
    }

    /// The stored instance, without building one.
    var current: T? {
        state.withLock { state -> T? in
            if holdsWeakly {
                return state.object.map { $0 as! T }
            }
            return state.storage.map { $0.assumingMemoryBound(to: T.self).pointee }
        }
    }

    /// `value` in storage of its own, for ``InstanceSlotState/storage``.
    private static func store(_ value: T) -> UnsafeMutableRawPointer {
        let storage = UnsafeMutablePointer<T>.allocate(capacity: 1)
        storage.initialize(to: value)
        return UnsafeMutableRawPointer(storage)
    }

    /// Frees `storage`, made by ``store(_:)``, and hands back the instance it held.
    private static func release(_ storage: UnsafeMutableRawPointer) -> T {
        let value = storage.assumingMemoryBound(to: T.self).move()
        storage.deallocate()
        return value
    }

    /// Drops the stored instance; the next `instance` call builds again. `onRelease` runs for it, with no lock held.
    ///
    /// - Returns: Whether there was an instance (a `.weak` one still alive) to drop.
    @discardableResult
    func reset() -> Bool {
        let (dropped, handoff, held) = state.withLock { state in
            defer {
                state.storage = nil
                state.object = nil
                state.handoff = nil
                state.generation += 1
                state.publicationHeld = false
                state.storedOrder = 0
            }
            return (state.storage, state.handoff?.storage, state.storage != nil || state.object != nil)
        }
        // Nobody reads the storage once the lock is let go: it is freed, and the instance released, outside it.
        if let handoff {
            _ = Self.release(handoff)
        }
        if let dropped {
            let value = Self.release(dropped)
            onRelease?(value)
        }
        return held
    }

    /// Drops the stored instance for good: its registration was replaced. A build under way still ends for its
    /// caller and those waiting for it; no build starts after this (callers get ``Failure/retired``).
    @discardableResult
    func retire() -> Bool {
        state.withLock { $0.retired = true }
        return reset()
    }

    /// Stores `value` as the instance, as if it had just been built; a build under way is handed to its own caller
    /// but not kept. Not for slots that publish a singleton.
    func replace(with value: T) {
        let storage = holdsWeakly ? nil : Self.store(value)
        let replaced = state.withLock { state in
            defer { state.generation += 1 }
            if holdsWeakly {
                state.object = value as AnyObject
                return nil as UnsafeMutableRawPointer?
            }
            defer { state.storage = storage }
            return state.storage
        }
        if let replaced {
            _ = Self.release(replaced)
        }
    }

    /// The stored instance, or the one `build` makes, which is then stored.
    ///
    /// - Parameters:
    ///   - thread: The calling thread's identity (its ``ResolutionContext``).
    ///   - build: Makes the instance. Runs at most once at a time, with no lock held.
    /// - Throws: What `build` throws, ``Failure/recursion``, ``Failure/sharedBuildFailed(_:)`` (the build this
    ///   caller waited for threw), ``Failure/retired`` (the registration was replaced), or ``Parking/Deadlock``.
    func instance(thread: ObjectIdentifier, build: () throws -> T) throws -> T {
        var awaited: AwaitedBuild?
        while true {
            let step: InstanceSlotStep
            do {
                return try storedInstance(for: thread, countingWaiter: true, awaited: awaited)
            } catch {
                step = error
            }
            switch step {
            case .recursion:
                throw Failure.recursion
            case .retired:
                throw Failure.retired
            case .failed(let error):
                throw Failure.sharedBuildFailed(error)
            case .wait(let build):
                awaited = build
                defer { state.withLock { $0.waiters -= 1 } }
                // The wait is not the waiting build's own time: its report (validation's, warmUp()'s) leaves it out.
                let waitStart = monotonicNanoseconds()
                defer { ResolutionContext.noteWait(since: waitStart) }
                do {
                    try Parking.shared.wait(for: self, thread: thread)
                } catch let deadlock as Parking.Deadlock {
                    // The build this thread waits for waits, through other threads, for one of this thread's own
                    // builds. If it is past its factory (in `resolveProperties`), the cycle is closed by
                    // `resolveProperties`, as on one thread: take its instance now, and the builds all finish.
                    // Either way this thread does not come back for the build's hand-off.
                    leaveWait(for: build, async: false)
                    guard let box = instanceInProgress(of: build) else { throw deadlock }
                    // Its build still runs on the other thread: the top-level resolve that took it waits for that
                    // build to end before it returns, so that its caller never sees the instance unfinished.
                    ResolutionContext.withCurrent { $0.noteBorrowed(self) }
                    return unsafeDowncast(box, to: Box<T>.self).value
                }
            case .build(let generation):
                return try buildAndStore(generation: generation, build)
            }
        }
    }

    /// The instance of the build under way, boxed, once its factory has returned and while its
    /// `resolveProperties` runs, if that build is still `awaited`.
    private func instanceInProgress(of awaited: AwaitedBuild) -> AnyObject? {
        state.withLock { state in
            guard state.builder != nil, state.builds == awaited.build else { return nil }
            return state.inProgress
        }
    }

    /// Called by the build under way: its instance is stored when it ends, but not published for lock-free reads
    /// until ``releasePublication()``, since it may still be dropped (it holds an instance lent by a build that may
    /// fail; see `ResolutionContext+Lending.swift`).
    func holdPublication() {
        state.withLock { $0.publicationHeld = true }
    }

    /// Whether the stored instance is kept back from publication (see ``holdPublication()``).
    var isPublicationHeld: Bool {
        state.withLock { $0.publicationHeld }
    }

    /// Publishes the stored instance that ``holdPublication()`` kept back, if it is still stored.
    func releasePublication() {
        guard let publishTo else {
            state.withLock { $0.publicationHeld = false }
            return
        }
        // Copied under the lock: a replacement of the registration may reset the slot as soon as it is let go.
        let value = state.withLock { state -> T? in
            guard state.publicationHeld else { return nil }
            state.publicationHeld = false
            return state.storage.map { $0.assumingMemoryBound(to: T.self).pointee }
        }
        if let value {
            publishTo.publishValueOnce(value)
        }
    }

    func buildEnded() async {
        try? await waitForBuild(nil)
    }

    func waitForBuildEnd(thread: ObjectIdentifier) {
        // Counted as a waiter, so that the build's end wakes this thread.
        let building = state.withLock { state in
            if state.builder != nil {
                state.waiters += 1
            }
            return state.builder != nil
        }
        guard building else { return }
        defer { state.withLock { $0.waiters -= 1 } }
        try? Parking.shared.wait(for: self, thread: thread)
    }

    /// Records the instance of the build under way, boxed, once its factory has returned: a thread whose wait for
    /// this build closes a `resolveProperties` cycle across threads takes it (see ``instance(thread:build:)``).
    func setInProgress(_ box: AnyObject) {
        state.withLock { $0.inProgress = box }
    }

    /// Runs the build this caller became the builder of, then stores what it made (or keeps its error for those who
    /// waited). Out of line: it handles a `T?`, whose metadata the read path above must not look up on every read.
    @inline(never)
    private func buildAndStore(generation: Int, _ build: () throws -> T) throws -> T {
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

    /// The stored instance, read under the lock; when there is none, what `builder` does instead, thrown: take the
    /// error of the build it waited for (`awaited`) if that build threw, become the builder, or wait (counted for
    /// ``Parking``'s wake-up when `countingWaiter`). A read of a stored instance touches no generic type but `T`
    /// (no metadata lookup) and allocates nothing; the other outcomes box the step, once per build or wait.
    private func storedInstance(
        for builder: ObjectIdentifier,
        countingWaiter: Bool,
        awaited: AwaitedBuild?
    ) throws(InstanceSlotStep) -> T {
        do {
            return try state.withLock { state throws -> T in
                if holdsWeakly {
                    // A `.weak` build hands its instance to the callers that waited for it, held strongly until each
                    // has come back (see `finish`): its own caller may have let go of it meanwhile.
                    if let awaited, let handoff = state.handoff, handoff.build == awaited.build,
                        awaited.generation == handoff.generation
                    {
                        return Self.takeHandoff(handoff, &state)
                    }
                    if let object = state.object {
                        return object as! T
                    }
                } else if let storage = state.storage {
                    return storage.assumingMemoryBound(to: T.self).pointee
                }
                if let awaited, let handoff = state.handoff, handoff.build == awaited.build,
                    awaited.generation == handoff.generation
                {
                    // The build this caller waited for made an instance that the slot did not keep (a reset, or a
                    // replacement, while it ran). Only for a caller that waited since before that: one that came
                    // after must not get an instance the reset left behind while the next build gives others a new one.
                    return Self.takeHandoff(handoff, &state)
                }
                if let awaited, let failure = state.failure, failure.build == awaited.build {
                    throw InstanceSlotStep.failed(failure.error)
                }
                if state.retired, state.builder == nil {
                    throw InstanceSlotStep.retired
                }
                if let current = state.builder {
                    if current == builder {
                        throw InstanceSlotStep.recursion
                    }
                    if countingWaiter {
                        state.waiters += 1
                    } else {
                        state.asyncWaiting += 1
                    }
                    state.buildWaiters += 1
                    throw InstanceSlotStep.wait(AwaitedBuild(build: state.builds, generation: state.generation))
                }
                state.builder = builder
                state.builds += 1
                state.buildWaiters = 0
                throw InstanceSlotStep.build(generation: state.generation)
            }
        } catch {
            // Only the closure above throws, and only steps.
            throw error as! InstanceSlotStep
        }
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
        var awaited: AwaitedBuild?
        while true {
            let step: InstanceSlotStep
            do {
                return try storedInstance(for: builder, countingWaiter: false, awaited: awaited)
            } catch {
                step = error
            }
            switch step {
            case .recursion:
                throw Failure.recursion
            case .retired:
                throw Failure.retired
            case .failed(let error):
                throw Failure.sharedBuildFailed(error)
            case .wait(let build):
                awaited = build
                do {
                    try await waitForBuild(waiter)
                } catch {
                    leaveWait(for: build, async: true)
                    throw error
                }
                state.withLock { $0.asyncWaiting -= 1 }
            case .build(let generation):
                return try await buildAndStore(generation: generation, build)
            }
        }
    }

    /// A caller that stops waiting for `build` without coming back for it (a cancelled task; a thread that took
    /// the build's instance in progress to close a cycle across threads): no longer counted for that build's
    /// hand-off, or its share given back if the build has ended, so that the hand-off does not keep the instance
    /// after the others have taken it. One lock for both, so that the build cannot end in between.
    ///
    /// - Parameter async: Whether the caller is a task (counted in `asyncWaiting`, which this ends) or a thread.
    private func leaveWait(for build: AwaitedBuild, async: Bool) {
        let freed: UnsafeMutableRawPointer? = state.withLock { state in
            if async {
                state.asyncWaiting -= 1
            }
            if state.builder != nil, state.builds == build.build {
                state.buildWaiters -= 1
                return nil
            }
            guard let handoff = state.handoff, handoff.build == build.build, handoff.generation == build.generation
            else { return nil }
            guard handoff.waiters <= 1 else {
                state.handoff?.waiters -= 1
                return nil
            }
            state.handoff = nil
            return handoff.storage
        }
        if let freed {
            _ = Self.release(freed)  // outside the lock: a deinit is user code
        }
    }

    /// ``buildAndStore(generation:_:)`` for an async build.
    @inline(never)
    private func buildAndStore(generation: Int, _ build: () async throws -> T) async throws -> T {
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
        // A wait that lasts is said out loud, as a thread's is (see `Parking`). The warning holds the service's
        // name, not the slot, whose instance must not outlive its scope for the warning's sake.
        let (service, name) = (self.service, self.name)
        let warning = DispatchWorkItem { Parking.warnOfLongAsyncWait(for: Describe.service(service, name)) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Parking.warningSeconds), execute: warning)
        defer { warning.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled {
                        return .failure(CancellationError())
                    }
                    if state.builder == nil || state.holdsInstance(weakly: holdsWeakly) {
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

    /// The instance of a build's hand-off, for one of the callers that waited for that build: a copy, or, for the
    /// last of them, the instance itself, moved out (so that nothing is released under the lock).
    private static func takeHandoff(
        _ handoff: (build: Int, generation: Int, storage: UnsafeMutableRawPointer, waiters: Int),
        _ state: inout InstanceSlotState
    ) -> T {
        let instance = handoff.storage.assumingMemoryBound(to: T.self)
        guard handoff.waiters <= 1 else {
            state.handoff?.waiters -= 1
            return instance.pointee
        }
        state.handoff = nil
        defer { handoff.storage.deallocate() }
        return instance.move()
    }

    /// Ends the build under way: keeps `value`, or, when the build threw `error`, keeps the error for the callers
    /// that waited for it (a cancellation excepted: the build stopped for its own caller, not for them, so one of
    /// them builds again). Then wakes them.
    private func finish(_ value: T?, generation: Int, error: (any Error)? = nil) {
        // Made outside the lock; freed again if the slot does not keep it.
        let storage = value.flatMap { holdsWeakly ? nil : Self.store($0) }
        let order = storage != nil && onRelease != nil ? ReleaseBatch.nextStoredOrder() : 0
        var inProgress: AnyObject?
        var publicationHeld = false
        let (stored, unused, handedOff, wake, waiting):
            (Bool, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Bool, [CheckedContinuation<Void, any Error>]) =
                state.withLock { state in
                    publicationHeld = state.publicationHeld
                    defer { state.asyncWaiters.removeAll() }
                    state.builder = nil
                    // Released below, outside the lock: it may hold the last reference to an instance that failed.
                    swap(&inProgress, &state.inProgress)
                    // An older build's hand-off: its waiters have all come back, or found a stored instance first.
                    let handedOff = state.handoff?.storage
                    state.handoff = nil
                    if let error, !(error is CancellationError) {
                        state.failure = (state.builds, error)
                    } else if value != nil {
                        // Nobody can still want an older failure: its waiters find this instance first.
                        state.failure = nil
                    }
                    var stored = false
                    var unused = storage
                    if let value, state.generation == generation {
                        if holdsWeakly {
                            // A value type cannot be held weakly: it is handed out, not kept (`.weak` acts as
                            // `.transient`).
                            if Swift.type(of: value as Any) is AnyObject.Type {
                                state.object = value as AnyObject
                            }
                            // The callers that waited get this instance, even if its own caller lets go of it before
                            // they wake: held for them until each has taken it (rare: a first build with waiters).
                            if state.buildWaiters > 0 {
                                state.handoff = (
                                    state.builds, generation, Self.store(value), state.buildWaiters
                                )
                            }
                        } else {
                            unused = state.storage
                            state.storage = storage
                            state.storedOrder = order
                        }
                        stored = true
                    } else if let value, state.buildWaiters > 0 {
                        // A reset (or the replacement of the registration) while it was built: not kept, but handed to
                        // the callers that waited for this build, as its own caller gets it. A weak slot keeps no
                        // storage of its own: the hand-off gets one (rare: a reset raced a first build and a wait).
                        let handed = storage ?? Self.store(value)
                        state.handoff = (state.builds, generation, handed, state.buildWaiters)
                        unused = nil
                    }
                    return (stored, unused, handedOff, state.waiters > 0, state.asyncWaiters.map(\.continuation))
                }
        for storage in [unused, handedOff] {
            if let storage {
                _ = Self.release(storage)
            }
        }
        if stored, !publicationHeld, let value, let publishTo {
            publishTo.publishValueOnce(value)
        }
        inProgress = nil
        if wake {
            Parking.shared.wakeAll()
        }
        for continuation in waiting {
            continuation.resume()
        }
    }
}

/// A cache of shared instances that a reset or the release of what holds it lets go of: an ``InstanceSlot``, or an
/// ``ArgumentCache`` of them.
protocol InstanceCache: AnyObject {
    /// Drops what it holds (`onRelease` runs for each instance, with no lock held); a build under way is handed to
    /// its own caller and to those waiting for it, and not kept. Returns whether there was an instance to drop.
    @discardableResult
    func reset() -> Bool
    /// ``reset()``, for good: the registration was replaced, and no build starts any more.
    @discardableResult
    func retire() -> Bool
    /// Publishes what a build kept back for lock-free reads (see ``InstanceSlot/holdPublication()``).
    func releasePublication()
    /// Adds its slots to `batch`, to be released with others newest first: retired when `retiring`, else reset. An
    /// argument cache hands its slots over (they are retired, as they leave it); when `retiring` it starts no more.
    func addSlots(to batch: inout ReleaseBatch, retiring: Bool)
}

/// An ``InstanceSlot``'s state, behind its lock. Not generic, so that unspecialised code reads it with no metadata
/// lookup: the instance is a `T` in storage of its own, which only the slot reads and writes as a `T`.
private struct InstanceSlotState {
    /// The instance, held strongly: an initialised `T` that the slot allocated, or `nil`.
    var storage: UnsafeMutableRawPointer?
    /// The instance of a slot that holds it weakly.
    weak var object: AnyObject?
    var builder: ObjectIdentifier?
    /// The instance of the build under way, boxed, while its `resolveProperties` runs.
    var inProgress: AnyObject?
    /// The stored instance is not published for lock-free reads yet: see ``InstanceSlot/holdPublication()``.
    var publicationHeld = false
    var waiters = 0
    var generation = 0
    /// Tasks waiting for the build under way, by waiter number.
    var asyncWaiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    /// How many tasks are waiting for a build, suspended or about to be (``waiters`` counts threads).
    var asyncWaiting = 0
    /// How many callers, threads and tasks, began to wait for the build under way (not for an earlier one, and not
    /// a thread that only waits for its end, ``InstanceSlot/waitForBuildEnd(thread:)``): the share count of its
    /// hand-off, which each of them takes once.
    var buildWaiters = 0
    /// The instance of the latest build when the slot did not keep it (reset, or its registration replaced, while it
    /// was built), for the callers that waited for that build, and how many of them have not taken it yet.
    var handoff: (build: Int, generation: Int, storage: UnsafeMutableRawPointer, waiters: Int)?
    /// The registration was replaced: no build starts any more.
    var retired = false
    /// When ``storage`` was stored: see ``ReleaseBatch``.
    var storedOrder = 0
    var nextWaiter = 0
    /// How many builds started: the number of the one under way, while there is a builder.
    var builds = 0
    /// The latest build that threw, with its error, for the callers that waited for it.
    var failure: (build: Int, error: any Error)?

    func holdsInstance(weakly: Bool) -> Bool {
        weakly ? object != nil : storage != nil
    }
}

/// The build a caller of ``InstanceSlot`` waits for: its number, and the slot's generation (its count of resets)
/// when the caller began to wait.
private struct AwaitedBuild {
    let build: Int
    let generation: Int
}

/// What a caller of ``InstanceSlot`` does next when there is no instance to take, decided under its lock: thrown by
/// the read, so that the read returns the instance itself, with no `Optional<T>` around it.
private enum InstanceSlotStep: Error {
    case recursion
    /// No instance, and no build may start: the registration was replaced.
    case retired
    /// The build the caller waited for threw this.
    case failed(any Error)
    /// Another caller is running a build: which, and the slot's generation when this caller began to wait for it.
    case wait(AwaitedBuild)
    case build(generation: Int)
}
