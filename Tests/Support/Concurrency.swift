// Helpers the test targets share: time-outs that fail a test instead of hanging it, threads released at once,
// and small lock-protected cells. `package` access: visible to this package's targets only.

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
package func finishes(
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

/// Runs `body` on a thread of its own and suspends until it finishes, at most `seconds`: the asynchronous form of
/// ``finishes(within:_:sourceLocation:_:)`` for a long body, which would otherwise hold one of the concurrency
/// pool's threads (two on a 2-core machine) blocked for as long as it runs, starving the tests running beside it.
///
/// Records a test failure when the time runs out. A body that never finishes stays blocked on its thread.
///
/// - Returns: Whether `body` finished in time.
@discardableResult
package func finishesSuspending(
    within seconds: Double = 10,
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () -> Void
) async -> Bool {
    let done = Cell<Bool>(false)
    let thread = Thread {
        body()
        done.value = true
    }
    thread.start()
    let finished = await eventually(within: seconds) { done.value == true }
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
package func waits(
    for semaphore: DispatchSemaphore,
    within seconds: Double = 10,
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    let signalled = semaphore.wait(timeout: .now() + seconds) == .success
    #expect(signalled, "\(what) did not happen within \(seconds) s", sourceLocation: sourceLocation)
    return signalled
}

/// Runs `body` on a global `DispatchQueue` and waits for its result at most `seconds`.
///
/// - Returns: What `body` returned, or `nil` when the time ran out.
package func onDispatchQueue<Value: Sendable>(
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
package func onThread<Value: Sendable>(
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

/// How long an async test waits before it calls a wait a hang: long, because it must tell a hang from a test starved
/// of the two cores. The suite's soak keeps them busy for half a minute or more while other tests run beside it, and
/// the thread sanitizer makes everything several times slower. A hang still fails the test; it only takes longer.
package let hangLimit: Double = 120

/// Polls `condition` every few milliseconds, suspending in between, until it holds or `seconds` have passed.
///
/// - Returns: Whether `condition` held in time.
package func eventually(within seconds: Double = hangLimit, _ condition: @Sendable () -> Bool) async -> Bool {
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
package final class Counter: @unchecked Sendable {
    // @unchecked: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0

    package init() {}

    package var value: Int {
        lock.withLock { count }
    }

    @discardableResult
    package func increment() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}

/// A value many threads can store into once and read.
package final class Cell<Value>: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: Value?

    package init(_ value: Value? = nil) {
        stored = value
    }

    package var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Values many threads append to.
package final class Collector<Element>: @unchecked Sendable {
    // @unchecked: `elements` is only touched under `lock`.
    private let lock = NSLock()
    private var elements: [Element] = []

    package init() {}

    package var values: [Element] {
        lock.withLock { elements }
    }

    package func append(_ element: Element) {
        lock.withLock { elements.append(element) }
    }
}

/// Runs `body` on `count` threads of their own, released together from a barrier, and returns when all are done.
///
/// Not `DispatchQueue.concurrentPerform`: its width is capped at the number of cores (two on CI), so a barrier of 64
/// iterations would never open and the iterations would never really overlap. Call it inside
/// `finishes(within:_:_:)` so that a hang fails the test.
package func onThreadsAtOnce(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let ready = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for index in 0..<count {
        done.enter()
        let thread = Thread {
            ready.signal()
            go.wait()
            body(index)
            done.leave()
        }
        thread.start()
    }
    for _ in 0..<count {
        ready.wait()
    }
    for _ in 0..<count {
        go.signal()
    }
    done.wait()
}

/// Counts the threads that have arrived and opens when the last of `expected` does, so that a factory can hold
/// its build until every thread is asking for the same instance.
package final class Arrivals: Sendable {
    private let counter = Counter()
    private let everyone = DispatchSemaphore(value: 0)
    private let expected: Int

    package init(expected: Int) {
        self.expected = expected
    }

    /// Marks one thread as arrived.
    package func arrive() {
        if counter.increment() == expected {
            everyone.signal()
        }
    }

    /// Waits until every thread has arrived, at most `seconds`; returns whether they all did.
    package func waitForEveryone(within seconds: Double = 20) -> Bool {
        let arrived = everyone.wait(timeout: .now() + seconds) == .success
        if arrived {
            everyone.signal()  // let a later waiter through too
        }
        return arrived
    }
}

/// Runs `body` in a task of its own and waits for it at most `seconds`, suspending.
///
/// Records a test failure when the time runs out, so that an async deadlock fails the test instead of hanging the
/// run. A body that never finishes is left suspended; the test goes on.
///
/// - Returns: What `body` returned, or `nil` when it threw or the time ran out.
package func completes<Value: Sendable>(
    within seconds: Double = hangLimit,
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () async throws -> Value
) async -> Result<Value, any Error>? {
    let outcome = Cell<Result<Value, any Error>>()
    let finished = Cell<Bool>(false)
    let task = Task {
        let result: Result<Value, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        outcome.value = result
        finished.value = true
    }
    let done = await eventually(within: seconds) { finished.value == true }
    #expect(done, "\(what) did not finish within \(seconds) s: a deadlock or a hang", sourceLocation: sourceLocation)
    if !done {
        task.cancel()
    }
    return done ? outcome.value : nil
}

/// A gate that tasks wait at, suspending, until it is opened.
package final class AsyncGate: @unchecked Sendable {
    // @unchecked: `state` is only touched under `lock`.
    private let lock = NSLock()
    private var open = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    package init() {}

    /// Suspends until ``open()`` is called (or returns at once if it was).
    package func wait() async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock {
                if open { return true }
                waiting.append(continuation)
                return false
            }
            if now {
                continuation.resume()
            }
        }
    }

    /// Lets every waiting task, and every later one, through.
    package func openGate() {
        let released = lock.withLock {
            open = true
            defer { waiting.removeAll() }
            return waiting
        }
        for continuation in released {
            continuation.resume()
        }
    }
}
