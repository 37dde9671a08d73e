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
