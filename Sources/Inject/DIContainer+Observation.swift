import CInjectShims

extension DIContainer {
    /// Calls `observer` for every instance built through this container or its children: to log what gets built,
    /// or to profile start-up. Factory's `trace`, with times.
    ///
    /// ```swift
    /// container.onBuild { event in logger.debug("built \(event)") }
    /// ```
    ///
    /// An event is "built through" this container when the resolve that built it went through this container or
    /// one of its children, or when the instance lives here or in a child. Each event comes once the build is done,
    /// at the end of the resolve that made it, with no lock held: the observer may resolve services itself. What an
    /// observer builds that way is not an event (an observer that resolves a `.graph` service would otherwise be
    /// called for its own build, and so on forever), nor are the builds that `validate()` makes in its throwaway
    /// scope. An observer sees every build of every resolve that starts after it is set; whether it sees the builds
    /// of a resolve already under way when it is set (one still running its factories) is not promised.
    ///
    /// > Important: With no observer set anywhere, resolving pays nothing for this (one atomic load per build, none
    /// > per cached read). Observers live as long as the container; they cannot be removed.
    ///
    /// - Parameter observer: Receives each event. It runs on the thread that resolved.
    public func onBuild(_ observer: @escaping @Sendable (BuildEvent) -> Void) {
        state.withLock { $0.buildObservers.append(observer) }
        BuildObservation.observerCount.add(1)
    }

    /// Hands `events` to the observers that see them: those of the top-level resolve's container and its
    /// ancestors, and of each event's home and its ancestors, each observer once per event. No lock is held.
    static func deliver(_ events: [(event: BuildEvent, home: DIContainer)], resolvedThrough top: DIContainer?) {
        let context = ResolutionContext.current
        let wasDelivering = context.isDeliveringEvents
        context.isDeliveringEvents = true
        defer { context.isDeliveringEvents = wasDelivering }
        // Lineages are a few containers deep: linear searches beat hashing, and each container's observers are
        // read (under its lock) once for all the events.
        var observersOf: [(container: DIContainer, observers: [@Sendable (BuildEvent) -> Void])] = []
        func notify(_ container: DIContainer, _ event: BuildEvent) {
            let observers: [@Sendable (BuildEvent) -> Void]
            if let known = observersOf.first(where: { $0.container === container }) {
                observers = known.observers
            } else {
                observers = container.state.withLock { $0.buildObservers }
                observersOf.append((container, observers))
            }
            for observer in observers {
                observer(event)
            }
        }
        let topLineage = top.map { Array($0.lineage) } ?? []
        for (event, home) in events {
            for container in topLineage {
                notify(container, event)
            }
            for container in home.lineage where !topLineage.contains(where: { $0 === container }) {
                notify(container, event)
            }
        }
    }
}

/// Whether anyone observes builds, so that a build pays one atomic load when nobody does.
enum BuildObservation {
    /// How many observers are set on live containers, process-wide.
    @inline(__always)
    static var observerCount: ProcessCounter { ProcessCounter(C_INJECT_BUILD_OBSERVERS) }

    @inline(__always)
    static var isActive: Bool { observerCount.value > 0 }
}
