extension InstanceSlot {
    /// The instance for a lazy holder (``LazySingleton``, `@LazyInjected`, `@WeakInjected`), built on the calling
    /// thread if it is not built yet.
    ///
    /// A read that could never finish traps with a message that says so, instead of hanging: `build` asking, on its
    /// own thread, for the value it is making; or a wait for another thread that is itself waiting, through any
    /// number of builds, for this one.
    ///
    /// - Parameters:
    ///   - holder: The holder as a person reads it, such as `LazySingleton<Config>` or
    ///     `@LazyInjected Store at App/Screen.swift:12`.
    ///   - file: The holder's declaration (a wrapper's property, a `LazySingleton`'s creation): the trap's file.
    ///   - line: The holder's declaration line.
    ///   - build: Makes the instance, with no lock held.
    /// - Throws: What `build` throws.
    func lazyInstance(
        for holder: @autoclosure () -> String,
        file: StaticString,
        line: UInt,
        build: () throws -> T
    ) throws -> T {
        do {
            return try instance(thread: ObjectIdentifier(ResolutionContext.current), build: build)
        } catch Failure.sharedBuildFailed(let error) {
            throw error
        } catch Failure.recursion {
            fatalError(
                """
                Inject: \(holder()) was read while its own value was being made, on the same thread: a recursion \
                that could never finish, so it stops here instead of deadlocking.
                  fix: do not read \(holder()) from the code that makes its value (its factory or make, or anything \
                they call).
                """,
                file: file,
                line: line
            )
        } catch let deadlock as Parking.Deadlock {
            fatalError(
                """
                Inject: \(holder()) waits for \(deadlock.chain.joined(separator: ", which waits for ")), which \
                waits for \(holder()) on another thread: neither can finish.
                  fix: break the cycle, so that making one of these values does not need the other.
                """,
                file: file,
                line: line
            )
        }
    }
}
