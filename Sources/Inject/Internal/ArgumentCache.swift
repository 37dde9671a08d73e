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
    /// The key of an argument of that type, at a pointer: the resolve's fast path, without boxing.
    let keyAt: (UnsafeRawPointer) -> AnyHashable

    private init<H: Hashable>(_ hashable: H.Type) {
        self.type = ObjectIdentifier(H.self)
        self.key = { AnyHashable($0.value as! H) }
        self.keyAt = { AnyHashable($0.assumingMemoryBound(to: H.self).pointee) }
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

    /// The built instance for `key`, without building one.
    func built(for key: AnyHashable) -> T? {
        slots.withLock { $0[key] }?.current
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
