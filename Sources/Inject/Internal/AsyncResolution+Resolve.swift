/// The async edge of the resolution path: what `resolveAsync`, `warmUp()` and `validateAsync()` run.
///
/// The same steps as the synchronous path, in the same order, over the same entries, slots and caches: find the
/// registration (overrides first, then the container and its parents), read its scope once, check the chain of
/// builds for the same registration (an instance still in `resolveProperties` is handed back, anything else is a
/// cycle), then ask the scope for a cached instance or build one. What differs is waiting and building: a task that
/// finds a build under way suspends (``InstanceSlot/instanceAsync(builder:waiter:build:)``); an async factory is
/// awaited with its frame in the resolver and in a task-local; a synchronous factory runs inline on a thread context
/// seeded from the frames, so that everything it resolves joins this resolution. Errors are built by the
/// synchronous engine, on a seeded context, so they read the same.
extension AsyncResolution {
    /// Resolves the service under `key` through `container`, asked for by `parent` (or a top-level request).
    func resolve<T>(
        _ type: T.Type,
        key: Key,
        name: DIContainer.Name?,
        through container: DIContainer,
        argument: ArgumentBox?,
        parent: AsyncFrame?
    ) async throws -> T {
        guard let (entry, owner) = find(key, through: container) else {
            // Unregistered: the synchronous engine gives the same answer (the wrapped type of an optional, or the
            // error, recorded for validation), on a thread seeded with this resolution's path.
            return try ResolutionContext.seeded(from: parent, in: self) { context in
                try context.resolve(T.self, key: key, name: name, through: container, argument: argument, found: nil)
            }
        }
        return try await instance(
            of: unsafeDowncast(entry, to: Entry<T>.self),
            owner: owner,
            through: container,
            argument,
            parent: parent
        )
    }

    /// An `implements` forward, resolved asynchronously: its registration is resolved on this async path, with the
    /// forward's frame as its parent (as the synchronous path pushes it), rather than by the forward's synchronous
    /// factory, so that an async registration behind it is awaited and a `mainActorFactory` one hopped to, as when
    /// it is resolved by its own type.
    private func forwarded<P>(
        _ forward: Entry<P>,
        to target: Key,
        _ targetType: Any.Type,
        named targetName: DIContainer.Name?,
        home: DIContainer,
        through container: DIContainer,
        _ argument: ArgumentBox?,
        parent: AsyncFrame?
    ) async throws -> P {
        let frame = AsyncFrame(entry: forward, container: home, argument: argument, parent: parent, resolution: self)
        func resolveTarget<Target>(_: Target.Type) async throws -> P? {
            let instance = try await resolve(
                Target.self,
                key: target,
                name: targetName,
                through: container,
                argument: argument,
                parent: frame
            )
            return instance as? P
        }
        if let instance = try await resolveTarget(targetType) {
            return instance
        }
        // Not of the forwarded type: the forward's own factory says so, with the path.
        return try await build(forward, frame: frame, forward.scopeCode, argument)
    }

    /// The registration under `key` that a resolve through `container` sees, with the container that owns it.
    private func find(_ key: Key, through container: DIContainer) -> (EntryBase, DIContainer)? {
        if let overlay, let found = overlay.find(key, through: container, resolving: true) {
            return found
        }
        guard let found = container.lookupVisible(key, from: ResolutionContext.currentPointer) else { return nil }
        return (found.entry.takeUnretainedValue(), found.owner.takeUnretainedValue())
    }

    /// An instance of `entry`, found in `owner`'s table by a resolve through `container`. When builds are timed,
    /// the time it takes, whether this task builds it or waits for another to, counts as `parent`'s nested time,
    /// not as its own.
    func instance<T>(
        of entry: Entry<T>,
        owner: DIContainer,
        through container: DIContainer,
        _ argument: ArgumentBox?,
        parent: AsyncFrame?
    ) async throws -> T {
        let value: T
        do {
            if let parent, timesBuilds {
                let start = monotonicNanoseconds()
                defer { parent.addNested(from: start, to: monotonicNanoseconds()) }
                value = try await untimedInstance(of: entry, owner: owner, through: container, argument, parent: parent)
            } else {
                value = try await untimedInstance(of: entry, owner: owner, through: container, argument, parent: parent)
            }
        } catch InstanceSlot<T>.Failure.retired {
            // Found just before it was replaced: the replacement, resolved through the same container, as the
            // synchronous path does.
            let replacement = try ResolutionContext.current.replacement(of: entry)
            return try await instance(of: replacement, owner: owner, through: container, argument, parent: parent)
        }
        if entry.isAsync || entry.isMainActor, overlay?.recorder != nil {
            noteResolved(entry)
        }
        return value
    }

    private func untimedInstance<T>(
        of entry: Entry<T>,
        owner: DIContainer,
        through container: DIContainer,
        _ argument: ArgumentBox?,
        parent: AsyncFrame?
    ) async throws -> T {
        let code = entry.scopeCode
        let home = Scope.resolvesFromOwner(code) ? owner : container
        if let problem = argumentProblem(entry, argument) {
            throw ResolutionContext.seeded(from: parent, in: self) { problem($0) }
        }
        overlay?.recorder?.record(
            from: parent?.recordSource,
            to: entry,
            home: home,
            argument: argument,
            kind: parent?.recordKind ?? .factory,
            awaited: true
        )
        if let recorder = overlay?.recorder, let parent {
            // What this await builds, and what its build awaited (recorded when validation built it, perhaps before).
            let node = ResolutionContext.node(entry, in: home, argument)
            let readers = parent.chain.map { ResolutionContext.node($0.entry, in: $0.container, $0.argument) }
            if entry.isAsync {
                noteRead(entry, by: readers)
            }
            for awaited in recorder.awaitedThrough(node) {
                noteRead(awaited, by: readers)
            }
        }
        recordRequest(from: parent.map { ($0.entry, $0.container) }, to: entry, home: home)
        if let (frame, index) = parent?.find(entry, in: home, argument) {
            if let inProgress = frame.instanceInProgress {
                frame.markLent()
                parent?.taintUp(to: frame)
                return unsafeDowncast(inProgress, to: Box<T>.self).value
            }
            // A forward: its registration's frame, further up, decides (see the synchronous path).
            if !entry.isForward {
                throw ResolutionContext.seeded(from: parent, in: self) { $0.cycle(at: index, closedBy: entry) }
            }
        }
        if case .forward(let target, let targetType, let targetName) = entry.factoryKind {
            return try await forwarded(
                entry,
                to: target,
                targetType,
                named: targetName,
                home: home,
                through: container,
                argument,
                parent: parent
            )
        }
        let validating = overlay?.recorder != nil
        if let argument, code != Scope.Code.transient, let keying = entry.argumentKeying {
            guard let key = keying.key(of: argument) else {
                // A value that does not convert to the registration's argument type: the factory reports the wrong
                // type, with the path, as a synchronous resolve does.
                let frame = AsyncFrame(
                    entry: entry,
                    container: home,
                    argument: argument,
                    parent: parent,
                    resolution: self
                )
                return try await build(entry, frame: frame, code, argument)
            }
            let cache: ArgumentCache<T>
            switch Scope.storage(ofCode: code) {
            case .graph where !validating:
                cache = graphArgumentCache(for: entry, home: home, code)
            case .none, .graph, .registration:
                cache = overlay?.argumentCache(for: entry, home: home, code) ?? entry.argumentCache(code)
            case .resolvingContainer:
                cache = overlay?.argumentCache(for: entry, home: home, code) ?? home.scopedArgumentCache(for: entry)
            }
            let value = try await fill(cache.slot(for: key), entry, in: home, code, argument, parent: parent)
            if code == Scope.Code.singleton, overlay == nil {
                entry.publishArgumentInstance(value, for: argument)
            }
            return value
        }
        switch Scope.storage(ofCode: code) {
        case .none where validating && !entry.isForward, .graph where validating:
            // As the synchronous validation does: one build per registration and container for the whole run.
            let slot = overlay.unsafelyUnwrapped.slot(for: entry, home: home, code)
            return try await fill(slot, entry, in: home, code, argument, parent: parent)
        case .none:
            let frame = AsyncFrame(entry: entry, container: home, argument: argument, parent: parent, resolution: self)
            return try await build(entry, frame: frame, code, argument)
        case .graph:
            return try await fill(
                graphSlot(for: entry, home: home, code),
                entry,
                in: home,
                code,
                argument,
                parent: parent
            )
        case .registration:
            if let overlay {
                return try await fill(
                    overlay.slot(for: entry, home: home, code),
                    entry,
                    in: home,
                    code,
                    argument,
                    parent: parent
                )
            }
            if let storage = entry.publishedStorage {
                return storage.assumingMemoryBound(to: T.self).pointee
            }
            return try await fill(entry.slot(code), entry, in: home, code, argument, parent: parent)
        case .resolvingContainer:
            let slot = overlay?.slot(for: entry, home: home, code) ?? home.scopedSlot(for: entry)
            return try await fill(slot, entry, in: home, code, argument, parent: parent)
        }
    }

    /// The instance in `slot`, or the one a new build makes there; a task that finds a build under way suspends.
    private func fill<T>(
        _ slot: InstanceSlot<T>,
        _ entry: Entry<T>,
        in home: DIContainer,
        _ code: Int,
        _ argument: ArgumentBox?,
        parent: AsyncFrame?
    ) async throws -> T {
        let frame = AsyncFrame(entry: entry, container: home, argument: argument, parent: parent, resolution: self)
        // In warmUp(): how long this waited for a build that was not its own, which may be one made elsewhere.
        let waitStart = startup != nil ? monotonicNanoseconds() : 0
        var builtHere = false
        defer {
            if let startup, !builtHere {
                startup.recordWait(for: entry, home: home, from: waitStart, to: monotonicNanoseconds())
            }
        }
        while true {
            do {
                return try await slot.instanceAsync(builder: ObjectIdentifier(frame), waiter: parent?.waiter) {
                    builtHere = true
                    let value = try await build(entry, frame: frame, code, argument, gate: slot)
                    if frame.isTainted, let lender = parent?.innermostLender {
                        // Built while a build up the chain lends its unfinished instance: kept back until that one
                        // ends.
                        slot.holdPublication()
                        lender.addDependent(slot)
                    }
                    return value
                }
            } catch let deadlock as Parking.Deadlock {
                throw ResolutionContext.seeded(from: parent, in: self) {
                    $0.crossThreadCycle(deadlock.chain, waitingFor: entry, acrossTasks: true)
                }
            } catch InstanceSlot<T>.Failure.recursion {
                throw ResolutionContext.seeded(from: parent, in: self) {
                    $0.cycle(at: frame.depth - 1, closedBy: entry)
                }
            } catch InstanceSlot<T>.Failure.sharedBuildFailed(let error) {
                if ResolutionContext.isNoLongerTrue(error) {
                    continue  // see `ResolutionContext.isNoLongerTrue`
                }
                throw ResolutionContext.seeded(from: parent, in: self) { $0.sharedBuildFailed(error, building: entry) }
            }
            // `Failure.retired` goes up to `instance(of:owner:through:_:parent:)`, which resolves the replacement.
        }
    }

    /// Builds a new instance of `entry` as `frame`: an async factory awaited, with `frame` in its resolver and in
    /// the task-local; a synchronous one run inline on a thread seeded from the frames above (on the main actor for
    /// a `mainActorFactory` registration). Then `resolveProperties`.
    ///
    /// - Parameter gate: The slot this build fills, if any: it learns the instance once the factory has returned.
    private func build<T>(
        _ entry: Entry<T>,
        frame: AsyncFrame,
        _ code: Int,
        _ argument: ArgumentBox?,
        gate: InstanceSlot<T>? = nil
    ) async throws -> T {
        guard frame.depth <= ResolutionContext.maximumDepth else {
            throw ResolutionContext.seeded(from: frame.parent, in: self) { $0.tooDeep(entry) }
        }
        guard let makeAsync = entry.makeAsync else {
            return try await buildInline(entry, frame: frame, code, argument, gate: gate)
        }
        let timed = timesBuilds
        let start = timed ? monotonicNanoseconds() : 0
        let value: T
        // The build runs, for the task-local's readers, until its `resolveProperties` has run too: a wrapper made
        // there resolves through this build's container, and knows which build will keep the object it is made for.
        AsyncFrame.inFlight.add(1)
        defer {
            frame.factoryReturned()
            AsyncFrame.inFlight.add(-1)
        }
        do {
            let resolver = DIResolver(container: frame.container, overlay: overlay, frame: frame)
            value = try await AsyncFrame.$current.withValue(frame) { try await makeAsync(resolver) }
        } catch let cancellation as CancellationError where Task.isCancelled {
            // The caller's task was cancelled: it gets the cancellation as it is, to tell apart from a failure. A
            // factory that throws `CancellationError` of its own accord, its task not cancelled, failed like any
            // other: its error is kept for those who waited, with the registration and the fix.
            throw cancellation
        } catch {
            throw ResolutionContext.seeded(from: frame, in: self) { $0.wrap(error, from: entry, stage: .factory) }
        }
        if entry.hasProperties, let properties = entry.properties {
            frame.setInProgress(entry.box(value))
            do {
                try AsyncFrame.$current.withValue(frame) {
                    try properties(DIResolver(container: frame.container, overlay: overlay, frame: frame), value)
                }
            } catch {
                frame.settleLending(succeeded: false)
                throw ResolutionContext.seeded(from: frame, in: self) {
                    $0.wrap(error, from: entry, stage: .properties)
                }
            }
            frame.settleLending(succeeded: true)
        }
        if timed {
            recordAsyncBuild(entry, frame: frame, code, start: start)
        }
        return value
    }

    /// A synchronous factory, run inline as the synchronous engine runs it: the frames above `frame` on a seeded
    /// thread context, and `frame`'s own build pushed by the engine. A `mainActorFactory` registration hops to the
    /// main actor first.
    private func buildInline<T>(
        _ entry: Entry<T>,
        frame: AsyncFrame,
        _ code: Int,
        _ argument: ArgumentBox?,
        gate: InstanceSlot<T>?
    ) async throws -> T {
        let inline = InlineBuild(entry: entry, frame: frame, code: code, argument: argument, gate: gate)
        if entry.isMainActor, !MainActorFactory.isOnMainActor {
            return try await MainActor.run { try inline.run() }.value
        }
        return try inline.run().value
    }

    /// Records an async build's own time: its factory's, without the builds it asked for and its waits for them.
    private func recordAsyncBuild<T>(_ entry: Entry<T>, frame: AsyncFrame, _ code: Int, start: UInt64) {
        let end = monotonicNanoseconds()
        let elapsed = end &- start
        let nested = frame.nestedNanoseconds(from: start, to: end)
        let own = nested < elapsed ? elapsed - nested : 0
        if let recorder = overlay?.recorder {
            recorder.recordBuild(of: entry, home: frame.container, nanoseconds: own)
            return
        }
        let event = BuildEvent(
            service: entry.label,
            scope: Scope(code: code),
            seconds: Double(own) / 1_000_000_000,
            path: frame.chain.map(\.entry.label)
        )
        recordBuild(event, entry: entry, home: frame.container, start: start, end: end)
    }

    /// The error for an argument that does not fit `entry`, to build on a seeded context, or `nil`.
    private func argumentProblem(
        _ entry: EntryBase,
        _ argument: ArgumentBox?
    ) -> ((ResolutionContext) -> ResolutionError)? {
        switch entry.argumentRule {
        case .none:
            guard let argument else { return nil }
            return { $0.argumentUnexpected(entry, given: argument.type) }
        case .required:
            guard argument == nil, let expected = entry.expectedArgument else { return nil }
            return { $0.argumentMissing(entry, expected: expected) }
        case .passThrough:
            return nil
        }
    }
}

/// A synchronous factory to run inline in an async resolution, carried onto the main actor when it must run there.
private struct InlineBuild<T>: @unchecked Sendable {
    // @unchecked: built and run by one task, on one thread at a time; the instance it returns is handed to that task.
    let entry: Entry<T>
    let frame: AsyncFrame
    let code: Int
    let argument: ArgumentBox?
    let gate: InstanceSlot<T>?

    /// The instance, wrapped so that it can leave `MainActor.run`.
    struct Built: @unchecked Sendable {
        // @unchecked: handed from the build to the task that asked for it, nothing else.
        let value: T
    }

    /// Runs the build on this thread. While it runs, ``Parking`` knows this thread as the frame's builder, so
    /// that a thread waiting for the frame's slot follows the wait-for chain through it.
    func run() throws -> Built {
        try ResolutionContext.seeded(from: frame.parent, in: frame.resolution) { context in
            let builder = gate.map { _ in ObjectIdentifier(frame) }
            if let builder {
                Parking.shared.beginInlineBuild(builder, on: ObjectIdentifier(context))
            }
            defer {
                if let builder {
                    Parking.shared.endInlineBuild(builder)
                }
            }
            let value = try context.build(entry, in: frame.container, code, argument, gate: gate)
            if context.lentCount > 0, context.lastBuildTainted {
                frame.markTainted()  // the async fill that runs this build holds it back
            }
            return Built(value: value)
        }
    }
}
