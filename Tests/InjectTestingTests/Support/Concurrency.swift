import Dispatch
import Foundation
import Testing

// Copied from Tests/InjectTests/Support/Concurrency.swift (targets do not share files), with async helpers added.

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

/// Runs `body` on a global `DispatchQueue` and waits for its result at most `seconds`.
///
/// - Returns: What `body` returned, or `nil` when the time ran out.
func onDispatchQueue<Value: Sendable>(
    within seconds: Double = 10,
    _ body: @escaping @Sendable () -> Value
) -> Value? {
    let result = Cell<Value>()
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        result.value = body()
        done.signal()
    }
    guard done.wait(timeout: .now() + seconds) == .success else { return nil }
    return result.value
}

/// Runs `body` on a `Thread` of its own and waits for its result at most `seconds`.
///
/// - Returns: What `body` returned, or `nil` when the time ran out.
func onThread<Value: Sendable>(
    within seconds: Double = 10,
    _ body: @escaping @Sendable () -> Value
) -> Value? {
    let result = Cell<Value>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        result.value = body()
        done.signal()
    }
    thread.start()
    guard done.wait(timeout: .now() + seconds) == .success else { return nil }
    return result.value
}

/// Polls `condition` every few milliseconds, suspending in between, until it holds or `seconds` have passed.
///
/// - Returns: Whether `condition` held in time.
func eventually(within seconds: Double = 20, _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1_000_000_000)
    while !condition() {
        if DispatchTime.now().uptimeNanoseconds > deadline {
            return false
        }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return true
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
