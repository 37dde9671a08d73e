import Dispatch
import Foundation
import Testing

/// Runs `body` on a thread of its own and waits for it at most `seconds`.
///
/// Records a test failure when the time runs out, so a deadlock fails the test instead of hanging the run. A body
/// that never finishes stays blocked on its thread; the test goes on.
///
/// - Returns: Whether `body` finished in time.
@discardableResult
func finishes(
    within seconds: Double = 10,
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () -> Void
) -> Bool {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.start()
    let finished = done.wait(timeout: .now() + seconds) == .success
    #expect(
        finished,
        "\(what) did not finish within \(seconds) s: a deadlock or a hang",
        sourceLocation: sourceLocation
    )
    return finished
}

/// Waits for `semaphore` at most `seconds`, recording a test failure when the time runs out.
///
/// - Returns: Whether the semaphore was signalled in time.
@discardableResult
func waits(
    for semaphore: DispatchSemaphore,
    within seconds: Double = 10,
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    let signalled = semaphore.wait(timeout: .now() + seconds) == .success
    #expect(signalled, "\(what) did not happen within \(seconds) s", sourceLocation: sourceLocation)
    return signalled
}

/// A counter many threads can bump.
final class Counter: @unchecked Sendable {
    // @unchecked: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0

    var value: Int {
        lock.withLock { count }
    }

    @discardableResult
    func increment() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}

/// A value many threads can store into once and read.
final class Cell<Value>: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: Value?

    init(_ value: Value? = nil) {
        stored = value
    }

    var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Values many threads append to.
final class Collector<Element>: @unchecked Sendable {
    // @unchecked: `elements` is only touched under `lock`.
    private let lock = NSLock()
    private var elements: [Element] = []

    var values: [Element] {
        lock.withLock { elements }
    }

    func append(_ element: Element) {
        lock.withLock { elements.append(element) }
    }
}
