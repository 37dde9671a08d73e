/// A lazy property wrapper's instance slots: the app's, and one for each test override still alive, so that what the
/// property resolved under an override is never read outside it (a mock kept by a global object after its test), as
/// for every other instance built under one, and what it resolved outside is not what a test's override reads.
final class OverrideSlots<Value>: @unchecked Sendable {
    // @unchecked: the slots are thread-safe; the list of the overrides' slots is only touched under its lock.
    private let service: Any.Type
    private let name: DIContainer.Name?
    /// The slot of reads with no test override active: the app's.
    private let main: InstanceSlot<Value>
    private let overridden = Locked<[(overlay: WeakOverlay, slot: InstanceSlot<Value>)]>([])

    init(service: Any.Type, name: DIContainer.Name?) {
        self.service = service
        self.name = name
        self.main = InstanceSlot(service: service, name: name)
    }

    /// The slot of a read now: the app's, or the active override's, made on its first read (when the slots of
    /// overrides that ended are dropped). One atomic load when no override is active.
    var current: InstanceSlot<Value> {
        guard let overlay = Overlay.active() else { return main }
        return overridden.withLock { slots in
            if let found = slots.first(where: { $0.overlay.object === overlay }) {
                return found.slot
            }
            slots.removeAll { $0.overlay.object == nil }
            let made = InstanceSlot<Value>(service: service, name: name)
            slots.append((WeakOverlay(object: overlay), made))
            return made
        }
    }

    /// Forgets the instance a read now would get: the app's, or the active override's. What the property resolved
    /// outside that override, or under another test's, stays: a test that resets it leaves the others alone.
    func reset() {
        guard let overlay = Overlay.active() else {
            main.reset()
            return
        }
        overridden.withLock { slots in slots.first(where: { $0.overlay.object === overlay })?.slot }?.reset()
    }
}
