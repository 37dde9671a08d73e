import CInjectShims

/// A layer over a container, active for one task (or, pushed, for the process): extra registrations that win
/// over the container's, and caches of its own, so that nothing built under it leaks into the container and
/// nothing the container built is seen under it.
///
/// InjectTesting's overrides are overlays with registrations; `validate()` runs under an overlay without any, which
/// applies to every container and records what it sees.
///
/// Two rules, kept apart on purpose:
/// - **Registrations** apply to resolves through the target and its descendants only.
/// - **Caches**: every shared instance built while the overlay is active is kept in the overlay, whatever container
///   the resolve went through (the target, a parent, a sibling, an unrelated container), and dropped with it. A
///   container's own caches are never written under an overlay, so nothing built inside is seen after it ends.
///   The overlay does not keep a container alive: when one is released while the overlay lives, the instances the
///   overlay holds for it are released with it (`.scoped` instances and their `onRelease`), as outside an overlay.
final class Overlay: @unchecked Sendable {
    // @unchecked: every stored property is a `let`, and `slots` and the recorder lock themselves.
    /// The container the overlay applies to, with its descendants; `nil` for every container.
    let target: DIContainer?
    /// Registrations that win over the container's, or `nil`.
    let registry: DIContainer?
    /// The overlay that was active when this one began; its registrations still apply below this one's.
    let outer: Overlay?
    /// What `validate()` learns while it builds: edges, missing services, build times.
    let recorder: ValidationRecorder?

    private struct Held {
        // The slot first: it goes first, so that its instance's onRelease runs while the entry is still there.
        let slot: AnyObject
        // A strong reference keeps the entry's identity in the key from being reused while the slot lives. The
        // home's identity cannot be reused either: ``containerEnded(_:)`` drops its slots before it is freed.
        let entry: EntryBase
    }

    /// The slots, by the identity of the container they belong to (their home), then of their entry: a container's
    /// release takes its own slots in one step.
    private let slots = Locked<[ObjectIdentifier: [ObjectIdentifier: Held]]>([:])
    /// How many scopes it is active in now: ``activated(_:)`` calls under way (the override's own, and the workers
    /// it lends itself to) and a ``pushProcessWide()``. At zero it has ended: a task that still carries it (a
    /// `Task {}` started inside an override and run after it) no longer resolves under it.
    private let activations = Locked(0)
    /// The registrations of this overlay that a resolve through a container it does not apply to asked for, which
    /// no override applied to, as the messages that say so: see ``missedOverrides``.
    private let misses = Locked<Misses>(Misses())

    private struct Misses {
        /// By the overridden registration, in the order first missed.
        var missed: [(entry: ObjectIdentifier, miss: MissedOverride)] = []
        /// The registrations a resolve found: once used, a miss elsewhere is deliberate, not a mistake.
        var used: Set<ObjectIdentifier> = []
    }

    init(target: DIContainer?, registry: DIContainer?, outer: Overlay?, recorder: ValidationRecorder? = nil) {
        self.target = target
        self.registry = registry
        self.outer = outer
        self.recorder = recorder
        Self.live.withLock { $0[ObjectIdentifier(self)] = Unmanaged.passUnretained(self) }
    }

    deinit {
        // Waits for a container's release that is taking this overlay's slots (under the same lock), so that the
        // overlay is never used after it is freed; and it takes no reference, so this deinit runs where the overlay
        // is let go (the end of an override releases what it built right there).
        let identity = ObjectIdentifier(self)
        Self.live.withLock { _ = $0.removeValue(forKey: identity) }
        // What it built is released with it, newest first (see `ReleaseBatch`).
        Self.release(slots.withLock { $0.values.flatMap(\.values) }, ending: true)
    }

    /// Releases the instances of `held`, newest first, each slot retired: it has left the overlay.
    ///
    /// - Parameter ending: Whether what holds them ends (the overlay, or the container they were built for), so
    ///   that nothing can build into them any more: only those with an `onRelease` need an order, and the others go
    ///   as their references do.
    private static func release(_ held: [Held], ending: Bool) {
        var batch = ReleaseBatch()
        for item in held where !ending || item.entry.hasReleaseHook {
            batch.add(item.slot, retiring: true)
        }
        batch.release()
    }

    /// Whether `entry` is one of the registrations of this overlay or an outer one: a test's override.
    func registers(_ entry: EntryBase) -> Bool {
        sequence(first: self, next: \.outer).contains { $0.registry === entry.owner }
    }

    /// The override that registers `entry`, this overlay or an outer one, if one does.
    func overriding(_ entry: EntryBase) -> Overlay? {
        sequence(first: self, next: \.outer).first { $0.registry === entry.owner }
    }

    /// Whether resolves through `container` see this overlay: `container` is the target or one of its descendants.
    func applies(to container: DIContainer) -> Bool {
        guard let target else { return true }
        return container.isOrDescends(from: target)
    }

    /// The registration under `key` in this overlay or an outer one that applies to `container`, with the
    /// container that owns it for the scope rules (the overlay's target).
    ///
    /// - Parameter resolving: Whether a resolve asks (not `isRegistered`, say): an override it does not reach, as
    ///   one it reaches, is noted for ``missedOverrides``.
    func find(
        _ key: Key,
        through container: DIContainer,
        resolving: Bool = false
    ) -> (entry: EntryBase, owner: DIContainer)? {
        var current: Overlay? = self
        while let overlay = current {
            if let registry = overlay.registry, let entry = registry.table.find(key) {
                if overlay.applies(to: container) {
                    if resolving, overlay.target != nil {
                        overlay.noteUse(of: entry)
                    }
                    return (entry, overlay.target ?? container)
                }
                // Inside the one that applies, if any: had it reached this resolve, it would have won.
                if resolving {
                    overlay.noteMiss(of: entry, through: container)
                }
            }
            current = overlay.outer
        }
        return nil
    }

    /// Notes that a resolve through `container`, which this overlay does not apply to, asked for `entry`'s service:
    /// a test that overrides one container while the code under test resolves through another (a sibling, another
    /// tree). A resolve through a parent of the target is not one: a parent's registrations are its own, which an
    /// override of a child leaves as they are on purpose (its singletons keep the parent's services).
    func noteMiss(of entry: EntryBase, through container: DIContainer) {
        guard let target, !target.isOrDescends(from: container) else { return }
        let service = entry.label
        let overridden = target === DIContainer.shared ? "DIContainer.shared" : "the container passed as in:"
        let outside =
            Array(container.lineage).last === Array(target.lineage).last
            ? "another container of the same tree, outside it (a sibling, or a sibling's child)"
            : container === DIContainer.shared
                ? "DIContainer.shared (a property wrapper without container:, or a resolve through .shared)"
                : "a container of another tree (another root container, or one of its children)"
        let fix =
            container === DIContainer.shared
            ? "override DIContainer.shared, which the code under test resolves through: withOverrides { ... }, without in:"
            : """
            override the container the code under test resolves through: withOverrides(in: thatContainer) \
            { ... }
            """
        let message = """
            the override of \(service) registered at \(entry.location) applies to resolves through \(overridden) \
            and its children, but no resolve there asked for it, and \(service) was resolved through \(outside), \
            which this override does not reach: that resolve did not see it.
              fix: \(fix).
            """
        let miss = MissedOverride(message: message, fileID: "\(entry.file)", line: Int(entry.line))
        let identity = ObjectIdentifier(entry)
        misses.withLock { misses in
            if !misses.missed.contains(where: { $0.entry == identity }) {
                misses.missed.append((identity, miss))
            }
        }
    }

    /// Notes that a resolve found `entry`, an override of this overlay: one it reached, so a miss of it elsewhere
    /// was meant (a test of what an override does not reach).
    func noteUse(of entry: EntryBase) {
        let identity = ObjectIdentifier(entry)
        misses.withLock { misses in
            if !misses.used.contains(identity) {
                misses.used.insert(identity)
            }
        }
    }

    /// What ``find(_:through:)`` noted of resolves this overlay's registrations did not reach, each a message that
    /// says which and the fix.
    var missedOverrides: [MissedOverride] {
        misses.withLock { misses in misses.missed.filter { !misses.used.contains($0.entry) }.map(\.miss) }
    }

    /// This overlay's slot for `entry`'s shared instance in `home`.
    func slot<T>(for entry: Entry<T>, home: DIContainer, _ code: Int) -> InstanceSlot<T> {
        held(for: entry, in: home) { entry.makeSlot(code) }
    }

    /// This overlay's per-argument-value instances of `entry` in `home`.
    func argumentCache<T>(for entry: Entry<T>, home: DIContainer, _ code: Int) -> ArgumentCache<T> {
        held(for: entry, in: home) { ArgumentCache { entry.makeSlot(code) } }
    }

    /// What this overlay holds for `entry` in `home`, if it holds anything: made by nothing.
    func existingSlot(for entry: EntryBase, home: DIContainer) -> AnyObject? {
        slots.withLock { $0[ObjectIdentifier(home)]?[ObjectIdentifier(entry)]?.slot }
    }

    /// What this overlay holds for `entry` in `home`, made by `make` the first time.
    private func held<Slot: AnyObject>(for entry: EntryBase, in home: DIContainer, _ make: () -> Slot) -> Slot {
        slots.withLock { slots in
            if let held = slots[ObjectIdentifier(home)]?[ObjectIdentifier(entry)] {
                return unsafeDowncast(held.slot, to: Slot.self)
            }
            let slot = make()
            slots[ObjectIdentifier(home), default: [:]][ObjectIdentifier(entry)] = Held(slot: slot, entry: entry)
            return slot
        }
    }

    /// Drops the instances of `scope` this overlay holds for `container`.
    func reset(_ scope: Scope, in container: DIContainer) {
        let dropped: [Held] = slots.withLock { slots in
            guard let held = slots[ObjectIdentifier(container)] else { return [] }
            let matching = held.filter { $0.value.entry.scopeCode == scope.code }
            slots[ObjectIdentifier(container)] = held.filter { $0.value.entry.scopeCode != scope.code }
            return Array(matching.values)
        }
        // Retired, as they left the table (see `DIContainer.dropScoped`); outside the lock: onRelease is user code.
        Self.release(dropped, ending: false)
    }

    /// Drops the instance(s) this overlay holds for `entry` built in `home`.
    func reset(_ entry: EntryBase, in home: DIContainer) {
        let dropped = slots.withLock { $0[ObjectIdentifier(home)]?.removeValue(forKey: ObjectIdentifier(entry)) }
        // Retired, as it left the table (see `DIContainer.dropScoped`); outside the lock: onRelease is user code.
        (dropped?.slot as? any InstanceCache)?.retire()
    }

    /// Takes every slot this overlay holds for the container `home`.
    private func takeSlots(of home: ObjectIdentifier) -> [Held] {
        slots.withLock { slots in slots.removeValue(forKey: home).map { Array($0.values) } ?? [] }
    }
}

extension Overlay {
    /// Every overlay in the process that has not been freed, unretained, so that a container's release reaches the
    /// slots any of them holds for it, whichever task or thread lets the container go. An overlay removes itself in
    /// its `deinit`, under this lock.
    private static let live = Locked<[ObjectIdentifier: Unmanaged<Overlay>]>([:])

    /// Whether a test override (`withOverrides`, the `.overrides` trait, `pushOverrides`) that resolves through
    /// `container` would see is active somewhere in the process: for the message of a resolve that is not under it,
    /// which ran where the override does not reach (a detached task, a queue, a thread). The error path only.
    static func isTestOverrideActive(over container: DIContainer) -> Bool {
        guard activeCount.value > 0 else { return false }
        return live.withLock { live in
            live.values.contains { unmanaged in
                unmanaged._withUnsafeGuaranteedRef { overlay in
                    overlay.registry != nil && overlay.recorder == nil && overlay.isActive
                        && overlay.applies(to: container)
                }
            }
        }
    }

    /// The registration of `key` in an active test override that applies to `container`, in whatever task it is
    /// active: for the error of a resolve that runs outside it and finds nothing.
    static func activeOverride(of key: Key, over container: DIContainer) -> EntryBase? {
        guard activeCount.value > 0 else { return nil }
        return live.withLock { live in
            for unmanaged in live.values {
                let found = unmanaged._withUnsafeGuaranteedRef { overlay -> EntryBase? in
                    guard let registry = overlay.registry, overlay.recorder == nil, overlay.isActive,
                        overlay.applies(to: container)
                    else { return nil }
                    return registry.table.find(key)
                }
                if let found {
                    return found
                }
            }
            return nil
        }
    }

    /// Releases what every live overlay holds for `container`, which is being released: its `.scoped` instances
    /// built under an overlay go with it, `onRelease` included, exactly as those built outside one. Called by
    /// `DIContainer`'s `deinit`, outside every lock; the instances are released here, after the locks are dropped.
    ///
    /// The overlays are used under the lock of ``live`` and never retained: a retain here would move the release of
    /// an overlay that ends meanwhile (and the `onRelease` of everything it built) to this thread, after its end.
    static func containerEnded(_ container: ObjectIdentifier) {
        let dropped: [Held] = live.withLock { live in
            var dropped: [Held] = []
            for overlay in live.values {
                dropped += overlay._withUnsafeGuaranteedRef { $0.takeSlots(of: container) }
            }
            return dropped
        }
        if !dropped.isEmpty {
            release(dropped, ending: true)  // outside the locks: a deinit (and onRelease) is user code
        }
    }
}

extension Overlay {
    /// How many overlays are active anywhere in the process. Zero in production, so that a resolve pays one
    /// atomic load, not a task-local read, to learn that no overlay applies.
    @inline(__always)
    static var activeCount: ProcessCounter { ProcessCounter(C_INJECT_ACTIVE_OVERLAYS) }

    /// The overlay of the current task.
    @TaskLocal static var current: Overlay?

    /// Overlays pushed process-wide (XCTest's `pushOverrides`), innermost last.
    private static let pushed = Locked<[Overlay]>([])

    /// The overlay a new top-level resolve runs under: the task's, else the innermost pushed one.
    @inline(__always)
    static func active() -> Overlay? {
        guard activeCount.value > 0 else { return nil }
        return activeSlowly()
    }

    private static func activeSlowly() -> Overlay? {
        // The task's overlay, unless it has ended: then the innermost one around it that has not.
        var overlay = current
        while let candidate = overlay, !candidate.isActive {
            overlay = candidate.outer
        }
        if let overlay {
            return overlay
        }
        return pushed.withLock { $0.last }
    }

    /// Whether it is active in some scope now (see ``activations``).
    fileprivate var isActive: Bool {
        activations.withLock { $0 > 0 }
    }

    /// Whether the current task runs under a test override of its own (`withOverrides`, the `.overrides` trait),
    /// as opposed to a pushed one or none.
    static var isTaskLocalOverrideActive: Bool {
        guard activeCount.value > 0 else { return false }
        var overlay = current
        while let candidate = overlay {
            if candidate.isActive, candidate.registry != nil, candidate.recorder == nil {
                return !pushed.withLock { $0.contains { $0 === candidate } }
            }
            overlay = candidate.outer
        }
        return false
    }

    /// Runs `body` with this overlay active for the current task.
    func activated<Result>(_ body: () throws -> Result) rethrows -> Result {
        begin()
        defer { end() }
        return try Self.$current.withValue(self, operation: body)
    }

    /// Runs `body` with this overlay active for the current task.
    func activated<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        begin()
        defer { end() }
        return try await Self.$current.withValue(self, operation: body, isolation: isolation)
    }

    private func begin() {
        Self.activeCount.add(1)
        activations.withLock { $0 += 1 }
    }

    private func end() {
        activations.withLock { $0 -= 1 }
        Self.activeCount.add(-1)
    }

    /// Makes this overlay active for the whole process until ``popProcessWide()``.
    func pushProcessWide() {
        begin()
        Self.pushed.withLock { $0.append(self) }
    }

    /// Ends a ``pushProcessWide()``.
    func popProcessWide() {
        let removed: Bool = Self.pushed.withLock { pushed in
            guard let index = pushed.lastIndex(where: { $0 === self }) else { return false }
            pushed.remove(at: index)
            return true
        }
        if removed {
            end()
        }
    }
}

/// A weak reference to an overlay, for what must not outlive an override: a lazy wrapper's instance resolved under
/// it is found by it while the override lasts, and dropped after.
struct WeakOverlay {
    weak var object: Overlay?
}
