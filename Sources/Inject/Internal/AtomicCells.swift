import CInjectShims

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A raw pointer-sized cell that holds one retained object reference, read without a lock.
///
/// Writers publish with release ordering and readers load with acquire ordering, so a reader that sees the
/// reference also sees everything written to the object before it was published. Inject only publishes objects
/// that stay alive until the cell's owner goes away (a built singleton, an entry table, an instance slot), which
/// is what makes an unretained load safe.
typealias ReferenceCell = UnsafeMutablePointer<UnsafeMutableRawPointer?>

enum ReferenceCells {
    /// Allocates `count` empty cells with `malloc`: `allocate(capacity:)` takes the slower aligned path.
    static func allocate(_ count: Int) -> ReferenceCell {
        guard let raw = malloc(count * MemoryLayout<UnsafeMutableRawPointer?>.stride) else {
            fatalError("Inject: out of memory")
        }
        let cells = raw.bindMemory(to: UnsafeMutableRawPointer?.self, capacity: count)
        cells.initialize(repeating: nil, count: count)
        return cells
    }

    /// Frees cells made by ``allocate(_:)``, without touching what they point to.
    static func free(_ cells: ReferenceCell, count: Int) {
        cells.deinitialize(count: count)
        Self.freeMemory(cells)
    }

    /// Releases every object the cells hold and frees them.
    static func deallocate(_ cells: ReferenceCell, count: Int) {
        for index in 0..<count {
            if let raw = cells[index] {
                Unmanaged<AnyObject>.fromOpaque(raw).release()
            }
        }
        free(cells, count: count)
    }

    private static func freeMemory(_ pointer: UnsafeMutableRawPointer) {
        #if canImport(Darwin)
        Darwin.free(pointer)
        #elseif canImport(Glibc)
        Glibc.free(pointer)
        #else
        Musl.free(pointer)
        #endif
    }
}

extension UnsafeMutablePointer where Pointee == UnsafeMutableRawPointer? {
    /// The object in the cell, without a lock; `nil` when nothing was published yet.
    @inline(__always)
    func loadObject<Object: AnyObject>(as type: Object.Type) -> Object? {
        guard let raw = c_inject_load_acquire(self) else { return nil }
        return Unmanaged<Object>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Publishes `object` if the cell is empty and returns the object the cell holds afterwards: `object`, or the
    /// one another thread published first.
    func publishOnce<Object: AnyObject>(_ object: Object) -> Object {
        let retained = Unmanaged.passRetained(object)
        if c_inject_compare_exchange(self, nil, retained.toOpaque()) {
            return object
        }
        retained.release()
        return loadObject(as: Object.self)!
    }

    /// Publishes a copy of `value`, in storage of its own, if the cell is empty. The cell's owner frees it.
    func publishValueOnce<T>(_ value: T) {
        let storage = UnsafeMutablePointer<T>.allocate(capacity: 1)
        storage.initialize(to: value)
        if !c_inject_compare_exchange(self, nil, UnsafeMutableRawPointer(storage)) {
            storage.deinitialize(count: 1)
            storage.deallocate()
        }
    }

    /// Releases the object the cell holds, if any. Only for the cell's owner, when no reader is left.
    func releaseObject() {
        if let raw = pointee {
            Unmanaged<AnyObject>.fromOpaque(raw).release()
        }
    }

    /// Replaces the object in the cell and returns the previous one, retained, so that the caller can keep it
    /// alive for readers that may still hold it. Callers serialise replacements under their own lock.
    func replaceObject<Object: AnyObject>(with object: Object, as type: Object.Type) -> Object? {
        let previous = c_inject_load_acquire(self).map { Unmanaged<Object>.fromOpaque($0).takeRetainedValue() }
        c_inject_store_release(self, Unmanaged.passRetained(object).toOpaque())
        return previous
    }
}

/// A process-wide counter read without a lock.
final class AtomicCounter: @unchecked Sendable {
    // @unchecked: the cell is only touched through the C11 atomic functions.
    private let cell: UnsafeMutablePointer<Int>

    init() {
        cell = .allocate(capacity: 1)
        cell.initialize(to: 0)
    }

    deinit {
        cell.deinitialize(count: 1)
        cell.deallocate()
    }

    @inline(__always)
    var value: Int { c_inject_int_load(cell) }

    @discardableResult
    func add(_ delta: Int) -> Int { c_inject_int_add(cell, delta) }
}

/// A process-wide counter kept in C (`c_inject_process_counters`): reading it costs one atomic load, with no
/// `swift_once` call, as an ``AtomicCounter`` in a `static let` would cost on every read.
struct ProcessCounter {
    private let which: Int32

    /// The counter `which`: one of the `C_INJECT_…` counter constants of `CInjectShims.h`.
    init(_ which: Int32) {
        self.which = which
    }

    @inline(__always)
    var value: Int { c_inject_process_counter(which) }

    @discardableResult
    func add(_ delta: Int) -> Int { c_inject_process_counter_add(which, delta) }
}
