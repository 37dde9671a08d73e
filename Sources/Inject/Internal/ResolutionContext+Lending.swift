/// Builds that got an unfinished instance back, and what becomes of them when that instance's build fails.
///
/// A `resolveProperties` cycle is closed by handing back the instance of a build still in its `resolveProperties`:
/// the frame *lends* it. The builds on the stack above the lender asked for it and may hold it (the cycle's other
/// member does): they are *tainted*, and so is a build that reads an instance held back for a lender. If the lender's
/// `resolveProperties` then throws, its instance is not the service's and never will be: what a tainted build made
/// must not be kept either, or a singleton would hold an instance that no resolve hands out, for good. So a tainted
/// shared build is stored but not published for lock-free reads until its lender's build ends: kept when the lender
/// succeeds (or handed on to the next lender further down, which may still fail), dropped when it fails, once the
/// failing resolution has ended (for an async resolution, when it finishes), so that a resolve in an `onRelease`
/// starts afresh. A build beside the cycle (a logger the lender's closure asks for next) is not tainted, and stays.
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

    /// Whether the build that ended last was tainted: set as each build ends while a frame lends.
    var lastBuildTainted: Bool {
        unsafeAddress { UnsafePointer(lastTaintedStorage) }
        unsafeMutableAddress { lastTaintedStorage }
    }

    /// The frame at `index` hands its unfinished instance back: the builds above it, which asked for it, may hold it.
    @inline(never)
    func lend(at index: Int) {
        if markLent(at: index) {
            lentCount += 1
        }
        taint(above: index)
    }

    /// A shared build ended, storing its instance in `slot`, while a lender is on the stack. If the build was
    /// tainted (the instance was lent to its subtree), it is kept back from publication and settled with the
    /// innermost lender; a build beside the cycle (a logger the lender's closure asks for next) is not.
    @inline(never)
    func noteDependent<T>(_ slot: InstanceSlot<T>) {
        guard lastBuildTainted else { return }
        lastBuildTainted = false
        guard let lender = innermostLender(below: frames.count) else { return }
        slot.holdPublication()
        dependents.append((lender, slot))
    }

    /// A read, while a frame lends, found `slot` holding an instance kept back for a lender: the builds on the
    /// stack above the innermost lender now hold it too.
    @inline(never)
    func noteRead<T>(of slot: InstanceSlot<T>) {
        guard slot.isPublicationHeld, let lender = innermostLender(below: frames.count) else { return }
        taint(above: lender)
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

    /// Hands what failed lenders left to `resolution`, which drops it when it ends: the slots of this segment's
    /// builds are not finished yet, and a resolve in an `onRelease` must find them finished.
    @inline(never)
    func handOverDrops(to resolution: AsyncResolution) {
        guard !droppedStorage.pointee.isEmpty else { return }
        resolution.addDropped(droppedStorage.pointee)
        droppedStorage.pointee.removeAll()
    }

    /// Ends a seeded segment of an async resolution whose frames (`chain`, at the bottom of the stack) lent their
    /// instances: each async frame that lent is marked, and settles what was built on it when its build ends.
    @inline(never)
    func handOverLending(to chain: [AsyncFrame]) {
        let settled = dependents
        dependents.removeAll()
        lentCount = 0
        for index in chain.indices {
            if frames[index].lent {
                chain[index].markLent()
            }
            if frames[index].tainted {
                chain[index].markTainted()
            }
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
