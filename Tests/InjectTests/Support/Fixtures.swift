import Dispatch
import Foundation
import Inject

// Shared fixtures: small services the test files resolve. Types only one file uses live next to its tests.

extension DIContainer.Name {
    static let live: Self = "live"
    static let mock: Self = "mock"
}

extension Scope {
    static let session = Scope.custom("session")
}

/// A service told apart by identity and by a serial number its factory gives it.
final class Widget: Sendable {
    let serial: Int

    init(serial: Int = 0) {
        self.serial = serial
    }
}

/// A service with one dependency, to see which instance of the dependency it got.
final class Gadget: Sendable {
    let widget: Widget

    init(widget: Widget) {
        self.widget = widget
    }
}

/// A protocol for `implements` and for the protocol-typed wrappers.
protocol Greeter: Sendable {
    var greeting: String { get }
}

final class EnglishGreeter: Greeter {
    let greeting: String

    init(greeting: String = "hello") {
        self.greeting = greeting
    }
}

/// A dependency that says which registration made it, for the child scope rules.
final class Logger: Sendable {
    let tag: String

    init(tag: String) {
        self.tag = tag
    }
}

/// A service that holds a ``Logger``.
final class Reporter: Sendable {
    let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }
}

/// A value type service.
struct Point: Hashable, Sendable {
    let x: Int
    let y: Int
}

/// An error a factory throws, with a text of its own to find in messages.
struct FixtureError: Error, Equatable, CustomStringConvertible {
    let text: String

    var description: String { text }
}

/// Runs `body` on `count` threads of their own, released together from a barrier, and returns when all are done.
///
/// Not `DispatchQueue.concurrentPerform`: its width is capped at the number of cores (two on CI), so a barrier of 64
/// iterations would never open and the iterations would never really overlap. Call it inside
/// `finishes(within:_:_:)` so that a hang fails the test.
func onThreadsAtOnce(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
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
final class Arrivals: Sendable {
    private let counter = Counter()
    private let everyone = DispatchSemaphore(value: 0)
    private let expected: Int

    init(expected: Int) {
        self.expected = expected
    }

    /// Marks one thread as arrived.
    func arrive() {
        if counter.increment() == expected {
            everyone.signal()
        }
    }

    /// Waits until every thread has arrived, at most `seconds`; returns whether they all did.
    func waitForEveryone(within seconds: Double = 20) -> Bool {
        let arrived = everyone.wait(timeout: .now() + seconds) == .success
        if arrived {
            everyone.signal()  // let a later waiter through too
        }
        return arrived
    }
}
