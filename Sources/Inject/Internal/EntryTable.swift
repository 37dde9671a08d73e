import CInjectShims

/// A container's registrations by key: an open-addressed hash table read without a lock.
///
/// Readers load slots with acquire ordering and compare the entry's own key, so a lookup costs one mix of two
/// words and usually one probe. Writers (registration, under the container's lock) store with release ordering.
/// The table never removes a slot: a re-registration stores the new entry over the old one. When it fills past
/// half, the container builds a bigger table and publishes it; the old one stays allocated for readers that may
/// still be probing it (see ``DIContainer``'s retired tables), which costs at most the size of the current table.
///
/// Slots hold unretained entries: the container's `State.entries` owns them.
final class EntryTable {
    let capacity: Int
    private let shift: UInt64
    private let slots: ReferenceCell

    init(capacity: Int) {
        precondition(capacity >= 8 && capacity & (capacity - 1) == 0, "capacity must be a power of two")
        self.capacity = capacity
        self.shift = UInt64(64 - capacity.trailingZeroBitCount)
        self.slots = ReferenceCells.allocate(capacity)
    }

    deinit {
        // Unretained references: free the memory only.
        ReferenceCells.free(slots, count: capacity)
    }

    @inline(__always)
    private func home(of key: Key) -> Int {
        Int(truncatingIfNeeded: UInt64(truncatingIfNeeded: key.mixed) >> shift)
    }

    /// The entry registered under `key`, or `nil`. Lock-free, and without retaining anything: the hot path.
    @inline(__always)
    func findUnretained(_ key: Key) -> Unmanaged<EntryBase>? {
        var index = home(of: key)
        while let raw = c_inject_load_acquire(slots + index) {
            let entry = Unmanaged<EntryBase>.fromOpaque(raw)
            if entry._withUnsafeGuaranteedRef({ $0.key == key }) {
                return entry
            }
            index = (index + 1) & (capacity - 1)
        }
        return nil
    }

    /// The entry registered under `key`, or `nil`. Lock-free.
    func find(_ key: Key) -> EntryBase? {
        findUnretained(key)?.takeUnretainedValue()
    }

    /// Stores `entry` under its key, over any entry already there. Returns whether the key is new.
    ///
    /// Call only under the owning container's lock, and only while the table is at most half full.
    func store(_ entry: Unmanaged<EntryBase>) -> Bool {
        let key = entry._withUnsafeGuaranteedRef { $0.key }
        var index = home(of: key)
        while let raw = c_inject_load_acquire(slots + index) {
            if Unmanaged<EntryBase>.fromOpaque(raw)._withUnsafeGuaranteedRef({ $0.key == key }) {
                c_inject_store_release(slots + index, entry.toOpaque())
                return false
            }
            index = (index + 1) & (capacity - 1)
        }
        c_inject_store_release(slots + index, entry.toOpaque())
        return true
    }

    /// Stores every entry of this table into `bigger`, without retaining any. Under the owning container's lock.
    func copy(into bigger: EntryTable) {
        for index in 0..<capacity {
            if let raw = c_inject_load_acquire(slots + index) {
                _ = bigger.store(Unmanaged<EntryBase>.fromOpaque(raw))
            }
        }
    }

    /// Every entry in the table, in slot order.
    func entries() -> [EntryBase] {
        var result: [EntryBase] = []
        for index in 0..<capacity {
            if let raw = c_inject_load_acquire(slots + index) {
                result.append(Unmanaged<EntryBase>.fromOpaque(raw).takeUnretainedValue())
            }
        }
        return result
    }
}
