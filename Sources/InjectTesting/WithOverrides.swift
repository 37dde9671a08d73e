import Inject

/// Runs `operation` with test overrides: registrations made in `overrides` win over `container`'s.
///
/// ```swift
/// let titles = try withOverrides { $0.register(APIClient.self) { MockAPI() } } operation: {
///     try NotesViewModel().loadTitles()
/// }
/// ```
///
/// The overrides apply to resolves through `container` and its child containers, including those of property
/// wrappers, for as long as `operation` runs. Caches are fresh inside: a singleton resolved before is not the one
/// seen inside, and everything built inside is dropped afterwards, so the container's instances are exactly as they
/// were. Calls nest: the inner overrides win, and the outer ones apply again after the inner call returns.
///
/// When it returns, an override that no resolve reached, while a resolve through a container outside `container`
/// asked for that service, is reported: a warning on the running Swift Testing test, or a line on standard error.
///
/// > Important: The overrides are bound to the current task (a task-local value) and reach the tasks it starts, so
/// > tests running in parallel never see each other's overrides. They do not reach work handed to a `DispatchQueue`
/// > or a `Thread` from inside `operation`: resolves there see the container as it is. A factory's `DIResolver`,
/// > though, keeps the overrides of the resolve that called the factory on whatever thread it is used.
///
/// - Parameters:
///   - container: The container to override; ``DIContainer/shared`` by default.
///   - overrides: Registers the overrides, on a container of their own that is passed in.
///   - operation: The code that sees the overrides.
/// - Returns: What `operation` returns.
public func withOverrides<R>(
    in container: DIContainer = .shared,
    _ overrides: (DIContainer) -> Void,
    operation: () throws -> R
) rethrows -> R {
    let layer = container.overrideLayer(overrides)
    defer { layer.reportMisses() }
    return try layer.run(operation)
}

/// Runs `operation` with test overrides: registrations made in `overrides` win over `container`'s.
///
/// The asynchronous form of ``withOverrides(in:_:operation:)-(_,_,()->R)``, with the same guarantees; the overrides
/// follow `operation` across suspension points and into the child tasks it starts.
///
/// - Parameters:
///   - container: The container to override; ``DIContainer/shared`` by default.
///   - overrides: Registers the overrides, on a container of their own that is passed in.
///   - isolation: The actor `operation` runs on; the caller's, by default.
///   - operation: The code that sees the overrides.
/// - Returns: What `operation` returns.
public func withOverrides<R>(
    in container: DIContainer = .shared,
    _ overrides: (DIContainer) -> Void,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> R
) async rethrows -> R {
    let layer = container.overrideLayer(overrides)
    defer { layer.reportMisses() }
    return try await layer.run(isolation: isolation, operation)
}
