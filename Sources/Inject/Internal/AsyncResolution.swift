import CInjectShims
import Dispatch

/// One async resolution: everything one top-level `resolveAsync` (or one eager build of `warmUp()`) builds, on
/// whatever tasks and threads it runs.
///
/// A thread's ``ResolutionContext`` cannot carry a resolution across `await`: after a suspension the task may resume
/// on another thread, and another task may run on this one. So an async resolution keeps its state here and in its
/// ``AsyncFrame``s, which travel with the task: in the ``DIResolver`` an async factory gets, and in a task-local
/// for wrappers initialised inside one. Its synchronous segments (a synchronous factory, a `resolve` call inside an
/// async factory) run on a thread context seeded from the frames (see `ResolutionContext+Seeding.swift`), so the
/// synchronous engine, its cycle detection and its errors serve both.
///
/// An async factory may start child tasks that resolve through the same resolver at once, so everything here is
/// safe to share: the graph-scope instances are gates (built once per resolution, whoever asks), and the frames are
/// immutable links, so that concurrent branches never see each other's frames.
final class AsyncResolution: @unchecked Sendable {
    // @unchecked: `state` is only touched under its lock; the rest is `let`.
    /// The test overrides or validation overlay the resolution runs under.
    let overlay: Overlay?
    /// The container the top-level request went through, for ``DIContainer/onBuild(_:)`` observers.
    let top: DIContainer
    /// What `warmUp()` learns, when this resolution is one of its eager builds.
    let startup: StartupRecorder?

    private struct State {
        var graph: [ResolutionContext.GraphKey: AnyObject] = [:]
        var events: [(event: BuildEvent, home: DIContainer)] = []
        /// Under validation: the async registrations this resolution resolved, which a synchronous read in the same
        /// resolution may then find built, as it would at run time.
        var resolvedAsync: Set<ObjectIdentifier> = []
        /// Under validation: the async registrations each build's subtree awaited or read in a way that fails it
        /// when they are not built, by build.
        var reads: Set<ResolutionContext.AsyncRead> = []
        /// Builds under way elsewhere whose instances this resolution took in a cycle across threads or tasks.
        var borrowed: [any Gate] = []
        /// What failed lenders left, dropped when the resolution ends (see `ResolutionContext+Lending.swift`).
        var dropped: [any InstanceCache] = []
        /// In a build of `warmUp()`: the synchronous reads of async services that failed as not built yet, and the
        /// registration whose build read each, in the order they failed.
        var readsBeforeBuilt: [ReadBeforeBuilt] = []
    }

    private let state = Locked(State())

    init(overlay: Overlay?, top: DIContainer, startup: StartupRecorder? = nil) {
        self.overlay = overlay
        self.top = top
        self.startup = startup
    }

    /// The gate of `entry`'s graph-scope instance in `home` for this resolution.
    func graphSlot<T>(for entry: Entry<T>, home: DIContainer, _ code: Int) -> InstanceSlot<T> {
        let key = ResolutionContext.GraphKey(entry, in: home)
        return state.withLock { state in
            if let slot = state.graph[key] {
                return unsafeDowncast(slot, to: InstanceSlot<T>.self)
            }
            let slot = entry.makeSlot(code)
            state.graph[key] = slot
            return slot
        }
    }

    /// The per-argument-value graph-scope instances of `entry` in `home` for this resolution.
    func graphArgumentCache<T>(for entry: Entry<T>, home: DIContainer, _ code: Int) -> ArgumentCache<T> {
        let key = ResolutionContext.GraphKey(entry, in: home, argumentType: entry.argumentKeying?.type)
        return state.withLock { state in
            if let cache = state.graph[key] {
                return unsafeDowncast(cache, to: ArgumentCache<T>.self)
            }
            let cache = ArgumentCache { entry.makeSlot(code) }
            state.graph[key] = cache
            return cache
        }
    }

    /// Under validation, notes that this resolution resolved the async (or main-actor) registration `entry`.
    func noteResolved(_ entry: EntryBase) {
        state.withLock { _ = $0.resolvedAsync.insert(ObjectIdentifier(entry)) }
    }

    /// Whether this resolution resolved the async (or main-actor) registration `entry` with an async resolve
    /// (recorded under validation only).
    func hasResolved(_ entry: EntryBase) -> Bool {
        state.withLock { $0.resolvedAsync.contains(ObjectIdentifier(entry)) }
    }

    /// Under validation, notes that the builds `readers` (in whose subtrees the read was) read or awaited `entry`,
    /// in a way that fails them if it is not built: built from then on.
    func noteRead(_ entry: EntryBase, by readers: [ValidationRecorder.Node]) {
        noteRead(ObjectIdentifier(entry), by: readers)
    }

    /// ``noteRead(_:by:)`` for the registration whose identity is `entry`.
    func noteRead(_ entry: ObjectIdentifier, by readers: [ValidationRecorder.Node]) {
        let reads = readers.map { ResolutionContext.AsyncRead(reader: $0, read: entry) }
        state.withLock { $0.reads.formUnion(reads) }
    }

    /// Under validation, the async registrations the subtree of the build `reader` awaited (or read) so far.
    func reads(by reader: ValidationRecorder.Node) -> Set<ObjectIdentifier> {
        state.withLock { state in Set(state.reads.lazy.filter { $0.reader == reader }.map(\.read)) }
    }

    /// In a build of `warmUp()`, notes that `reader`'s build read the async service `read` synchronously before it
    /// was built: an error, which fails the build unless a factory catches it and goes on without the service.
    func noteReadBeforeBuilt(_ read: EntryBase, by reader: EntryBase) {
        let noted = ReadBeforeBuilt(
            read: read.label,
            readIsEager: read.isEager,
            reader: reader.label,
            readerIsAsync: reader.isAsync
        )
        state.withLock { state in
            if !state.readsBeforeBuilt.contains(where: { $0.read == noted.read && $0.reader == noted.reader }) {
                state.readsBeforeBuilt.append(noted)
            }
        }
    }

    /// The reads ``noteReadBeforeBuilt(_:by:)`` noted.
    var readsBeforeBuilt: [ReadBeforeBuilt] {
        state.withLock { $0.readsBeforeBuilt }
    }

    /// Notes what a failed lender left, to drop when the resolution ends.
    func addDropped(_ caches: [any InstanceCache]) {
        state.withLock { $0.dropped += caches }
    }

    /// Notes builds under way elsewhere whose instances this resolution took while they were in
    /// `resolveProperties`.
    func addBorrowed(_ gates: [any Gate]) {
        state.withLock { $0.borrowed += gates }
    }

    /// Suspends until every build whose instance this resolution took has ended, so that the top-level request
    /// never returns an instance whose cycle is not closed yet.
    func awaitBorrowedBuilds() async {
        while let gates = state.withLock({ state -> [any Gate]? in
            defer { state.borrowed.removeAll() }
            return state.borrowed.isEmpty ? nil : state.borrowed
        }) {
            for gate in gates {
                await gate.buildEnded()
            }
        }
    }

    /// A build finished: an event for the observers, and a record for `warmUp()`'s report.
    func recordBuild(_ event: BuildEvent, entry: EntryBase, home: DIContainer, start: UInt64, end: UInt64) {
        if BuildObservation.isActive {
            state.withLock { $0.events.append((event, home)) }
        }
        startup?.recordBuild(event, entry: entry, home: home, start: start, end: end)
    }

    /// `frame` (or the top-level request, when `nil`) asked for `entry`, built in `home`.
    func recordRequest(from frame: (entry: EntryBase, home: DIContainer)?, to entry: EntryBase, home: DIContainer) {
        startup?.recordEdge(from: frame, to: entry, home: home)
    }

    /// Whether builds must be timed: for validation, observers or `warmUp()`.
    var timesBuilds: Bool {
        overlay?.recorder != nil || startup != nil || BuildObservation.isActive
    }

    /// Ends the resolution: its graph-scope instances go, and its build events reach their observers.
    func finish() {
        let (dropped, finished, left) = state.withLock { state in
            defer {
                state.graph.removeAll()
                state.events.removeAll()
                state.dropped.removeAll()
            }
            return (state.graph, state.events, state.dropped)
        }
        _ = dropped  // released outside the lock: a deinit is user code
        for cache in left {
            cache.reset()  // onRelease runs, with no lock held and every build of this resolution finished
        }
        if !finished.isEmpty {
            DIContainer.deliver(finished, resolvedThrough: top)
        }
    }
}

/// One build in an async resolution: the registration, the container it resolves its dependencies from, and the
/// frame that asked for it. Immutable links from the innermost build to the top-level request, so that child tasks
/// resolving through the same resolver share their ancestors and never see each other.
final class AsyncFrame: @unchecked Sendable {
    // @unchecked: `progress` is only touched under its lock; the rest is `let`.
    let entry: EntryBase
    let container: DIContainer
    let parent: AsyncFrame?
    let resolution: AsyncResolution
    let depth: Int
    /// The runtime argument the build was asked with, if any (see ``ResolutionContext/Frame/argument``).
    let argument: ArgumentBox?
    /// How far the build has come.
    private struct Progress {
        /// The instance once the factory has returned, while `resolveProperties` runs.
        var instance: AnyObject?
        /// The spans of time spent in nested builds and waits, as they were added. They overlap when the factory
        /// asks for several at once (`async let`, a task group): that time is counted once.
        var nested: [(start: UInt64, end: UInt64)] = []
        /// Whether the async factory and its `resolveProperties` have returned (or thrown).
        var factoryReturned = false
        /// Whether the instance in progress was handed back, and the shared builds that ended on it since: see
        /// `ResolutionContext+Lending.swift`.
        var lent = false
        var dependents: [any InstanceCache] = []
        /// Whether a build up the chain lent its instance to this build's subtree, which may hold it.
        var tainted = false
    }

    private let progress = Locked(Progress())

    init(
        entry: EntryBase,
        container: DIContainer,
        argument: ArgumentBox?,
        parent: AsyncFrame?,
        resolution: AsyncResolution
    ) {
        self.entry = entry
        self.container = container
        self.argument = argument
        self.parent = parent
        self.resolution = resolution
        self.depth = (parent?.depth ?? 0) + 1
    }

    /// The build whose async factory is running on this task: set around each async factory, so that a wrapper
    /// initialised inside it, or a `resolve` call there, joins its resolution.
    @TaskLocal static var current: AsyncFrame?

    /// How many async factories are running, process-wide: zero in an app at rest, so that a synchronous resolve
    /// pays one atomic load, not a task-local read, to learn that it is not inside one.
    @inline(__always)
    static var inFlight: ProcessCounter { ProcessCounter(C_INJECT_ASYNC_FACTORIES) }

    /// ``current`` when an async factory may be running, else `nil` without reading the task-local.
    @inline(__always)
    static var currentIfAny: AsyncFrame? {
        inFlight.value > 0 ? current : nil
    }

    /// Whether this build's async factory (or its `resolveProperties`) is still running: a task that reads
    /// ``current`` runs inside it (or in a task it started, which may outlive it).
    var isFactoryRunning: Bool {
        progress.withLock { !$0.factoryReturned }
    }

    func factoryReturned() {
        progress.withLock { $0.factoryReturned = true }
    }

    /// The instance, boxed, once the factory has returned and while `resolveProperties` runs.
    var instanceInProgress: AnyObject? {
        progress.withLock { $0.instance }
    }

    func setInProgress(_ box: AnyObject) {
        progress.withLock { $0.instance = box }
    }

    /// Marks the instance in progress as handed back: what is built on it from now on waits for this build's end.
    func markLent() {
        progress.withLock { $0.lent = true }
    }

    /// Marks this build as one that may hold an instance lent up the chain.
    func markTainted() {
        progress.withLock { $0.tainted = true }
    }

    var isTainted: Bool {
        progress.withLock { $0.tainted }
    }

    /// Marks this frame and its ancestors below `lender` as tainted: they asked for `lender`'s unfinished instance.
    func taintUp(to lender: AsyncFrame) {
        var current: AsyncFrame? = self
        while let frame = current, frame !== lender {
            frame.markTainted()
            current = frame.parent
        }
    }

    /// This frame or the innermost ancestor whose instance in progress was handed back, if any.
    var innermostLender: AsyncFrame? {
        var current: AsyncFrame? = self
        while let frame = current {
            if frame.progress.withLock({ $0.lent }) {
                return frame
            }
            current = frame.parent
        }
        return nil
    }

    /// A shared build that ended on this frame's lent instance: settled when this build ends.
    func addDependent(_ cache: any InstanceCache) {
        progress.withLock {
            $0.lent = true
            $0.dependents.append(cache)
        }
    }

    /// This build's `resolveProperties` ended (`succeeded`, or threw): what was built on its instance goes to the
    /// next lender up the chain, is published, or is dropped (its `onRelease` runs, outside any resolution).
    func settleLending(succeeded: Bool) {
        let (lent, dependents) = progress.withLock { progress in
            defer {
                progress.lent = false
                progress.dependents = []
            }
            return (progress.lent, progress.dependents)
        }
        guard lent, !dependents.isEmpty else { return }
        if !succeeded {
            // Dropped when the resolution ends, once every build of it has finished.
            resolution.addDropped(dependents)
        } else if let next = parent?.innermostLender {
            for dependent in dependents {
                next.addDependent(dependent)
            }
        } else {
            for dependent in dependents {
                dependent.releasePublication()
            }
        }
    }

    /// Time spent in the builds this one asked for, and in waiting for them, from `start` to `end`: time in which
    /// several of them ran at once counted once, so that what is left is the factory's own time even when it asks
    /// concurrently.
    func nestedNanoseconds(from start: UInt64, to end: UInt64) -> UInt64 {
        let spans = progress.withLock { $0.nested }.sorted { $0.start < $1.start }
        var covered: UInt64 = 0
        var reached = start
        for span in spans {
            let from = max(span.start, reached)
            let to = min(span.end, end)
            if from < to {
                covered &+= to &- from
                reached = to
            }
        }
        return covered
    }

    /// Records that a build this one asked for, or a wait for one, took from `start` to `end`.
    func addNested(from start: UInt64, to end: UInt64) {
        progress.withLock { $0.nested.append((start, end)) }
    }

    /// This frame and its ancestors, outermost first.
    var chain: [AsyncFrame] {
        var frames: [AsyncFrame] = []
        var current: AsyncFrame? = self
        while let frame = current {
            frames.append(frame)
            current = frame.parent
        }
        return frames.reversed()
    }

    /// The frame building `entry` in `home` with `argument`, this one or an ancestor, with its index in ``chain``.
    func find(
        _ entry: EntryBase,
        in home: DIContainer,
        _ argument: ArgumentBox?
    ) -> (frame: AsyncFrame, index: Int)? {
        var current: AsyncFrame? = self
        while let frame = current {
            if frame.entry === entry && frame.container === home
                && ResolutionContext.sameArgument(frame.argument, argument, of: entry)
            {
                return (frame, frame.depth - 1)
            }
            current = frame.parent
        }
        return nil
    }

    /// The wait-for identities of this build and the ones above it, which all wait for it.
    var waiter: AsyncWaits.Waiter {
        var identities: [ObjectIdentifier] = []
        var current: AsyncFrame? = self
        while let frame = current {
            identities.append(ObjectIdentifier(frame))
            current = frame.parent
        }
        return AsyncWaits.Waiter(chain: identities)
    }

    /// Who asks, for `validate()`'s record.
    var recordSource: ValidationRecorder.Source {
        .node(
            ValidationRecorder.Node(
                entry: ObjectIdentifier(entry),
                home: ObjectIdentifier(container),
                argument: ValidationRecorder.argumentKey(argument)
            )
        )
    }

    /// How this build asks: from its factory, or from `resolveProperties`.
    var recordKind: ValidationRecorder.EdgeKind {
        instanceInProgress == nil ? .factory : .properties
    }
}

/// A synchronous read of an async service that failed in a build of `warmUp()`, as it was not built yet.
struct ReadBeforeBuilt {
    let read: String
    /// Whether the service read is `.eager()`, so that `warmUp()` builds it.
    let readIsEager: Bool
    /// The registration whose build read it, and whether its factory is async.
    let reader: String
    let readerIsAsync: Bool
}

/// Now, in nanoseconds, for build times.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}
