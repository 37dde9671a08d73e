import CInjectShims

/// Instances that leave their scope together, released newest first.
///
/// A reset of a scope, the release of a child container and the end of a test override let go of several
/// instances at once. They go in the reverse of the order their builds ended, as a stack unwinds: a service is
/// released before the services it was built from (its dependencies finished building first), so that its
/// `onRelease` can still use them (a socket pool says goodbye with the session's token before the session revokes it).
/// The order is only kept among instances whose registration has an `onRelease`; the others need none.
struct ReleaseBatch {
    private var slots: [(slot: any ReleasableSlot, retire: Bool)] = []

    /// Adds what `cache` (an ``InstanceSlot`` or an ``ArgumentCache``) holds.
    ///
    /// - Parameter retiring: Whether the cache is dropped for good (it left the table: no build starts in it any
    ///   more), or only emptied (a registration's own cache, which builds again).
    mutating func add(_ cache: AnyObject, retiring: Bool) {
        (cache as? any InstanceCache)?.addSlots(to: &self, retiring: retiring)
    }

    /// Adds one slot: retired (`retire`) or reset when released.
    mutating func append(_ slot: any ReleasableSlot, retire: Bool) {
        slots.append((slot, retire))
    }

    /// Releases every instance, newest first, each `onRelease` on this thread with no lock held.
    ///
    /// - Returns: Whether there was an instance to drop.
    @discardableResult
    consuming func release() -> Bool {
        guard !slots.isEmpty else { return false }
        let ordered = slots.map { (order: $0.slot.storedOrder, item: $0) }.sorted { $0.order > $1.order }
        var held = false
        for (_, item) in ordered {
            held = (item.retire ? item.slot.retire() : item.slot.reset()) || held
        }
        return held
    }

    /// The next number in the order instances with an `onRelease` were stored.
    static func nextStoredOrder() -> Int {
        ProcessCounter(C_INJECT_STORED_RELEASABLES).add(1)
    }
}

/// A slot of one instance, as a ``ReleaseBatch`` releases it (with the ``InstanceCache`` `reset` and `retire`).
protocol ReleasableSlot: InstanceCache {
    /// When the held instance was stored, among every instance with an `onRelease` (0 for none, or no instance).
    var storedOrder: Int { get }
}
