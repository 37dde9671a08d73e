import CInjectShims

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
/// One per thread, in a C `_Thread_local` pointer (a pthread key only releases it when the thread ends), so that
/// `@Injected` wrappers initialised inside a factory join the resolution that runs the factory, and so that a
/// resolution on another thread never shares a graph or sees a false cycle. It is reused by every top-level resolve on its thread and only ever touched by
/// that thread; its identity is the thread's identity for ``InstanceSlot`` and ``Parking``.
final class ResolutionContext {
    /// A registration being built. A trivial type, so that pushing and popping one is a few stores.
    struct Frame {
        // Unowned: the entry and container are alive for as long as the resolve that pushed the frame.
        unowned(unsafe) let entry: EntryBase
        unowned(unsafe) let container: DIContainer
        /// The runtime argument the build was asked with, if any: a build of the same argument registration with
        /// another argument value is another build, not a cycle. Unowned: alive as long as the resolve's call.
        unowned(unsafe) let argument: ArgumentBox?
        /// The instance, boxed and retained, once the factory has returned and while `resolveProperties` runs: a
        /// request for the same registration then gets it back, which is how a cycle is closed. Released by `pop`.
        var inProgress: Unmanaged<AnyObject>?
        /// Under `validate()`: the time spent building the registrations this one asked for, so that its own
        /// factory's time can be told apart.
        var nestedNanoseconds: UInt64 = 0
        /// Whether `inProgress` was handed back (see `ResolutionContext+Lending.swift`).
        var lent = false
        /// Whether a frame further down lent its instance to this build's subtree, which may hold it.
        var tainted = false
    }

    /// Where a resolution keeps a graph-scope instance: by the registration's type and name, not by the
    /// registration itself, so that one replaced while the resolution runs (by another thread) does not give it a
    /// second instance of the same service. An argument registration's values are kept apart from a plain one's, and
    /// by argument type, as a replacement may add, drop or change the argument.
    struct GraphKey: Hashable {
        let key: Key
        let container: ObjectIdentifier
        /// For an argument registration's values, the argument type: a replacement that takes another type keeps
        /// its values apart (`7` and `7.0` are equal as `AnyHashable`).
        let argumentType: ObjectIdentifier?

        init(_ entry: EntryBase, in container: DIContainer, argumentType: ObjectIdentifier? = nil) {
            key = entry.key
            self.container = ObjectIdentifier(container)
            self.argumentType = argumentType
        }

        /// One word for the hasher, rather than one per field.
        func hash(into hasher: inout Hasher) {
            hasher.combine(
                (UInt(bitPattern: key.type) &* 0x9E37_79B9_7F4A_7C15) ^ UInt(bitPattern: container)
                    ^ (UInt(bitPattern: key.name) &* 0xBF58_476D_1CE4_E5B9)
                    ^ (argumentType.map { UInt(bitPattern: $0) &* 0x94D0_49BB_1331_11EB } ?? 0)
            )
        }
    }

    /// How deep one resolution may go before it is reported as runaway recursion. Real graphs stay far below;
    /// cycles are caught long before, by the stack check.
    static let maximumDepth = 256

    // The mutable state lives behind pointers and is reached through addressors: a class's stored `var`s would
    // pay a dynamic exclusivity check (and a thread-local read) on every access, on the hottest slow path.
    private let frameBuffer: UnsafeMutablePointer<Frame>
    private let depthStorage: UnsafeMutablePointer<Int>
    private let graphStorage: UnsafeMutablePointer<[GraphKey: AnyObject]>
    private let overlayStorage: UnsafeMutablePointer<Overlay?>
    private let argumentStorage: UnsafeMutablePointer<ArgumentBox?>
    private let originStorage: UnsafeMutablePointer<Origin?>
    private let lazyReadStorage: UnsafeMutablePointer<LazyRead?>
    private let asyncReadsStorage: UnsafeMutablePointer<Set<AsyncRead>>
    private let readBoundaryStorage: UnsafeMutablePointer<Int>
    private let eventsStorage: UnsafeMutablePointer<[(event: BuildEvent, home: DIContainer)]>
    private let topStorage: UnsafeMutablePointer<DIContainer?>
    private let asyncStorage: UnsafeMutablePointer<AsyncResolution?>
    private let throughStorage: UnsafeMutablePointer<Unmanaged<DIContainer>?>
    private let deliveringStorage: UnsafeMutablePointer<Bool>
    private let borrowedStorage: UnsafeMutablePointer<[any Gate]>
    /// How many frames on the stack lent their instance, and the shared builds that ended since: see
    /// `ResolutionContext+Lending.swift`.
    let lentStorage: UnsafeMutablePointer<Int>
    let dependentsStorage: UnsafeMutablePointer<[(lender: Int, cache: any InstanceCache)]>
    /// What a failed lender's build left to drop, dropped once the resolution is at rest: see
    /// `ResolutionContext+Lending.swift`.
    let droppedStorage: UnsafeMutablePointer<[any InstanceCache]>
    /// Whether the build that ended last on this thread was tainted (only kept while a frame lends).
    let lastTaintedStorage: UnsafeMutablePointer<Bool>

    /// The registrations being built, outermost first: a view of the stack, valid until the next push or pop.
    var frames: UnsafeBufferPointer<Frame> {
        UnsafeBufferPointer(start: frameBuffer, count: depthStorage.pointee)
    }

    /// The runtime argument for the factory about to run: set just before an argument registration's or a
    /// forward's factory is called, and taken by it at once (``takeArgument()``), on the same thread.
    var pendingArgument: ArgumentBox? {
        unsafeAddress { UnsafePointer(argumentStorage) }
        unsafeMutableAddress { argumentStorage }
    }

    /// Under `validate()`: who the top-level requests made on this thread now are recorded as coming from, and how.
    struct Origin {
        let source: ValidationRecorder.Source
        let kind: ValidationRecorder.EdgeKind
    }

    /// Set while `validate(building:)` runs a root (its wrappers' requests are the root's dependencies) or checks a
    /// lazy wrapper's dependency (recorded as the holder's lazy edge); `nil` otherwise.
    var topLevelOrigin: Origin? {
        unsafeAddress { UnsafePointer(originStorage) }
        unsafeMutableAddress { originStorage }
    }

    /// A lazy wrapper's first read made inside a build, under validation: the property, and how many frames were on
    /// the stack, so that only the read's own request (at that depth) is judged as a lazy read.
    struct LazyRead {
        let site: PropertySite
        let depth: Int
    }

    /// Set, under validation, while a lazy wrapper read inside a build resolves its service; `nil` otherwise.
    var lazyRead: LazyRead? {
        unsafeAddress { UnsafePointer(lazyReadStorage) }
        unsafeMutableAddress { lazyReadStorage }
    }

    /// A synchronous read of an async registration that got its instance, by the build whose own code read it.
    struct AsyncRead: Hashable {
        let reader: ValidationRecorder.Node
        let read: ObjectIdentifier
    }

    /// Under validation, the async registrations builds of this top-level resolve read synchronously themselves and
    /// got: at run time, built from then on too (or the read threw, ending the build), so a lazy read of one later in
    /// the same build comes after.
    var asyncReads: Set<AsyncRead> {
        unsafeAddress { UnsafePointer(asyncReadsStorage) }
        unsafeMutableAddress { asyncReadsStorage }
    }

    /// Under validation, while a property wrapper (or a lazy wrapper's first read) resolves inside a build: how many
    /// frames were on the stack. Its read does not throw into those builds (a wrapper keeps its failure), so it
    /// tells them nothing about what is built; 0 otherwise.
    var readBoundary: Int {
        unsafeAddress { UnsafePointer(readBoundaryStorage) }
        unsafeMutableAddress { readBoundaryStorage }
    }

    /// Takes the argument set for the factory that is running on this thread.
    static func takeArgument() -> ArgumentBox? {
        withCurrent { context in
            defer { context.pendingArgument = nil }
            return context.pendingArgument
        }
    }

    /// Pushes a frame: a store and an increment into a buffer of ``maximumDepth`` frames, made once per thread.
    @inline(__always)
    func push(_ entry: EntryBase, _ container: DIContainer, _ argument: ArgumentBox?) {
        (frameBuffer + depthStorage.pointee).initialize(
            to: Frame(entry: entry, container: container, argument: argument, inProgress: nil)
        )
        depthStorage.pointee += 1
    }

    @inline(__always)
    func pop() {
        depthStorage.pointee -= 1
        frameBuffer[depthStorage.pointee].inProgress?.release()
    }

    /// Adds time spent on a nested build to the innermost frame, under `validate()`.
    func addNestedTime(_ nanoseconds: UInt64) {
        frameBuffer[depthStorage.pointee - 1].nestedNanoseconds &+= nanoseconds
    }

    /// Counts a wait, since `start`, for a build under way on another thread as time the build under way on this one
    /// spent outside its own code, as a nested build's is.
    static func noteWait(since start: UInt64) {
        guard let raw = c_inject_get_thread_context() else { return }
        let context = Unmanaged<ResolutionContext>.fromOpaque(raw).takeUnretainedValue()
        if context.depthStorage.pointee > 0 {
            context.addNestedTime(monotonicNanoseconds() &- start)
        }
    }

    /// Marks the frame at `index` as having lent its instance in progress.
    func markLent(at index: Int) -> Bool {
        guard !frameBuffer[index].lent else { return false }
        frameBuffer[index].lent = true
        return true
    }

    /// Marks every frame above `index` as tainted: their builds may hold what the frame at `index` lent.
    func taint(above index: Int) {
        var current = index + 1
        while current < depthStorage.pointee {
            frameBuffer[current].tainted = true
            current += 1
        }
    }

    /// Whether the innermost frame is tainted.
    var isInnermostTainted: Bool {
        frameBuffer[depthStorage.pointee - 1].tainted
    }

    /// Whether the innermost frame lent its instance; clears the mark.
    func takeInnermostLent() -> Bool {
        let index = depthStorage.pointee - 1
        guard frameBuffer[index].lent else { return false }
        frameBuffer[index].lent = false
        return true
    }

    /// Records the innermost frame's instance, once its factory has returned.
    func setInProgress(_ box: AnyObject) {
        frameBuffer[depthStorage.pointee - 1].inProgress = Unmanaged.passRetained(box)
    }

    /// The graph-scope instances of the current top-level resolve.
    var graph: [GraphKey: AnyObject] {
        unsafeAddress { UnsafePointer(graphStorage) }
        unsafeMutableAddress { graphStorage }
    }

    /// The overlay the current top-level resolve runs under.
    var overlay: Overlay? {
        unsafeAddress { UnsafePointer(overlayStorage) }
        unsafeMutableAddress { overlayStorage }
    }

    private init() {
        frameBuffer = .allocate(capacity: Self.maximumDepth)
        depthStorage = .allocate(capacity: 1)
        depthStorage.initialize(to: 0)
        graphStorage = .allocate(capacity: 1)
        graphStorage.initialize(to: [:])
        overlayStorage = .allocate(capacity: 1)
        overlayStorage.initialize(to: nil)
        argumentStorage = .allocate(capacity: 1)
        argumentStorage.initialize(to: nil)
        originStorage = .allocate(capacity: 1)
        originStorage.initialize(to: nil)
        lazyReadStorage = .allocate(capacity: 1)
        lazyReadStorage.initialize(to: nil)
        asyncReadsStorage = .allocate(capacity: 1)
        asyncReadsStorage.initialize(to: [])
        readBoundaryStorage = .allocate(capacity: 1)
        readBoundaryStorage.initialize(to: 0)
        eventsStorage = .allocate(capacity: 1)
        eventsStorage.initialize(to: [])
        topStorage = .allocate(capacity: 1)
        topStorage.initialize(to: nil)
        asyncStorage = .allocate(capacity: 1)
        asyncStorage.initialize(to: nil)
        throughStorage = .allocate(capacity: 1)
        throughStorage.initialize(to: nil)
        deliveringStorage = .allocate(capacity: 1)
        deliveringStorage.initialize(to: false)
        borrowedStorage = .allocate(capacity: 1)
        borrowedStorage.initialize(to: [])
        lentStorage = .allocate(capacity: 1)
        lentStorage.initialize(to: 0)
        dependentsStorage = .allocate(capacity: 1)
        dependentsStorage.initialize(to: [])
        droppedStorage = .allocate(capacity: 1)
        droppedStorage.initialize(to: [])
        lastTaintedStorage = .allocate(capacity: 1)
        lastTaintedStorage.initialize(to: false)
    }

    deinit {
        for index in 0..<depthStorage.pointee {
            frameBuffer[index].inProgress?.release()
        }
        frameBuffer.deallocate()
        depthStorage.deallocate()
        graphStorage.deinitialize(count: 1)
        graphStorage.deallocate()
        overlayStorage.deinitialize(count: 1)
        overlayStorage.deallocate()
        argumentStorage.deinitialize(count: 1)
        argumentStorage.deallocate()
        originStorage.deinitialize(count: 1)
        originStorage.deallocate()
        lazyReadStorage.deinitialize(count: 1)
        lazyReadStorage.deallocate()
        asyncReadsStorage.deinitialize(count: 1)
        asyncReadsStorage.deallocate()
        readBoundaryStorage.deinitialize(count: 1)
        readBoundaryStorage.deallocate()
        eventsStorage.deinitialize(count: 1)
        eventsStorage.deallocate()
        topStorage.deinitialize(count: 1)
        topStorage.deallocate()
        asyncStorage.deinitialize(count: 1)
        asyncStorage.deallocate()
        throughStorage.deallocate()
        deliveringStorage.deallocate()
        borrowedStorage.deinitialize(count: 1)
        borrowedStorage.deallocate()
        lentStorage.deallocate()
        dependentsStorage.deinitialize(count: 1)
        dependentsStorage.deallocate()
        droppedStorage.deinitialize(count: 1)
        droppedStorage.deallocate()
        lastTaintedStorage.deallocate()
    }

    /// This context as a pointer: the identity of its thread, for ``Configurer``.
    @inline(__always)
    var identity: UnsafeMutableRawPointer {
        Unmanaged.passUnretained(self).toOpaque()
    }

    /// Whether a resolve is under way on this thread.
    var isResolving: Bool { depthStorage.pointee > 0 }

    /// The container the build under way on this thread resolves its dependencies from, or `nil` outside any build:
    /// where a property wrapper initialised now resolves when it is not given a container.
    var buildingHome: DIContainer? {
        guard depthStorage.pointee > 0 else { return nil }
        return frameBuffer[depthStorage.pointee - 1].container
    }

    /// Who is asking now, for `validate()`'s record: the innermost build, else the top-level origin, else nobody.
    var recordSource: ValidationRecorder.Source? {
        if let frame = frames.last {
            return .node(
                ValidationRecorder.Node(
                    entry: ObjectIdentifier(frame.entry),
                    home: ObjectIdentifier(frame.container),
                    argument: ValidationRecorder.argumentKey(frame.argument)
                )
            )
        }
        return topLevelOrigin?.source
    }

    /// How the innermost build is asking: from its factory, or from `resolveProperties` once the factory returned.
    var recordKind: ValidationRecorder.EdgeKind {
        if let frame = frames.last {
            return frame.inProgress == nil ? .factory : .properties
        }
        return topLevelOrigin?.kind ?? .factory
    }

    /// The async resolution this context is seeded from (see `ResolutionContext+Seeding.swift`), or `nil`: then
    /// graph-scope instances and build records go to it.
    var asyncResolution: AsyncResolution? {
        unsafeAddress { UnsafePointer(asyncStorage) }
        unsafeMutableAddress { asyncStorage }
    }

    /// Instances built by the current top-level resolve, for ``DIContainer/onBuild(_:)`` observers; delivered when
    /// it ends.
    var pendingEvents: [(event: BuildEvent, home: DIContainer)] {
        unsafeAddress { UnsafePointer(eventsStorage) }
        unsafeMutableAddress { eventsStorage }
    }

    /// The test overrides whose closure this thread is running: the container the closure registers into, and the
    /// real container they override. Read only while ``DIContainer/overridesBeingMade`` is above zero.
    var overridesBeingMade: (registry: DIContainer, target: DIContainer)?

    /// The first failure of a property wrapper initialised by the factory running on this thread for an async
    /// resolution, which fails that factory's build once it returns (see ``WrapperResolution/keep(_:site:)``).
    private var deferredWrapperFailure: ResolutionError?

    /// Keeps `failure` for the build under way, unless one is kept already.
    func deferWrapperFailure(_ failure: ResolutionError) {
        if deferredWrapperFailure == nil {
            deferredWrapperFailure = failure
        }
    }

    /// The wrapper failure kept for the build that just returned, once.
    func takeDeferredWrapperFailure() -> ResolutionError? {
        defer { deferredWrapperFailure = nil }
        return deferredWrapperFailure
    }

    /// Whether this thread is running ``DIContainer/onBuild(_:)`` observers: what they build is not an event, or an
    /// observer that resolves a `.graph` service would be called for its own build, and so on forever.
    var isDeliveringEvents: Bool {
        unsafeAddress { UnsafePointer(deliveringStorage) }
        unsafeMutableAddress { deliveringStorage }
    }

    /// Starts a top-level resolve through `container`: under the task's overlay, or the one of the resolver that
    /// started it.
    func beginTopLevel(_ caller: DIContainer.Caller, through container: DIContainer) {
        switch caller {
        case .outside:
            overlay = Overlay.active()
        case .resolver(let resolverOverlay, _):
            overlay = resolverOverlay
        }
        throughStorage.pointee = Unmanaged.passUnretained(container)
        if BuildObservation.isActive {
            topStorage.pointee = container
        }
    }

    /// The container the resolution under way went through at its top level, for errors that explain why a request
    /// could not reach a registration that container has; `nil` outside any resolution. Unretained: whoever called
    /// the top-level resolve holds that container until it returns.
    var topLevelContainer: DIContainer? {
        if let resolution = asyncResolution {
            return resolution.top
        }
        guard isResolving else { return nil }
        return throughStorage.pointee?.takeUnretainedValue()
    }

    /// The builds under way on other threads whose instances this resolution took while they were in
    /// `resolveProperties` (a cycle across threads): the top-level resolve waits for them to end before it returns.
    var borrowed: [any Gate] {
        unsafeAddress { UnsafePointer(borrowedStorage) }
        unsafeMutableAddress { borrowedStorage }
    }

    /// Notes that this resolution took the instance of `gate`'s build under way on another thread.
    func noteBorrowed(_ gate: any Gate) {
        borrowed.append(gate)
    }

    /// Ends a top-level resolve: graph-scope instances are released, the overlay forgotten, and the build events
    /// handed to their observers.
    @inline(__always)
    func endTopLevel() {
        overlay = nil
        if !graph.isEmpty || topStorage.pointee != nil || !pendingEvents.isEmpty || !borrowed.isEmpty
            || !droppedStorage.pointee.isEmpty || !asyncReads.isEmpty
        {
            endTopLevelSlowly()
        }
    }

    /// ``endTopLevel()`` when graph-scope instances, build events or borrowed builds are left.
    @inline(never)
    private func endTopLevelSlowly() {
        asyncReads.removeAll()
        dropWhatFailedLendersLeft()
        if !borrowed.isEmpty {
            // The instances this resolution took from builds on other threads: their `resolveProperties` may still
            // run. This thread builds nothing now, so none of them can be waiting for it.
            let gates = borrowed
            borrowed.removeAll()
            for gate in gates {
                gate.waitForBuildEnd(thread: ObjectIdentifier(self))
            }
        }
        if !graph.isEmpty {
            // Cleared before the instances go: a deinit may resolve, and must find a context at rest.
            let dropped = graph
            graph.removeAll(keepingCapacity: true)
            _ = dropped
        }
        if topStorage.pointee != nil || !pendingEvents.isEmpty {
            deliverEvents()
        }
    }

    /// Hands the build events of the resolve that just ended to their observers, with the context at rest.
    @inline(never)
    private func deliverEvents() {
        let events = pendingEvents
        let top = topStorage.pointee
        pendingEvents.removeAll()
        topStorage.pointee = nil
        if !events.isEmpty {
            DIContainer.deliver(events, resolvedThrough: top)
        }
    }

    /// The calling thread's context, made on first use.
    static var current: ResolutionContext {
        Unmanaged<ResolutionContext>.fromOpaque(currentPointer).takeUnretainedValue()
    }

    /// Runs `body` with the calling thread's context, without retaining it (the thread's key holds it).
    @inline(__always)
    static func withCurrent<Result>(_ body: (ResolutionContext) throws -> Result) rethrows -> Result {
        try Unmanaged<ResolutionContext>.fromOpaque(currentPointer)._withUnsafeGuaranteedRef(body)
    }

    /// The calling thread's context as a pointer, made on first use: the thread's identity.
    @inline(__always)
    static var currentPointer: UnsafeMutableRawPointer {
        if let raw = c_inject_get_thread_context() {
            return raw
        }
        return makeCurrent()
    }

    @inline(never)
    private static func makeCurrent() -> UnsafeMutableRawPointer {
        let raw = Unmanaged.passRetained(ResolutionContext()).toOpaque()
        // The thread-local is what resolves read; the pthread key only releases the context when the thread ends.
        c_inject_set_thread_context(raw)
        pthread_setspecific(ThreadContextKey.key, raw)
        return raw
    }
}

private enum ThreadContextKey {
    /// The pthread key whose destructor releases a thread's context when the thread ends.
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        #if canImport(Darwin)
        let status = pthread_key_create(&key) { raw in
            c_inject_set_thread_context(nil)
            Unmanaged<ResolutionContext>.fromOpaque(raw).release()
        }
        #else
        let status = pthread_key_create(&key) { raw in
            c_inject_set_thread_context(nil)
            if let raw {
                Unmanaged<ResolutionContext>.fromOpaque(raw).release()
            }
        }
        #endif
        precondition(status == 0, "Inject: pthread_key_create failed with \(status)")
        return key
    }()
}
