import CInjectShims
import Dispatch

/// Runs `mainActorFactory` registrations: on the main actor, from synchronous code, or not at all.
enum MainActorFactory {
    /// Whether the caller runs on the main actor: on the main thread, or on the main dispatch queue (on Linux the
    /// main actor's jobs run on the main queue, which need not be the main thread).
    static var isOnMainActor: Bool {
        c_inject_is_main_thread() || DispatchQueue.getSpecific(key: MainQueueMarker.shared.key) != nil
    }

    static func run<T>(
        _ make: @escaping @MainActor @Sendable (DIResolver) throws -> T,
        _ resolver: DIResolver
    ) throws -> T {
        guard isOnMainActor else { throw NotOnMainActor() }
        if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *) {
            return try MainActor.assumeIsolated { try UncheckedSendable(make(resolver)) }.value
        }
        // Older Apple systems have no assumeIsolated. The check above establishes that we are on the main actor,
        // and a synchronous function's calling convention does not depend on its isolation.
        let nonisolated = unsafeBitCast(make, to: (@Sendable (DIResolver) throws -> T).self)
        return try nonisolated(resolver)
    }
}

/// Carries a main-actor instance out of `assumeIsolated`, whose result must be `Sendable`.
private struct UncheckedSendable<Value>: @unchecked Sendable {
    // @unchecked: the value is built and returned on the same thread, inside one synchronous call.
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}

/// A key set on the main dispatch queue, so that code running on it can tell.
private final class MainQueueMarker: Sendable {
    static let shared = MainQueueMarker()

    let key = DispatchSpecificKey<UInt8>()

    private init() {
        DispatchQueue.main.setSpecific(key: key, value: 1)
    }
}
