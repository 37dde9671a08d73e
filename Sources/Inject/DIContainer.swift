import CInjectShims

/// A thread-safe dependency-injection container: registrations by type and name, scoped lifetimes, child scopes.
///
/// Register services with a factory, then resolve them, or let the property wrappers (``Injected``,
/// ``LazyInjected``, ``WeakInjected``, ``OptionalInjected``) resolve them from ``shared``:
///
/// ```swift
/// let container = DIContainer()
/// container.register(APIClient.self) { LiveAPIClient() }.scope(.singleton)
/// container.register { r in try ProfileViewModel(api: r.resolve()) }
/// let viewModel = container.resolve(ProfileViewModel.self)
/// ```
///
/// A child container (``makeChild()``) sees every registration of its parents and can shadow them; a parent never
/// sees a child's. Use children for sessions, requests and screens.
///
/// > Important: Every method is safe to call from any thread at any time, registration included (another thread
/// > sees a registration whole, with every option of its chain, or not yet: see ``Registration``). No
/// > container-wide lock is held while a factory runs, so different services build in parallel and a factory may
/// > block on work that resolves other services on other threads. Each shared instance (``Scope/singleton``,
/// > ``Scope/cached``, ``Scope/weak``, ``Scope/scoped``, ``Scope/custom(_:)``) is built exactly once, even when
/// > many threads ask for it at once. Reading a built singleton takes no lock. See `Docs/ThreadSafety.md`.
public final class DIContainer: @unchecked Sendable {
    // @unchecked: the mutable state is `state`, behind its lock, and `tableCell`, an atomic cell; the rest is `let`.

    /// The application's root container; the property wrappers resolve from it unless given another.
    public static let shared = DIContainer()

    /// The container this one falls back to for registrations it does not have, or `nil` for a root.
    public let parent: DIContainer?
    /// `parent`, unretained, for the hot path; the strong `parent` keeps it alive.
    let parentRef: Unmanaged<DIContainer>?

    /// `[0]`: the current ``EntryTable``, read without a lock; `[1]`: non-null once sealed, set under the lock (so
    /// that `register`, which checks it under the lock, never publishes after `seal()` returned); `[2]`: non-null
    /// once it may hold an instance with an `onRelease` (see `noteInstancesWithRelease`).
    let tableCell: ReferenceCell

    let state: Locked<State>

    /// The registry of the test override whose closure made this container, if one did: the closure may register
    /// into a container it made itself, never into one it was handed (see `checkNotChangingAroundOverrides`).
    let madeByOverridesClosure: ObjectIdentifier?

    struct State {
        /// Every entry ever published here, replaced ones included: lock-free readers may still hold those.
        var entries: [EntryBase] = []
        /// Distinct keys in the table.
        var keyCount = 0
        /// Tables replaced by bigger ones, kept for readers that may still be probing them.
        var retiredTables: [EntryTable] = []
        /// This container's `.scoped` instances, by entry.
        var scopedSlots: [ObjectIdentifier: AnyObject] = [:]
        /// How many keys were ever registered here: the next registration order.
        var nextOrder = 0
        /// What ``onBuild(_:)`` added.
        var buildObservers: [@Sendable (BuildEvent) -> Void] = []
    }

    /// Makes a container.
    ///
    /// - Parameter parent: The container to fall back to for registrations this one does not have. The child
    ///   holds its parent strongly; the parent does not know its children.
    public init(parent: DIContainer? = nil) {
        self.parent = parent
        self.parentRef = parent.map { Unmanaged.passUnretained($0) }
        self.tableCell = ReferenceCells.allocate(3)
        self.state = Locked(State())
        self.madeByOverridesClosure =
            Self.overridesBeingMade.value > 0
            ? ResolutionContext.current.overridesBeingMade.map { ObjectIdentifier($0.registry) } : nil
        _ = tableCell.publishOnce(EntryTable(capacity: 16))
    }

    deinit {
        Overlay.containerEnded(ObjectIdentifier(self))
        if c_inject_load_acquire(tableCell + 2) != nil {
            releaseNewestFirst()
        }
        let observers = state.withLock { $0.buildObservers.count }
        if observers > 0 {
            BuildObservation.observerCount.add(-observers)
        }
        tableCell.releaseObject()
        ReferenceCells.free(tableCell, count: 3)
    }

    /// What this container holds leaves its scope with it: released newest first (see `ReleaseBatch`), rather than
    /// in the order its tables happen to be freed. Only instances with an `onRelease` have an order to keep, so only a
    /// container that holds some pays for this.
    @inline(never)
    private func releaseNewestFirst() {
        let (scoped, entries) = state.withLock { state in
            defer { state.scopedSlots.removeAll() }
            return (state.scopedSlots, state.entries)
        }
        var batch = ReleaseBatch()
        for cache in scoped.values {
            batch.add(cache, retiring: true)
        }
        for entry in entries where entry.hasReleaseHook {
            entry.addCachedInstance(to: &batch, retiring: true)
        }
        batch.release()
    }

    /// Notes that this container holds, or may hold, an instance with an `onRelease` (a registration here has one,
    /// or a `.scoped` slot made here does): its release then orders its instances (see `releaseNewestFirst`). Cell 2
    /// of ``tableCell``, non-null once noted.
    func noteInstancesWithRelease() {
        c_inject_store_release(tableCell + 2, UnsafeMutableRawPointer(bitPattern: 1))
    }

    /// Makes a child container: the same as `DIContainer(parent: self)`.
    ///
    /// The child sees every registration of this container and its parents, and its own registrations shadow
    /// theirs. Its `.scoped` instances are its own and are released with it.
    public func makeChild() -> DIContainer {
        DIContainer(parent: self)
    }

    /// This container, then its parent, its parent's parent, and so on to the root.
    var lineage: UnfoldFirstSequence<DIContainer> {
        sequence(first: self, next: \.parent)
    }

    /// Whether `ancestor` is this container or one of its parents, at any distance.
    func isOrDescends(from ancestor: DIContainer) -> Bool {
        lineage.contains { $0 === ancestor }
    }

    /// The current registrations, read without a lock.
    var table: EntryTable {
        tableCell.loadObject(as: EntryTable.self).unsafelyUnwrapped
    }

    /// The entry under `key` in this container's own table, without retaining anything: the hot path.
    @inline(__always)
    func findUnretained(_ key: Key) -> Unmanaged<EntryBase>? {
        let table = Unmanaged<EntryTable>.fromOpaque(c_inject_load_acquire(tableCell).unsafelyUnwrapped)
        return table._withUnsafeGuaranteedRef { $0.findUnretained(key) }
    }

    /// Stops this container from taking registrations: a later `register` call or registration option traps with a
    /// message that says the container was sealed.
    ///
    /// Seal the root after the composition root has run, so that no code path changes the wiring later. Children
    /// of a sealed container are not sealed.
    ///
    /// - Parameters:
    ///   - file: The call, named by a trap (sealing the real container inside a test override's closure).
    ///   - line: The call's line.
    public func seal(file: StaticString = #fileID, line: UInt = #line) {
        checkNotChangingAroundOverrides(
            "seal()",
            lasting: "the container stays sealed: every later register on it traps",
            fix: "remove seal() from the overrides closure: seal the real container where the app composes it.",
            file: file,
            line: line
        )
        state.withLock { _ in
            c_inject_store_release(tableCell + 1, UnsafeMutableRawPointer(bitPattern: 1))
        }
    }

    /// Whether ``seal(file:line:)`` was called.
    public var isSealed: Bool {
        c_inject_load_acquire(tableCell + 1) != nil
    }
}
