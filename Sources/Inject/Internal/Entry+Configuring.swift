import CInjectShims

// A registration chain in progress: `register` and the options chained on the ``Registration`` it returns.
//
// The model: a registration is published into its container's table at once, so that the code making it sees it
// straight away, but it carries the mark of its maker until the chain ends, which is when the `Registration` is
// released (at the end of the statement that chains its options). The maker is the task that registers (whatever
// threads it runs on between suspensions), or the thread, outside any task. Until the chain ends every other task
// and thread resolves what was there before: the registration it replaces in the same container, or a parent's, or
// nothing. A task is told apart from another that runs on the same pool thread.
// So another thread never sees a registration with only some of its options (a `.graph` that is about to become a
// `.singleton`, a singleton without its `resolveProperties`): it sees the whole chain or none of it.
//
// Reading a built singleton stays one lookup and one load: only a registration whose chain has ended, or whose own
// thread built it, can have a published singleton, so the hot path needs no check. Every other path checks the
// mark, one atomic load.

extension EntryBase {
    /// Marks the entry as being configured by the calling task (or thread, outside any task). Before it is
    /// published.
    func beginConfiguring() {
        let maker = Self.currentTask ?? ResolutionContext.currentPointer
        c_inject_store_release(cells + Cell.maker, maker)
    }

    /// The running task's identity, or `nil` outside any task: one call into the concurrency runtime.
    @inline(__always)
    static var currentTask: UnsafeMutableRawPointer? {
        c_inject_current_task()
    }

    /// Ends the configuration, and its forwards': every thread sees them from now on. The entry it replaced is
    /// dropped now, not at `register`, since other threads resolved it until this moment.
    @usableFromInline
    func endConfiguring() {
        c_inject_store_release(cells + Cell.maker, nil)
        if c_inject_load_acquire(cells + Cell.forwards) != nil {
            for forward in takeForwards() {
                forward.endConfiguring()
            }
        }
        if let previous {
            // Marked first: from now on no build of it starts, whether it finds a cache to retire or not.
            previous.markReplaced(droppedInstance: false)
            if previous.retireCachedInstance() {
                previous.markReplaced(droppedInstance: true)
            }
        }
    }

    /// Whether the registration chain that made this entry is still open.
    var isConfiguring: Bool {
        c_inject_load_acquire(cells + Cell.maker) != nil
    }

    /// Whether a resolve on the calling thread, whose context is `thread`, sees this entry: its chain has ended, or
    /// the calling task (outside any task, that thread) is the one making it.
    @inline(__always)
    func isVisible(to thread: UnsafeMutableRawPointer) -> Bool {
        guard let configuring = c_inject_load_acquire(cells + Cell.maker) else { return true }
        return Self.isMaker(configuring, thread)
    }

    /// Whether `maker`, an open chain's mark, is the calling task (outside any task, `thread`). Out of line: only an
    /// open chain asks, and the resolve path stays as short as without the check.
    @inline(never)
    private static func isMaker(_ maker: UnsafeMutableRawPointer, _ thread: UnsafeMutableRawPointer) -> Bool {
        maker == (currentTask ?? thread)
    }

    /// This entry if `thread` sees it, else the newest entry it replaced in the same container that `thread` sees.
    @inline(__always)
    func visible(to thread: UnsafeMutableRawPointer) -> EntryBase? {
        var entry: EntryBase? = self
        while let candidate = entry {
            if candidate.isVisible(to: thread) {
                return candidate
            }
            entry = candidate.previous
        }
        return nil
    }
}

extension DIContainer {
    /// The entry under `key` that a resolve on the thread whose context is `thread` sees, in this container or its
    /// nearest ancestor that has one, with that container: lock-free, retains nothing.
    func lookupVisible(_ key: Key, from thread: UnsafeMutableRawPointer) -> Found? {
        var container = Unmanaged.passUnretained(self)
        while true {
            let (found, parent) = container._withUnsafeGuaranteedRef { ($0.findUnretained(key), $0.parentRef) }
            if let found, let entry = found._withUnsafeGuaranteedRef({ $0.visible(to: thread) }) {
                return (Unmanaged.passUnretained(entry), container)
            }
            guard let parent else { return nil }
            container = parent
        }
    }

    /// The entry under `key` that a resolve through this container from the calling thread finds, test overrides
    /// first, with the container that owns it: for validation and `resolveAll`, not the hot path.
    func findSeeingOverrides(_ key: Key) -> (entry: EntryBase, owner: DIContainer)? {
        if let found = Overlay.active()?.find(key, through: self) {
            return found
        }
        return lookupVisible(key, from: ResolutionContext.currentPointer).map {
            ($0.entry.takeUnretainedValue(), $0.owner.takeUnretainedValue())
        }
    }

    /// This container's own registrations that the calling thread sees, one per key.
    var visibleEntries: [EntryBase] {
        visibleEntries(from: ResolutionContext.currentPointer)
    }

    /// This container's own registrations that the thread whose context is `thread` sees, one per key.
    func visibleEntries(from thread: UnsafeMutableRawPointer) -> [EntryBase] {
        table.entries().compactMap { $0.visible(to: thread) }
    }

    /// Registrations of this container that a later registration of the same key, made elsewhere in the code,
    /// replaced, each with the one in use now: for `validate()`'s warning. The same code run twice (a module
    /// installed twice) is listed only when the replacement dropped an instance the first one had built.
    var replacedRegistrations: [(replaced: EntryBase, by: EntryBase)] {
        let thread = ResolutionContext.currentPointer
        let all = state.withLock { $0.entries }
        var current: [Key: EntryBase] = [:]
        for entry in table.entries() {
            current[entry.key] = entry.visible(to: thread)
        }
        var seen: Set<String> = []
        return all.compactMap { entry in
            // A forward replaced by a forward to the same registration comes with that registration's own
            // replacement, which is the one reported.
            guard let used = current[entry.key], used !== entry,
                entry.location != used.location || entry.droppedInstanceWhenReplaced,
                entry.forwardTarget == nil || entry.forwardTarget?.key != used.forwardTarget?.key,
                !entry.isConfiguring,
                seen.insert("\(entry.location)|\(used.location)").inserted
            else { return nil }
            return (entry, used)
        }
    }

    /// Registrations of this container whose chains another thread has not ended, under `key`: for the message
    /// that says why a registration made elsewhere is not seen yet.
    func hiddenEntry(_ key: Key, from thread: UnsafeMutableRawPointer) -> EntryBase? {
        for container in lineage {
            if let entry = container.table.find(key), !entry.isVisible(to: thread) {
                return entry
            }
        }
        return nil
    }
}
