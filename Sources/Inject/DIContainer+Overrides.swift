import CInjectShims

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
    ///
    /// - Parameters:
    ///   - file: The `pushOverrides` call, for its trap.
    ///   - line: The `pushOverrides` call's line.
    package func push(file: StaticString, line: UInt) {
        if Overlay.isTaskLocalOverrideActive {
            fatalError(
                """
                Inject: pushOverrides was called inside withOverrides (or under the .overrides trait): that \
                override hides the push from the code inside it, and the push would keep the override's \
                registrations in force after it ends.
                  fix: call pushOverrides in setUp or at the start of the test, outside withOverrides; or register \
                these overrides in the withOverrides closure.
                """,
                file: file,
                line: line
            )
        }
        overlay.pushProcessWide()
    }

    /// The resolves this layer's registrations did not reach, so far: one message for each overridden service a
    /// resolve through a container outside the layer's target (and its children) asked for, with no override of it
    /// applying there. A test that overrides `DIContainer.shared` while its code resolves through its own
    /// container would otherwise get the real services without a word.
    package var missedOverrides: [MissedOverride] {
        overlay.missedOverrides
    }

    /// Ends a ``push()``. Popping a layer that is not pushed does nothing.
    package func pop() {
        overlay.popProcessWide()
    }
}

/// An override that a resolve did not reach: see ``OverrideLayer/missedOverrides``. `package` access, for
/// InjectTesting to report.
package struct MissedOverride: Sendable {
    /// What happened and the fix.
    package let message: String
    /// Where the override was registered.
    package let fileID: String
    package let line: Int
}

extension DIContainer {
    /// Makes a layer of overrides over this container.
    ///
    /// - Parameter overrides: Registers the overrides into a container of their own. Their singletons, and those
    ///   of the container, are cached in the layer while it is active.
    package func overrideLayer(_ overrides: (DIContainer) -> Void) -> OverrideLayer {
        let registry = DIContainer()
        let context = ResolutionContext.current
        if let building = context.frames.last?.entry
            ?? AsyncFrame.currentIfAny.flatMap({
                $0.isFactoryRunning ? $0.entry : nil
            })
        {
            trapOverridesInsideFactory(of: building)
        }
        let outer = context.overridesBeingMade
        context.overridesBeingMade = (registry, self)
        Self.overridesBeingMade.add(1)
        defer {
            Self.overridesBeingMade.add(-1)
            context.overridesBeingMade = outer
        }
        overrides(registry)
        return OverrideLayer(overlay: Overlay(target: self, registry: registry, outer: Overlay.active()))
    }
}

extension DIContainer {
    /// Traps: test overrides made while `building`'s factory (or `resolveProperties`) runs would be ignored, since
    /// a resolution keeps the overrides it started with.
    private func trapOverridesInsideFactory(of building: EntryBase) -> Never {
        fatalError(
            """
            Inject: withOverrides was called inside \(building.label)'s factory, registered at \(building.location) \
            (or its resolveProperties closure). A resolution keeps the overrides it started with, so these would \
            reach neither the factory's resolver nor the property wrappers of what it builds: they would be ignored.
              fix: wrap the resolve (or the whole test) in withOverrides, or use the .overrides trait or \
            pushOverrides, so that the resolution starts under the overrides.
            """,
            file: building.file,
            line: building.line
        )
    }
}

extension DIContainer {
    /// How many overrides closures are running, process-wide: a registration pays one atomic load for the check below.
    static var overridesBeingMade: ProcessCounter { ProcessCounter(C_INJECT_OVERRIDES_BEING_MADE) }

    /// Traps when an overrides closure registers into the container it overrides (or one of its parents or of its
    /// children it did not make itself) instead of into its parameter: `withOverrides { _ in app.register(...) }`
    /// would change the real container for good, for every test after this one.
    @inline(__always)
    func checkNotRegisteringAroundOverrides(_ action: @autoclosure () -> String, at entry: EntryBase) {
        if Self.overridesBeingMade.value > 0 {
            checkNotChangingAroundOverridesSlowly(
                "\(action()) at \(entry.location) registers into",
                lasting: "the registration stays",
                fix: """
                    register on the closure's parameter: withOverrides { $0.register(...) } operation: { ... } (the \
                    same in pushOverrides { $0.register(...) } and @Test(.overrides { $0.register(...) })); its \
                    registrations apply to resolves through the overridden container's children too.
                    """,
                file: entry.file,
                line: entry.line
            )
        }
    }

    /// Traps when an overrides closure calls `action` (`reset(.cached)`, `seal()`) on the container it overrides or
    /// one of its parents: it would change that container for good, where the closure is for registrations.
    ///
    /// - Parameters:
    ///   - lasting: What stays once the override ends: `the container stays sealed`.
    ///   - fix: Where the call belongs instead.
    @inline(__always)
    func checkNotChangingAroundOverrides(
        _ action: @autoclosure () -> String,
        lasting: @autoclosure () -> String,
        fix: String,
        file: StaticString,
        line: UInt
    ) {
        if Self.overridesBeingMade.value > 0 {
            checkNotChangingAroundOverridesSlowly(
                "\(action()) changes",
                lasting: lasting(),
                fix: fix,
                file: file,
                line: line
            )
        }
    }

    @inline(never)
    private func checkNotChangingAroundOverridesSlowly(
        _ what: String,
        lasting: String,
        fix: String,
        file: StaticString,
        line: UInt
    ) {
        // The overridden container, its ancestors (what it resolves through) and its descendants (what resolves
        // through it), for good; not a container this closure made for itself, a child of the target included.
        guard let made = ResolutionContext.current.overridesBeingMade, made.registry !== self,
            madeByOverridesClosure != ObjectIdentifier(made.registry),
            made.target.isOrDescends(from: self) || isOrDescends(from: made.target)
        else { return }
        let which =
            made.target.isOrDescends(from: self)
            ? "the real container"
            : "a child of the overridden container that was made before the closure (a session, say)"
        fatalError(
            """
            Inject: \(what) \(which) inside a test override's closure, which would change that container for good, \
            not only for this test: the override ends, and \(lasting).
              fix: \(fix)
            """,
            file: file,
            line: line
        )
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
