import CInjectShims

/// How an argument registration whose argument is `Hashable` keys its cached instances: one per argument value.
///
/// Made once, at registration, where the argument's type is known; it opens the `Hashable` conformance then, so
/// that a resolve needs no dynamic cast to make the key.
@usableFromInline
final class ArgumentKeying: @unchecked Sendable {
    // @unchecked: every property is a `let`; the closures capture nothing but the argument's metatype.
    /// The argument type the registration takes.
    let type: ObjectIdentifier
    /// The key of a boxed argument of that type.
    let key: (ArgumentBox) -> AnyHashable
    /// The key of a boxed argument of another type that converts to it (an `Int?` holding a value, a subclass of a
    /// class argument, a value for an `AnyHashable` parameter), as the factory converts it; `nil` when it does not.
    let convertedKey: (ArgumentBox) -> AnyHashable?
    /// The hash of an argument of that type, at a pointer: the resolve's fast path, without boxing.
    let hashAt: (UnsafeRawPointer) -> Int
    /// Whether the argument at a pointer equals the one ``box`` made.
    let equalAt: (UnsafeRawPointer, AnyObject) -> Bool
    /// A boxed copy of a boxed argument, for ``PublishedArguments``.
    let box: (ArgumentBox) -> AnyObject
    /// The hash of a boxed argument, as ``hashAt`` gives it.
    let hashOfBox: (ArgumentBox) -> Int
    /// Whether a boxed argument equals the one ``box`` made.
    let equalToBox: (ArgumentBox, AnyObject) -> Bool

    private init<H: Hashable>(_ hashable: H.Type) {
        self.type = ObjectIdentifier(H.self)
        self.key = { AnyHashable($0.value as! H) }
        self.convertedKey = { ($0.value as? H).map { AnyHashable($0) } }
        self.hashAt = { $0.assumingMemoryBound(to: H.self).pointee.hashValue }
        self.equalAt = { $0.assumingMemoryBound(to: H.self).pointee == unsafeDowncast($1, to: Box<H>.self).value }
        self.box = { Box($0.value as! H) }
        self.hashOfBox = { ($0.value as! H).hashValue }
        self.equalToBox = { ($0.value as! H) == unsafeDowncast($1, to: Box<H>.self).value }
    }

    /// The key of `argument`: its own when it is of the registration's type, or that of the value it converts to,
    /// which the factory gets; `nil` when it does not convert, which the factory reports as a wrong argument type.
    func key(of argument: ArgumentBox) -> AnyHashable? {
        ObjectIdentifier(argument.type) == type ? key(argument) : convertedKey(argument)
    }

    /// The keying of `Argument`, or `nil` when it is not `Hashable`.
    static func of<Argument>(_ argument: Argument.Type) -> ArgumentKeying? {
        guard let hashable = Argument.self as? any Hashable.Type else { return nil }
        return ArgumentKeying(hashable)
    }
}

/// The instances of one argument registration in one place (a registration, a resolving container, an overlay),
/// one slot per argument value: each value's instance is built exactly once, as any shared instance is.
final class ArgumentCache<T>: InstanceCache, @unchecked Sendable {
    // @unchecked: `state` is only touched under its lock; the slots lock themselves.
    private struct State {
        var slots: [AnyHashable: InstanceSlot<T>] = [:]
        /// The registration was replaced: every slot handed out from now on is retired.
        var retired = false
    }

    private let state = Locked(State())
    private let makeSlot: () -> InstanceSlot<T>

    init(_ makeSlot: @escaping () -> InstanceSlot<T>) {
        self.makeSlot = makeSlot
    }

    /// The slot of the instance for `key`, made on first use.
    func slot(for key: AnyHashable) -> InstanceSlot<T> {
        state.withLock { state in
            if let slot = state.slots[key] {
                return slot
            }
            let slot = makeSlot()
            if state.retired {
                slot.retire()
            }
            state.slots[key] = slot
            return slot
        }
    }

    /// Drops every instance, newest first; `onRelease` runs for each, with no lock held. A build under way for a
    /// value hands its instance to its own caller and those waiting for it, and is not kept (nor released: the cache
    /// never held it).
    ///
    /// The slots are retired, not only emptied: they have left the table, so a resolve that found one just before
    /// must not build into it; it gets ``InstanceSlot/Failure/retired`` and looks again.
    @discardableResult
    func reset() -> Bool {
        var batch = ReleaseBatch()
        addSlots(to: &batch, retiring: false)
        return batch.release()
    }

    /// Nothing to publish: per-value instances are published by the resolve that reads them.
    func releasePublication() {}

    /// Drops every instance for good: the registration was replaced. A build under way still ends for its caller
    /// and those waiting for it; a resolve that reaches this cache later, for any argument, gets
    /// ``InstanceSlot/Failure/retired`` and resolves the replacement.
    @discardableResult
    func retire() -> Bool {
        var batch = ReleaseBatch()
        addSlots(to: &batch, retiring: true)
        return batch.release()
    }

    func addSlots(to batch: inout ReleaseBatch, retiring: Bool) {
        let dropped = state.withLock { state in
            defer {
                state.retired = state.retired || retiring
                state.slots.removeAll()
            }
            return state.slots
        }
        for slot in dropped.values {
            batch.append(slot, retire: true)  // released by the batch, outside the lock: onRelease is user code
        }
    }
}

/// The graph-scope instances of one argument registration in one top-level resolve, by argument value.
final class ArgumentGraph<T> {
    var values: [AnyHashable: T] = [:]
}

/// The built `.singleton` instances of an argument registration, by argument value, published for the fast path of
/// `resolve(argument:)`: a hash of the argument, one or two atomic loads, and an equality check; no lock, no boxing,
/// no `AnyHashable`. An instance is published once its build is done and stays until the registration goes (a
/// singleton is never reset), so a reader may keep a pointer to its storage.
///
/// The table is open-addressed, indexed with the argument's own hash, and read without a lock, as ``EntryTable``
/// is: writers (one per argument value, under `state`'s lock) store items with release ordering, and publish a
/// bigger table when it fills past half, keeping the old one for readers that may still probe it.
final class PublishedArguments: @unchecked Sendable {
    // @unchecked: `state` is only touched under its lock; the table cell only atomically; the items and tables it
    // points to are immutable once published and freed only in `deinit`.

    /// One published instance: written once, before it is published.
    private final class Item {
        /// The argument's hash.
        let hash: Int
        /// The argument, boxed by ``ArgumentKeying/box``.
        let key: AnyObject
        /// A copy of the instance, as raw storage of the registration's `T`.
        let storage: UnsafeMutableRawPointer

        init(hash: Int, key: AnyObject, storage: UnsafeMutableRawPointer) {
            self.hash = hash
            self.key = key
            self.storage = storage
        }
    }

    /// Open-addressed slots of unretained items (``State/items`` owns them), linear probing.
    private final class Table {
        let capacity: Int
        let slots: ReferenceCell

        init(capacity: Int) {
            self.capacity = capacity
            slots = ReferenceCells.allocate(capacity)
        }

        deinit {
            ReferenceCells.free(slots, count: capacity)
        }

        @inline(__always)
        func home(of hash: Int) -> Int { hash & (capacity &- 1) }

        /// Stores `item` in the first empty slot of its probe sequence. Call only under the lock, below half full.
        func store(_ item: Item) {
            var index = home(of: item.hash)
            while c_inject_load_acquire(slots + index) != nil {
                index = (index &+ 1) & (capacity &- 1)
            }
            c_inject_store_release(slots + index, Unmanaged.passUnretained(item).toOpaque())
        }
    }

    private struct State {
        /// Every item published, in order: they own the storages.
        var items: [Item] = []
        /// The tables that were replaced by bigger ones: a reader may still be probing one.
        var retired: [Table] = []
    }

    private let state = Locked(State())
    /// The current ``Table``, retained.
    private let table: ReferenceCell = ReferenceCells.allocate(1)
    /// Frees one storage: deinitializes and deallocates a `T`.
    private let free: (UnsafeMutableRawPointer) -> Void

    init<T>(of type: T.Type) {
        free = { storage in
            let value = storage.assumingMemoryBound(to: T.self)
            value.deinitialize(count: 1)
            value.deallocate()
        }
        c_inject_store_release(table, Unmanaged.passRetained(Table(capacity: 16)).toOpaque())
    }

    deinit {
        for item in state.withLock({ $0.items }) {
            free(item.storage)
        }
        table.releaseObject()
        ReferenceCells.free(table, count: 1)
    }

    /// The storage of the instance built for the argument at `argument`, if it is published. Lock-free.
    @inline(__always)
    func storage(at argument: UnsafeRawPointer, _ keying: ArgumentKeying) -> UnsafeMutableRawPointer? {
        let hash = keying.hashAt(argument)
        let raw = c_inject_load_acquire(table).unsafelyUnwrapped
        return Unmanaged<Table>.fromOpaque(raw)._withUnsafeGuaranteedRef { table in
            var index = table.home(of: hash)
            while let slot = c_inject_load_acquire(table.slots + index) {
                let found: UnsafeMutableRawPointer? = Unmanaged<Item>.fromOpaque(slot)._withUnsafeGuaranteedRef {
                    $0.hash == hash && keying.equalAt(argument, $0.key) ? $0.storage : nil
                }
                if let found {
                    return found
                }
                index = (index &+ 1) & (table.capacity &- 1)
            }
            return nil
        }
    }

    /// Publishes `value` as the instance for the boxed `argument`, unless one is published already.
    func publish<T>(_ value: T, for argument: ArgumentBox, _ keying: ArgumentKeying) {
        let key = keying.box(argument)
        let hash = keying.hashOfBox(argument)
        let storage = UnsafeMutablePointer<T>.allocate(capacity: 1)
        storage.initialize(to: value)
        let published: Bool = state.withLock { state in
            if state.items.contains(where: { $0.hash == hash && keying.equalToBox(argument, $0.key) }) {
                return false
            }
            let item = Item(hash: hash, key: key, storage: UnsafeMutableRawPointer(storage))
            state.items.append(item)
            let current = Unmanaged<Table>.fromOpaque(c_inject_load_acquire(table).unsafelyUnwrapped)
            let capacity = current._withUnsafeGuaranteedRef { $0.capacity }
            if state.items.count * 2 <= capacity {
                current._withUnsafeGuaranteedRef { $0.store(item) }
            } else {
                let grown = Table(capacity: capacity * 2)
                for item in state.items {
                    grown.store(item)
                }
                state.retired.append(current.takeUnretainedValue())
                c_inject_store_release(table, Unmanaged.passRetained(grown).toOpaque())
                current.release()
            }
            return true
        }
        if !published {
            storage.deinitialize(count: 1)
            storage.deallocate()
        }
    }
}
