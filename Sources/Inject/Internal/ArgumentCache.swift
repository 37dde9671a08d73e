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
        self.hashAt = { $0.assumingMemoryBound(to: H.self).pointee.hashValue }
        self.equalAt = { $0.assumingMemoryBound(to: H.self).pointee == unsafeDowncast($1, to: Box<H>.self).value }
        self.box = { Box($0.value as! H) }
        self.hashOfBox = { ($0.value as! H).hashValue }
        self.equalToBox = { ($0.value as! H) == unsafeDowncast($1, to: Box<H>.self).value }
    }

    /// The keying of `Argument`, or `nil` when it is not `Hashable`.
    static func of<Argument>(_ argument: Argument.Type) -> ArgumentKeying? {
        guard let hashable = Argument.self as? any Hashable.Type else { return nil }
        return ArgumentKeying(hashable)
    }
}

/// The instances of one argument registration in one place (a registration, a resolving container, an overlay),
/// one slot per argument value: each value's instance is built exactly once, as any shared instance is.
final class ArgumentCache<T>: @unchecked Sendable {
    // @unchecked: `slots` is only touched under its lock; the slots lock themselves.
    private let slots = Locked<[AnyHashable: InstanceSlot<T>]>([:])
    private let makeSlot: () -> InstanceSlot<T>

    init(_ makeSlot: @escaping () -> InstanceSlot<T>) {
        self.makeSlot = makeSlot
    }

    /// The slot of the instance for `key`, made on first use.
    func slot(for key: AnyHashable) -> InstanceSlot<T> {
        slots.withLock { slots in
            if let slot = slots[key] {
                return slot
            }
            let slot = makeSlot()
            slots[key] = slot
            return slot
        }
    }

    /// Drops every instance; `onRelease` runs for each, with no lock held.
    func reset() {
        let dropped = slots.withLock { slots in
            defer { slots.removeAll() }
            return slots
        }
        _ = dropped  // released here, outside the lock: each slot's onRelease and deinit are user code
    }
}

/// The graph-scope instances of one argument registration in one top-level resolve, by argument value.
final class ArgumentGraph<T> {
    var values: [AnyHashable: T] = [:]
}

/// The built `.singleton` instances of an argument registration, by argument value, published for the fast path of
/// `resolve(argument:)`: a hash of the argument, the table's lock, and an equality check; no boxing, no
/// `AnyHashable`. An instance is published once its build is done and stays until the registration goes (a
/// singleton is never reset), so a reader may keep a pointer to its storage.
final class PublishedArguments: @unchecked Sendable {
    // @unchecked: `items` is only touched under its lock; the storages it points to are written once, before they
    // are published, and freed only in `deinit`.
    private struct Item {
        /// The argument, boxed by ``ArgumentKeying/box``.
        let key: AnyObject
        /// A copy of the instance, as raw storage of the registration's `T`.
        let storage: UnsafeMutableRawPointer
    }

    private let items = Locked<[Int: [Item]]>([:])
    /// Frees one storage: deinitializes and deallocates a `T`.
    private let free: (UnsafeMutableRawPointer) -> Void

    init<T>(of type: T.Type) {
        free = { storage in
            let value = storage.assumingMemoryBound(to: T.self)
            value.deinitialize(count: 1)
            value.deallocate()
        }
    }

    deinit {
        for bucket in items.withLock({ $0.values }) {
            for item in bucket {
                free(item.storage)
            }
        }
    }

    /// The storage of the instance built for the argument at `argument`, if it is published.
    @inline(__always)
    func storage(at argument: UnsafeRawPointer, _ keying: ArgumentKeying) -> UnsafeMutableRawPointer? {
        let hash = keying.hashAt(argument)
        return items.withLock { items in
            items[hash]?.first { keying.equalAt(argument, $0.key) }?.storage
        }
    }

    /// Publishes `value` as the instance for the boxed `argument`, unless one is published already.
    func publish<T>(_ value: T, for argument: ArgumentBox, _ keying: ArgumentKeying) {
        let key = keying.box(argument)
        let hash = keying.hashOfBox(argument)
        let storage = UnsafeMutablePointer<T>.allocate(capacity: 1)
        storage.initialize(to: value)
        let published: Bool = items.withLock { items in
            if items[hash]?.contains(where: { keying.equalToBox(argument, $0.key) }) == true {
                return false
            }
            items[hash, default: []].append(Item(key: key, storage: UnsafeMutableRawPointer(storage)))
            return true
        }
        if !published {
            storage.deinitialize(count: 1)
            storage.deallocate()
        }
    }
}
