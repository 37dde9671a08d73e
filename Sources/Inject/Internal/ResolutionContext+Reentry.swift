// Calls that start resolutions of their own, and must not run inside one: `validate()`, `validateAsync()` and
// `warmUp()` made from a factory would build that factory's registration again inside itself, or wait for builds
// that wait for the very build that called them, where no wait-for check can see the link.

extension ResolutionContext {
    /// Whether a resolve is under way on the calling thread, or an async factory whose resolution goes through
    /// `container` (or a parent or a child of it) is running on the calling task (or on the task that started it).
    static func isInsideResolution(of container: DIContainer) -> Bool {
        if let frame = AsyncFrame.currentIfAny, frame.isFactoryRunning,
            frame.container.isOrDescends(from: container) || container.isOrDescends(from: frame.container)
        {
            return true
        }
        return current.isResolving
    }

    /// Traps, naming `call` and saying why and how to fix it, when called on `container` inside a resolution.
    ///
    /// - Parameters:
    ///   - call: What was called, as the user wrote it: `validate()`, `warmUp()`.
    ///   - container: The container it was called on.
    ///   - harm: What calling it there would do.
    ///   - fix: Where to call it instead.
    static func requireOutsideResolution(_ call: String, of container: DIContainer, harm: String, fix: String) {
        guard isInsideResolution(of: container) else { return }
        let build = buildUnderWay
        fatalError(
            """
            Inject: \(call) was called while a resolve is under way, inside \(build.entry.label)'s \(build.closure), \
            registered at \(build.entry.location) (directly, or in an @Injected initialiser or a function that it \
            calls): \(harm)
              fix: \(fix)
            """,
            file: build.entry.file,
            line: build.entry.line
        )
    }

    /// The innermost build under way on the calling thread, or else the one whose async factory runs on the calling
    /// task, and which of its closures runs: the user's code that made the call.
    private static var buildUnderWay: (entry: EntryBase, closure: String) {
        let context = current
        if context.isResolving, let frame = context.frames.last {
            return (frame.entry, frame.inProgress == nil ? "factory" : "resolveProperties closure")
        }
        let frame = AsyncFrame.currentIfAny.unsafelyUnwrapped
        return (frame.entry, frame.instanceInProgress == nil ? "factory" : "resolveProperties closure")
    }

    /// ``requireOutsideResolution(_:harm:fix:)`` for the forms of `validate()`.
    static func requireOutsideResolutionToValidate(_ call: String, of container: DIContainer) {
        requireOutsideResolution(
            call,
            of: container,
            harm: "it would build the registration that is being built inside its own build.",
            fix: "call \(call) at start-up or in a test, outside any factory."
        )
    }
}
