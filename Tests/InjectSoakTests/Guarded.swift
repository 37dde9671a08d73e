import Foundation

/// A value behind a lock, read and changed only inside ``withLock(_:)``.
///
/// The soak's own bookkeeping (the ledger, the tree, each node's reset counts) is shared by every worker; this keeps
/// it free of data races, so that the thread sanitizer only ever reports the library. Never call into Inject while
/// holding it: it is a leaf lock.
final class Guarded<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value.
    var snapshot: Value {
        withLock { $0 }
    }
}
