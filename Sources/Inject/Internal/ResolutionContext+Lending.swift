/// Builds that got an unfinished instance back, and what becomes of them when that instance's build fails.
///
/// A `resolveProperties` cycle is closed by handing back the instance of a build still in its `resolveProperties`:
/// the frame *lends* it. A shared instance built after that, while the lender is still on the stack, may hold it
/// (the cycle's other member does). If the lender's `resolveProperties` then throws, its instance is not the
/// service's and never will be: what was built on it must not be kept either, or a singleton would hold an instance
/// that no resolve hands out, for good. So such a build is stored but not published for lock-free reads until its
/// lender's build ends: kept when the lender succeeds (or handed on to the next lender further down, which may still
/// fail), dropped when it fails.
///
/// Only the frames of this thread's resolution lend and settle here; a build on another thread that took an instance
/// (a cycle across threads) waits for the lender instead (see ``ResolutionContext/borrowed``).
extension ResolutionContext {
    var lentCount: Int {
        unsafeAddress { UnsafePointer(lentStorage) }
        unsafeMutableAddress { lentStorage }
    }

    private var dependents: [(lender: Int, cache: any InstanceCache)] {
        unsafeAddress { UnsafePointer(dependentsStorage) }
        unsafeMutableAddress { dependentsStorage }
    }

    /// The frame at `index` hands its unfinished instance back.
    @inline(never)
    func lend(at index: Int) {
        if markLent(at: index) {
            lentCount += 1
        }
    }

    /// A shared build ended, storing its instance in `slot`, while a lender is on the stack: it is kept back from
    /// publication and settled with the innermost lender.
    @inline(never)
    func noteDependent<T>(_ slot: InstanceSlot<T>) {
        guard let lender = innermostLender(below: frames.count) else { return }
        slot.holdPublication()
        dependents.append((lender, slot))
    }

    /// The innermost frame below `depth` that lent its instance, if any.
    private func innermostLender(below depth: Int) -> Int? {
        var index = depth - 1
        while index >= 0 {
            if frames[index].lent {
                return index
            }
            index -= 1
        }
        return nil
    }

    /// The innermost frame, a lender, finished its build (`succeeded`, or threw): what was built on its instance
    /// goes to the next lender down, is published, or is dropped.
    @inline(never)
    func settleInnermostLender(succeeded: Bool) {
        guard takeInnermostLent() else { return }
        lentCount -= 1
        let depth = frames.count - 1
        let settled = dependents.filter { $0.lender >= depth }
        dependents.removeAll { $0.lender >= depth }
        if !succeeded {
            // Dropped once the resolution is at rest, so that a resolve in an `onRelease` starts afresh instead of
            // joining the failing build (and getting its instance back). Until then only the failing resolve, which
            // is unwinding, can reach them: they are not published.
            droppedStorage.pointee += settled.map(\.cache)
        } else if let next = innermostLender(below: depth) {
            dependents += settled.map { (next, $0.cache) }
        } else {
            for dependent in settled {
                dependent.cache.releasePublication()
            }
        }
    }

    /// Drops what the builds of failed lenders left: `onRelease` runs for each, with no lock held and no
    /// resolution under way on this thread.
    @inline(never)
    func dropWhatFailedLendersLeft() {
        guard !droppedStorage.pointee.isEmpty else { return }
        let dropped = droppedStorage.pointee
        droppedStorage.pointee.removeAll()
        for cache in dropped {
            cache.reset()
        }
    }

    /// Ends a seeded segment of an async resolution whose frames (`chain`, at the bottom of the stack) lent their
    /// instances: each async frame that lent is marked, and settles what was built on it when its build ends.
    @inline(never)
    func handOverLending(to chain: [AsyncFrame]) {
        let settled = dependents
        dependents.removeAll()
        lentCount = 0
        for index in chain.indices where frames[index].lent {
            chain[index].markLent()
        }
        for dependent in settled {
            if dependent.lender < chain.count {
                chain[dependent.lender].addDependent(dependent.cache)
            } else {
                dependent.cache.releasePublication()  // not expected: this segment's own frames settled already
            }
        }
    }
}
