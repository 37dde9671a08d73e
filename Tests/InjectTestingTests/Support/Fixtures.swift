import Foundation
import InjectTesting

// Shared fixtures: small services the test files resolve. Types only one file uses live next to its tests.

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

/// A service only the overrides register, never the container.
final class OnlyOverridden: Sendable {
    let tag: String

    init(tag: String) {
        self.tag = tag
    }
}

/// An instance the first test to see it claims, so that a second test seeing the same instance finds out.
final class Claimable: @unchecked Sendable {
    // @unchecked: `owner` is only touched under `lock`.
    private let lock = NSLock()
    private var owner: String?

    /// Claims the instance for `claimant`; returns who had claimed it before, or `nil` when nobody had.
    func claim(for claimant: String) -> String? {
        lock.withLock {
            let previous = owner
            if previous == nil {
                owner = claimant
            }
            return previous
        }
    }
}

/// An error a factory or a body throws, with a text of its own to find in messages.
struct FixtureError: Error, Equatable, CustomStringConvertible {
    let text: String

    var description: String { text }
}
