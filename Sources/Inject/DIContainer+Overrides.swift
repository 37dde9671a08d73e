/// A layer of test overrides over a container: what InjectTesting's `withOverrides`, `pushOverrides` and the
/// `.overrides` trait are built on. `package` access: a test hook for InjectTesting, not public API.
///
/// Registrations in the layer win over the container's for resolves through the container and its descendants, and
/// every instance built under the layer is cached in the layer, so nothing leaks into the container or out of it.
package final class OverrideLayer: Sendable {
    let overlay: Overlay

    init(overlay: Overlay) {
        self.overlay = overlay
    }

    /// Runs `operation` with the layer active for the current task (and the tasks it starts).
    package func run<Result>(_ operation: () throws -> Result) rethrows -> Result {
        try overlay.activated(operation)
    }

    /// Runs `operation` with the layer active for the current task (and the tasks it starts).
    package func run<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ operation: () async throws -> Result
    ) async rethrows -> Result {
        try await overlay.activated(isolation: isolation, operation)
    }

    /// Makes the layer active for the whole process, above any pushed before it, until ``pop()``.
    package func push() {
        overlay.pushProcessWide()
    }

    /// Ends a ``push()``. Popping a layer that is not pushed does nothing.
    package func pop() {
        overlay.popProcessWide()
    }
}

extension DIContainer {
    /// Makes a layer of overrides over this container.
    ///
    /// - Parameter overrides: Registers the overrides into a container of their own. Their singletons, and those
    ///   of the container, are cached in the layer while it is active.
    package func overrideLayer(_ overrides: (DIContainer) -> Void) -> OverrideLayer {
        let registry = DIContainer()
        overrides(registry)
        return OverrideLayer(overlay: Overlay(target: self, registry: registry, outer: Overlay.active()))
    }
}

/// The test overrides active on the current task (or pushed process-wide), captured so that work the test hands to
/// other threads can run under them: what InjectTesting's `stressTest` uses for its workers. `package` access: a
/// test hook for InjectTesting, not public API.
package struct ActiveOverrides: Sendable {
    private let overlay: Overlay?

    /// The overrides active here and now, if any.
    package static var current: ActiveOverrides {
        ActiveOverrides(overlay: Overlay.active())
    }

    /// Runs `body` under the captured overrides, on the calling thread.
    package func run<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard let overlay else { return try body() }
        return try overlay.activated(body)
    }
}
