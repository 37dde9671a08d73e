import Dispatch

/// The slow path of a resolve: everything but the read of an already built singleton.
///
/// Steps: find the entry (overlays first, then the container and its parents); check the stack for the same
/// registration (an instance still in `resolveProperties` is handed back, anything else is a cycle); ask the
/// scope for a cached instance or build one. Building pushes a frame, runs the factory and `resolveProperties`
/// with no lock held, and pops the frame, also when they throw.
extension ResolutionContext {
    /// Resolves the service under `key` through `container` as part of this context's resolution.
    ///
    /// - Parameter found: What ``DIContainer/lookup(_:)`` found, when the caller looked and no overlay applies.
    @inline(__always)
    func resolve<T>(
        _ type: T.Type,
        key: Key,
        name: DIContainer.Name?,
        through container: DIContainer,
        argument: ArgumentBox?,
        found: DIContainer.Found?
    ) throws -> T {
        if let found, overlay == nil, found.entry._withUnsafeGuaranteedRef({ $0.isVisible(to: identity) }) {
            // Guaranteed references: the entry and its container outlive this call, so nothing is retained.
            return try found.entry._withUnsafeGuaranteedRef { entry in
                try found.owner._withUnsafeGuaranteedRef { owner in
                    try instance(
                        of: unsafeDowncast(entry, to: Entry<T>.self),
                        owner: owner,
                        through: container,
                        argument
                    )
                }
            }
        }
        guard let (entry, owner) = find(key, through: container) else {
            return try resolveUnregistered(T.self, name: name, through: container, argument: argument)
        }
        return try instance(of: unsafeDowncast(entry, to: Entry<T>.self), owner: owner, through: container, argument)
    }

    /// Nothing is registered under `T` and the name: the wrapped type's registration for an optional, else an error.
    @inline(never)
    private func resolveUnregistered<T>(
        _ type: T.Type,
        name: DIContainer.Name?,
        through container: DIContainer,
        argument: ArgumentBox?
    ) throws -> T {
        if let value = try resolveWrappedOptional(T.self, name: name, through: container, argument: argument) {
            return value
        }
        overlay?.recorder?.recordMissing(from: recordSource, service: Describe.service(type, name), kind: recordKind)
        throw notRegistered(type, name: name, through: container)
    }

    /// Resolves the service under `key`, or returns `nil` when nothing is registered for it.
    @inline(never)
    func resolveIfRegistered<T>(
        _ type: T.Type,
        key: Key,
        name: DIContainer.Name?,
        through container: DIContainer,
        argument: ArgumentBox?
    ) throws -> T? {
        guard let (entry, owner) = find(key, through: container) else {
            if let value = try resolveWrappedOptional(T.self, name: name, through: container, argument: argument) {
                return value
            }
            return try resolveOptionalRegistration(T.self, name: name, through: container, argument: argument)
        }
        return try instance(of: unsafeDowncast(entry, to: Entry<T>.self), owner: owner, through: container, argument)
    }

    /// Nothing is registered under `T`, but a factory that returns `T?` may be: `register { () -> T? in ... }`, the
    /// Resolver way of a service that may not exist. Then an optional request resolves it, and its `nil` is the
    /// answer.
    @inline(never)
    private func resolveOptionalRegistration<T>(
        _ type: T.Type,
        name: DIContainer.Name?,
        through container: DIContainer,
        argument: ArgumentBox?
    ) throws -> T? {
        guard let (entry, owner) = find(Key(T?.self, name), through: container) else { return nil }
        return try instance(of: unsafeDowncast(entry, to: Entry<T?>.self), owner: owner, through: container, argument)
    }

    /// Builds `entry` as a resolve through `container` would, for `validate()`.
    func validate<T>(_ entry: Entry<T>, owner: DIContainer, through container: DIContainer) throws {
        _ = try instance(
            of: entry,
            owner: owner,
            through: container,
            entry.validationSample(in: owner, through: container)
        )
    }

    /// A factory parameter of type `W?` infers `T == W?`: when `W?` itself is not registered, resolve `W`.
    ///
    /// Out of line: a `T?` local in unspecialised code costs a metadata lookup for `Optional<T>` on every call.
    @inline(never)
    private func resolveWrappedOptional<T>(
        _ type: T.Type,
        name: DIContainer.Name?,
        through container: DIContainer,
        argument: ArgumentBox?
    ) throws -> T? {
        guard let wrapped = T.self as? any OptionalService.Type else { return nil }
        guard let value = try wrapped.resolveWrapped(in: self, name: name, through: container, argument: argument)
        else { return nil }
        return (value as! T)
    }

    /// The entry under `key` for a resolve through `container`, with the container that owns it.
    func find(_ key: Key, through container: DIContainer) -> (EntryBase, DIContainer)? {
        if let overlay, let found = overlay.find(key, through: container, resolving: true) {
            return found
        }
        guard let found = container.lookupVisible(key, from: identity) else { return nil }
        return (found.entry.takeUnretainedValue(), found.owner.takeUnretainedValue())
    }

    /// An instance of `entry`, found in `owner`'s table by a resolve through `container`.
    ///
    /// The scope is read once, here, and that one value decides everything about the build: where its dependencies
    /// come from, where the instance is kept, and whether it is held weakly.
    @inline(__always)
    func instance<T>(
        of entry: Entry<T>,
        owner: DIContainer,
        through container: DIContainer,
        _ argument: ArgumentBox?
    ) throws -> T {
        try checkArgument(of: entry, argument)
        let code = entry.scopeCode
        // Shared instances take their dependencies from the container that owns the registration; the rest from
        // the container the resolve went through, so that a child's registrations win. Two calls rather than one
        // `let home = cond ? owner : container`, which would retain whichever it picks.
        // `Failure.retired`: the registration was replaced (its factory never runs again), or a reset dropped the
        // cache this resolve found before it could use it; either way, resolved again from the container's table.
        if Scope.resolvesFromOwner(code) {
            do {
                return try instance(of: entry, in: owner, code, argument)
            } catch InstanceSlot<T>.Failure.retired {
                return try instance(ofReplacementOf: entry, owner: owner, through: container, argument)
            }
        }
        // `.transient` and `.graph` builds keep nothing that a reset or a replacement could retire.
        guard Scope.storage(ofCode: code) == .resolvingContainer else {
            return try instance(of: entry, in: container, code, argument)
        }
        do {
            return try instance(of: entry, in: container, code, argument)
        } catch InstanceSlot<T>.Failure.retired {
            return try instance(ofReplacementOf: entry, owner: owner, through: container, argument)
        }
    }

    /// The instance of the registration that replaced `entry`, for a resolve that found `entry` just before its
    /// replacement and then its instance slot retired: resolved as a resolve through `container` finds it now, so
    /// that the replacement's own scope decides where its dependencies come from and where it is kept. When `entry`
    /// is still the registration, a reset dropped the cache the resolve had found: it resolves `entry` again.
    @inline(never)
    private func instance<T>(
        ofReplacementOf entry: Entry<T>,
        owner: DIContainer,
        through container: DIContainer,
        _ argument: ArgumentBox?
    ) throws -> T {
        try instance(of: replacement(of: entry), owner: owner, through: container, argument)
    }

    /// An instance of `entry` whose dependencies resolve through `home`, under the scope whose code is `code`.
    @inline(__always)
    private func instance<T>(
        of entry: Entry<T>,
        in home: DIContainer,
        _ code: Int,
        _ argument: ArgumentBox?
    ) throws -> T {
        if let recorder = overlay?.recorder {
            // A property wrapper's own request (or a lazy one's): a failure there does not throw into the build.
            let byWrapper = readBoundary > 0 && readBoundary == frames.count
            recorder.record(
                from: recordSource,
                to: entry,
                home: home,
                argument: argument,
                kind: recordKind,
                byWrapper: byWrapper
            )
            if let lazy = lazyRead, lazy.depth == frames.count, let frame = frames.last {
                // A lazy wrapper's first read inside this build: judged once everything is recorded, with the async
                // services this build's own code read or awaited before it.
                let reader = Self.node(frame.entry, in: frame.container, frame.argument)
                let readBefore = Set(asyncReads.lazy.filter { $0.reader == reader }.map(\.read))
                recorder.recordLazyRead(
                    ValidationRecorder.LazyReadInBuild(
                        reader: frame.entry,
                        closure: frame.inProgress == nil ? "factory" : "resolveProperties closure",
                        site: lazy.site,
                        read: Self.node(entry, in: home, argument),
                        readBefore: readBefore.union(asyncResolution?.reads(by: reader) ?? [])
                            .union(
                                recorder.readsThatThrow(
                                    inBuildsBefore: Self.node(entry, in: home, argument),
                                    by: reader
                                )
                            )
                    )
                )
            }
        }
        if let resolution = asyncResolution {
            resolution.recordRequest(from: frames.last.map { ($0.entry, $0.container) }, to: entry, home: home)
        }
        if let index = frameIndex(of: entry, in: home, argument) {
            if let inProgress = frames[index].inProgress {
                lend(at: index)
                if entry.isAsync, overlay?.recorder != nil, index != frames.count - 1 {
                    noteSynchronousReadOfAsyncBuildInProgress(entry, in: home, code: code)
                }
                return unsafeDowncast(inProgress.takeUnretainedValue(), to: Box<T>.self).value
            }
            // An `implements` forward is another name for its registration, which it resolves next: that one's
            // frame, further up, decides (its instance handed back, or the cycle).
            if !entry.isForward {
                throw cycle(at: index, closedBy: entry)
            }
        }
        if entry.isAsync {
            return try builtAsyncInstance(of: entry, in: home, code, argument)
        }
        if let argument, code != Scope.Code.transient, let keying = entry.argumentKeying {
            return try instance(of: entry, in: home, code, argument, keyedBy: keying)
        }
        switch Scope.storage(ofCode: code) {
        case .none where overlay?.recorder != nil && argument == nil && !entry.isForward,
            .graph where overlay?.recorder != nil:
            // Under validate(): one build per registration and container for the whole run, in the throwaway layer,
            // rather than a new subtree for every registration that needs it. Every factory still runs, and every
            // edge is recorded (above). Which entry points could close a cycle is judged afterwards, from the edges.
            // A transient argument registration is built for every argument it is asked with, as at run time: its
            // factory may ask for other services with each (a `.graph` one caches per argument value, above).
            if entry.isMainActor, !MainActorFactory.isOnMainActor, isReadForAnAsyncFactory,
                code != Scope.Code.graph || asyncResolution?.hasResolved(entry) != true
            {
                // Off the main actor, run time builds it here and fails: the instance validation built on the main
                // actor for another reader is not this reader's. (Unless it is a `.graph` one this resolution
                // resolved before, with resolveAsync: run time reads that one.)
                return try build(entry, in: home, code, argument)
            }
            return try fill(
                overlay.unsafelyUnwrapped.slot(for: entry, home: home, code),
                entry,
                in: home,
                code,
                argument
            )
        case .none:
            return try build(entry, in: home, code, argument)
        case .graph:
            if let resolution = asyncResolution {
                return try fill(resolution.graphSlot(for: entry, home: home, code), entry, in: home, code, argument)
            }
            let key = GraphKey(entry, in: home)
            if let box = graph[key] {
                return unsafeDowncast(box, to: Box<T>.self).value
            }
            let value = try build(entry, in: home, code, argument)
            graph[key] = entry.box(value)
            return value
        case .registration:
            if let cache = overlay {
                let slot = cache.slot(for: entry, home: home, code)
                if entry.isMainActor, cache.recorder != nil {
                    judgeCachedMainActorRead(of: entry, in: home, code, argument, slot)
                }
                return try fill(slot, entry, in: home, code, argument)
            }
            if let storage = entry.publishedStorage {
                return storage.assumingMemoryBound(to: T.self).pointee
            }
            return try fill(entry.slot(code), entry, in: home, code, argument)
        case .resolvingContainer:
            if let cache = overlay {
                let slot = cache.slot(for: entry, home: home, code)
                if entry.isMainActor, cache.recorder != nil {
                    judgeCachedMainActorRead(of: entry, in: home, code, argument, slot)
                }
                return try fill(slot, entry, in: home, code, argument)
            }
            return try fill(home.scopedSlot(for: entry), entry, in: home, code, argument)
        }
    }

    /// Under validation, a synchronous read of a caching `mainActorFactory` registration by an async factory (off
    /// the main actor, where an async factory always runs) finds the instance validation built on the main actor;
    /// run time finds one only if something built it before. Judged as run time judges a read that finds none,
    /// whatever validation built first: reported (a warning, as it works once the service is built), and the read
    /// goes on with that instance.
    @inline(never)
    private func judgeCachedMainActorRead<T>(
        of entry: Entry<T>,
        in home: DIContainer,
        _ code: Int,
        _ argument: ArgumentBox?,
        _ slot: InstanceSlot<T>
    ) {
        guard !MainActorFactory.isOnMainActor, isReadForAnAsyncFactory, slot.current != nil,
            let recorder = overlay?.recorder
        else { return }
        do {
            // Off the main actor, the build stops before the factory runs, with the error run time would give.
            _ = try build(entry, in: home, code, argument)
        } catch let error as ResolutionError {
            recorder.recordFailure(error)
        } catch {}
    }

    /// Whether a synchronous read is made for an async factory: by it, or by synchronous builds it asked for, through
    /// any `implements` forwards. Not for a synchronous factory's read that no async factory asked for, which
    /// validation may run off the main actor where the app would not (it is judged from the edges, see
    /// `addMainActorDependencies`), nor below a main-actor build.
    private var isReadForAnAsyncFactory: Bool {
        frames.reversed().lazy.filter { !$0.entry.isForward }
            .first { $0.entry.isAsync || $0.entry.isMainActor }?.entry.isAsync == true
    }

    /// The instance of an argument registration with a caching scope: one per argument value, kept where the scope
    /// keeps its instances.
    @inline(never)
    private func instance<T>(
        of entry: Entry<T>,
        in home: DIContainer,
        _ code: Int,
        _ argument: ArgumentBox,
        keyedBy keying: ArgumentKeying
    ) throws -> T {
        guard let key = keying.key(of: argument) else {
            // The factory reports the wrong argument type, with the path.
            return try build(entry, in: home, code, argument)
        }
        let cache: ArgumentCache<T>
        switch Scope.storage(ofCode: code) {
        case .graph where overlay?.recorder == nil && asyncResolution != nil:
            cache = asyncResolution.unsafelyUnwrapped.graphArgumentCache(for: entry, home: home, code)
        case .graph where overlay?.recorder == nil:
            let graphKey = GraphKey(entry, in: home, argumentType: entry.argumentKeying?.type)
            let values = graph[graphKey].map { unsafeDowncast($0, to: ArgumentGraph<T>.self) } ?? ArgumentGraph<T>()
            graph[graphKey] = values
            if let value = values.values[key] {
                return value
            }
            let value = try build(entry, in: home, code, argument)
            values.values[key] = value
            return value
        case .none, .graph, .registration:
            cache = overlay?.argumentCache(for: entry, home: home, code) ?? entry.argumentCache(code)
        case .resolvingContainer:
            cache = overlay?.argumentCache(for: entry, home: home, code) ?? home.scopedArgumentCache(for: entry)
        }
        let value = try fill(cache.slot(for: key), entry, in: home, code, argument)
        if code == Scope.Code.singleton, overlay == nil, lentCount == 0 {
            entry.publishArgumentInstance(value, for: argument)
        }
        return value
    }

    /// Under validation: a synchronous read of an async registration whose build is in `resolveProperties` further
    /// up this resolution gets its instance back, as at run time; but the reader can be resolved first too, and then
    /// nothing has built it. Unless `warmUp()` builds it at start-up (it is eager), that entry point fails.
    @inline(never)
    private func noteSynchronousReadOfAsyncBuildInProgress(_ entry: EntryBase, in home: DIContainer, code: Int) {
        guard let reason = whyWarmUpDoesNotBuild(entry, in: home, code: code), let recorder = overlay?.recorder
        else { return }
        recorder.recordFailure(
            notBuiltYet(entry, code: code, because: reason),
            unlessWarmUpBuilds: reason == .notEager ? Self.node(entry, in: home, nil) : nil
        )
    }

    /// `entry`'s instance in `home` for `argument`, as validation records it.
    static func node(_ entry: EntryBase, in home: DIContainer, _ argument: ArgumentBox?) -> ValidationRecorder.Node {
        ValidationRecorder.Node(
            entry: ObjectIdentifier(entry),
            home: ObjectIdentifier(home),
            argument: ValidationRecorder.argumentKey(argument)
        )
    }

    /// Whether `entry` is registered outside what this validation builds: in a container that is neither the
    /// validated one nor one of its parents (a test override's registration counts as its target's, and one that
    /// targets every container as the validated one's).
    private func isOutsideValidation(_ entry: EntryBase, _ recorder: ValidationRecorder) -> Bool {
        guard let validated = recorder.validated else { return false }
        if let override = overlay?.overriding(entry) {
            return override.target.map { !validated.isOrDescends(from: $0) } ?? false
        }
        return !validated.isOrDescends(from: entry.owner)
    }

    /// Why `warmUp()` does not build `entry`'s instance for `home` before a synchronous read: it is not eager, or it
    /// is a `.scoped` one read through a root container (whose `warmUp()` leaves them to its children); `nil` when
    /// it does.
    private func whyWarmUpDoesNotBuild(_ entry: EntryBase, in home: DIContainer, code: Int) -> NotBuiltReason? {
        guard entry.isEager else { return .notEager }
        return code == Scope.Code.scoped && home.parent == nil ? .scopedInRoot : nil
    }

    /// The instance of an async registration, for a synchronous resolve: the one an async resolution built, or a
    /// ``ResolutionError`` that names it and says how to build it. A synchronous resolve never waits for an async
    /// build, and never blocks a thread on one.
    @inline(never)
    private func builtAsyncInstance<T>(
        of entry: Entry<T>,
        in home: DIContainer,
        _ code: Int,
        _ argument: ArgumentBox?
    ) throws -> T {
        var reported: ResolutionError?
        var askerResolvedIt = false
        if let recorder = overlay?.recorder {
            // Under validation, judge what run time would give, for every entry point: a synchronous read of an
            // async registration works only if something builds it first: warmUp() (it is eager), or the async
            // factory that reads it, which resolved it with resolveAsync earlier in the same resolution. A
            // synchronous factory that reads it fails when it is resolved first, whoever else built it before.
            guard recorder.buildsAsync else { throw notBuiltYet(entry, code: code, because: .syncValidation) }
            askerResolvedIt = frames.last?.entry.isAsync == true && asyncResolution?.hasResolved(entry) == true
            if !askerResolvedIt, let reader = frames.last?.entry, recorder.build(of: entry, needs: reader) {
                // A cycle: no start-up builds it before this read, so .eager() is no fix.
                let error = notBuiltYet(entry, code: code, because: .cycle)
                recorder.recordFailure(error)
                reported = error
            } else if !askerResolvedIt,
                let reason = isOutsideValidation(entry, recorder)
                    ? .outsideValidation : whyWarmUpDoesNotBuild(entry, in: home, code: code)
            {
                let error = notBuiltYet(entry, code: code, because: reason)
                if frames.isEmpty {
                    // Asked outside any factory (a property wrapper of a screen given to `building:`, a lazy
                    // wrapper's check), after every async registration was built: thrown, so that the wrapper reports
                    // it at its declaration, unless warmUp() (or, for a lazy read, its holder's own build) builds it
                    // first after all.
                    let lazyHolder = topLevelOrigin.flatMap { $0.kind.isOnFirstRead ? $0.source : nil }
                    guard reason == .notEager,
                        recorder.isBuiltBeforeLaterReads(Self.node(entry, in: home, argument), lazyHolder: lazyHolder)
                    else {
                        throw error
                    }
                } else {
                    // Reported, and validation goes on with the instance this validation built, if there is one.
                    recorder.recordFailure(
                        error,
                        unlessWarmUpBuilds: reason == .notEager ? Self.node(entry, in: home, argument) : nil
                    )
                    reported = error
                }
            }
        }
        let slot: InstanceSlot<T>?
        switch Scope.storage(ofCode: code) {
        case .none:
            slot = nil
        case .graph:
            if let overlay, overlay.recorder != nil {
                // Validation builds a .graph registration once for the whole run, in its overlay: that instance is
                // what this resolution's own would be, when it resolved it before, as run time reads it then.
                slot = askerResolvedIt ? overlay.slot(for: entry, home: home, code) : nil
            } else {
                slot = asyncResolution?.graphSlot(for: entry, home: home, code)
            }
        case .registration:
            if let storage = entry.publishedStorage, overlay == nil {
                return storage.assumingMemoryBound(to: T.self).pointee
            }
            slot = overlay?.slot(for: entry, home: home, code) ?? entry.slot(code)
        case .resolvingContainer:
            slot = overlay?.slot(for: entry, home: home, code) ?? home.scopedSlot(for: entry)
        }
        if let value = slot?.current {
            if let recorder = overlay?.recorder {
                // A read that throws when it fails: each build whose subtree made it has the service from now on (a
                // wrapper's read below `readBoundary` does not throw, and protects only the builds inside it). An
                // async resolution keeps them across the parts it runs on threads.
                let readers = frames[readBoundary...].map { Self.node($0.entry, in: $0.container, $0.argument) }
                if let reader = readers.last {
                    // For a later build that reads this build again, cached: what it read, once per validation.
                    recorder.recordReadThatThrows(of: entry, by: reader)
                }
                if let asyncResolution {
                    asyncResolution.noteRead(entry, by: readers)
                } else {
                    asyncReads.formUnion(readers.map { AsyncRead(reader: $0, read: ObjectIdentifier(entry)) })
                }
            }
            return value
        }
        let failure = reported ?? notBuiltYet(entry, code: code, because: .notBuilt, lastFailure: slot?.lastFailure)
        if reported == nil, slot?.lastFailure == nil, let asyncResolution, asyncResolution.startup != nil {
            // In warmUp(): a factory that catches this goes on without the service, which warmUp() builds anyway.
            asyncResolution.noteReadBeforeBuilt(entry, by: frames.last?.entry ?? entry)
        }
        guard let slot else { throw failure }
        // Weakly: a failure is kept by the slots whose builds it failed, and must not keep this one alive.
        throw failure.checking { [weak slot] in slot?.current != nil }
    }

    /// Where `entry`, built in `home` with `argument`, is on the stack, innermost first.
    @inline(__always)
    private func frameIndex(of entry: EntryBase, in home: DIContainer, _ argument: ArgumentBox?) -> Int? {
        var index = frames.count - 1
        while index >= 0 {
            if frames[index].entry === entry && frames[index].container === home
                && Self.sameArgument(frames[index].argument, argument, of: entry)
            {
                return index
            }
            index -= 1
        }
        return nil
    }

    /// Whether two builds of `entry` were asked with the same argument: always, unless both have one, the
    /// registration keys its instances by argument value (`Hashable`), and the values differ. Recursion over other
    /// values (a tree node that resolves its children with their own ids) is then not a cycle, and ends by itself.
    @inline(__always)
    static func sameArgument(_ lhs: ArgumentBox?, _ rhs: ArgumentBox?, of entry: EntryBase) -> Bool {
        guard let lhs, let rhs, lhs !== rhs else { return true }
        return sameArgumentSlowly(lhs, rhs, of: entry)
    }

    @inline(never)
    private static func sameArgumentSlowly(_ lhs: ArgumentBox, _ rhs: ArgumentBox, of entry: EntryBase) -> Bool {
        if let keying = entry.argumentKeying, let left = keying.key(of: lhs), let right = keying.key(of: rhs) {
            return left == right
        }
        // An `implements` forward passes its argument on, and has no keying of its own: compare the values when
        // they are `Hashable`.
        if let left = lhs.value as? AnyHashable, let right = rhs.value as? AnyHashable {
            return left == right
        }
        return true
    }

    private func fill<T>(
        _ slot: InstanceSlot<T>,
        _ entry: Entry<T>,
        in home: DIContainer,
        _ code: Int,
        _ argument: ArgumentBox?
    ) throws -> T {
        // A loop, not a recursive call, so that this stays inlined into the resolve.
        while true {
            do {
                let value = try slot.instance(thread: ObjectIdentifier(self)) {
                    let value = try build(entry, in: home, code, argument, gate: slot)
                    if lentCount > 0 {
                        // Built while a build further down lends its unfinished instance: kept back until that one
                        // ends, if the lent instance reached it.
                        noteDependent(slot)
                    }
                    return value
                }
                if lentCount > 0 {
                    noteRead(of: slot)
                }
                return value
            } catch let deadlock as Parking.Deadlock {
                throw crossThreadCycle(deadlock.chain, waitingFor: entry)
            } catch InstanceSlot<T>.Failure.recursion {
                throw cycle(at: frames.count, closedBy: entry)
            } catch InstanceSlot<T>.Failure.sharedBuildFailed(let error) {
                if Self.isNoLongerTrue(error) {
                    continue  // see `isNoLongerTrue`
                }
                throw sharedBuildFailed(error, building: entry)
            }
            // `Failure.retired` goes up to `instance(of:owner:through:)`, which knows the container the resolve went
            // through, and resolves the replacement from there.
        }
    }

    /// The registration that replaced `entry` in its container, for a resolve that reached `entry` before the
    /// replacement and found its instance dropped.
    @inline(never)
    func replacement<T>(of entry: Entry<T>) throws -> Entry<T> {
        guard let current = entry.owner.table.find(entry.key)?.visible(to: identity),
            current !== entry || !entry.isReplaced
        else {
            throw ResolutionError(
                kind: .invalidRegistration,
                service: entry.label,
                path: frames.map(\.entry.label) + [entry.label],
                registration: entry.location,
                headline: "\(entry.label), registered at \(entry.location), was replaced while it was resolved.",
                fix: "resolve it again."
            )
        }
        return unsafeDowncast(current, to: Entry<T>.self)
    }

    /// Builds a new instance of `entry`: factory, then `resolveProperties`, with a frame on the stack throughout.
    ///
    /// - Parameter gate: The slot this build fills, if any: it learns the instance once the factory has returned.
    @inline(__always)
    func build<T>(
        _ entry: Entry<T>,
        in home: DIContainer,
        _ code: Int,
        _ argument: ArgumentBox?,
        gate: InstanceSlot<T>? = nil
    ) throws -> T {
        guard frames.count < Self.maximumDepth else {
            throw tooDeep(entry)
        }
        if overlay?.recorder != nil || BuildObservation.isActive || asyncResolution != nil {
            return try buildTimed(entry, in: home, code, argument, gate: gate)
        }
        push(entry, home, argument)
        defer { pop() }
        return try runFactory(entry, in: home, code, argument, gate: gate)
    }

    /// ``build(_:in:_:_:)`` when someone wants its time: under `validate()`, which records the factory's own time
    /// (without the registrations it asked for), with ``DIContainer/onBuild(_:)`` observers, which get an event, or
    /// in an async resolution, which records it (for `warmUp()`'s report and its observers).
    @inline(never)
    private func buildTimed<T>(
        _ entry: Entry<T>,
        in home: DIContainer,
        _ code: Int,
        _ argument: ArgumentBox?,
        gate: InstanceSlot<T>?
    ) throws -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        push(entry, home, argument)
        var built = false
        defer {
            let elapsed = DispatchTime.now().uptimeNanoseconds &- start
            let own = elapsed &- frames[frames.count - 1].nestedNanoseconds
            let path = built && overlay?.recorder == nil ? frames.map(\.entry.label) : []
            pop()
            if isResolving {
                addNestedTime(elapsed)
            }
            if let recorder = overlay?.recorder {
                // A build that failed (its error is reported) has no time to rank among the slowest.
                recorder.recordBuild(of: entry, home: home, nanoseconds: built ? own : nil)
            } else if built, !entry.isForward, !isDeliveringEvents {
                // A forward of `implements` builds nothing of its own: the registration it forwards to is the event.
                let event = BuildEvent(
                    service: entry.label,
                    scope: Scope(code: code),
                    seconds: Double(own) / 1_000_000_000,
                    path: path
                )
                if let resolution = asyncResolution {
                    resolution.recordBuild(event, entry: entry, home: home, start: start, end: start &+ elapsed)
                } else {
                    pendingEvents.append((event, home))
                }
            }
        }
        let value: T
        do {
            value = try runFactory(entry, in: home, code, argument, gate: gate)
        } catch {
            // The factory's own error wins; a wrapper failure it left must not fail the next build on this thread.
            if asyncResolution != nil {
                _ = takeDeferredWrapperFailure()
            }
            if overlay?.recorder != nil, case .autowired = entry.factoryKind {
                reportEveryAutowiredParameter(of: entry, in: home, after: error)
            }
            throw error
        }
        if asyncResolution != nil, let failure = takeDeferredWrapperFailure() {
            // A property wrapper of the object the factory made could not resolve: the build fails, as if the
            // factory had thrown, and nothing is kept.
            throw failure
        }
        built = true
        return value
    }

    /// Under `validate()`, after an autowired factory failed: each of its parameters resolved again, one by one, with
    /// its frame still on top, so that the report lists every parameter that cannot be resolved, not only the first
    /// (whose error is `error`; a factory written by hand stops there). The autowired factory itself is not
    /// touched: this costs its hot path nothing.
    @inline(never)
    private func reportEveryAutowiredParameter(of entry: EntryBase, in home: DIContainer, after error: any Error) {
        guard let recorder = overlay?.recorder, case .autowired(let parameters, let count) = entry.factoryKind,
            let thrown = error as? ResolutionError
        else { return }
        let types = Describe.elements(of: parameters, count: count)
        // A closure `{ (r: DIResolver, id: Int, title: String) in ... }` taken as autowiring: its DIResolver error says
        // so, and the other parameters are runtime arguments, not services that are missing.
        guard !types.contains(where: { $0 == DIResolver.self }) else { return }
        let resolver = DIResolver(container: home, overlay: overlay)
        func attempt<Parameter>(_: Parameter.Type) {
            do {
                _ = try resolver.resolve(Parameter.self)
            } catch let failure as ResolutionError {
                if failure.kind != thrown.kind || failure.service != thrown.service {
                    recorder.recordFailure(failure)
                }
            } catch {
                // Not a resolution's error: nothing to add.
            }
        }
        for parameter in types {
            _openExistential(parameter, do: attempt)
        }
    }

    /// Runs the factory and `resolveProperties` of `entry`, whose frame is on top of the stack.
    @inline(__always)
    private func runFactory<T>(
        _ entry: Entry<T>,
        in home: DIContainer,
        _ code: Int,
        _ argument: ArgumentBox?,
        gate: InstanceSlot<T>?
    ) throws -> T {
        let value: T
        do {
            if entry.argumentRule != .none {
                pendingArgument = argument
            }
            if let overlay {
                value = try entry.make(DIResolver(container: home, overlay: overlay))
            } else {
                // Built from borrowed parts only, so the optimizer can pass it without retaining `home`.
                value = try entry.make(DIResolver(container: home, overlay: nil))
            }
        } catch {
            throw wrap(error, from: entry, stage: .factory)
        }
        if code == Scope.Code.weak, let recorder = overlay?.recorder, !(Swift.type(of: value as Any) is AnyObject.Type)
        {
            // A value type cannot be held weakly, so it is built anew on every resolve, as `.transient`; the slot
            // does not keep it. Only validation says so.
            recorder.recordWeakValueType(entry, Swift.type(of: value as Any))
        }
        if entry.hasProperties, let properties = entry.properties {
            let box = entry.box(value)
            setInProgress(box)
            // A thread whose wait for this build closes a cycle across threads takes the instance from the slot.
            gate?.setInProgress(box)
            do {
                try properties(DIResolver(container: home, overlay: overlay), value)
            } catch {
                if lentCount > 0 {
                    settleInnermostLender(succeeded: false)
                }
                throw wrap(error, from: entry, stage: .properties)
            }
            if lentCount > 0 {
                settleInnermostLender(succeeded: true)
            }
        }
        if lentCount > 0 {
            lastBuildTainted = isInnermostTainted
        }
        return value
    }

    @inline(__always)
    private func checkArgument(of entry: EntryBase, _ argument: ArgumentBox?) throws {
        switch entry.argumentRule {
        case .none:
            if let argument {
                throw argumentUnexpected(entry, given: argument.type)
            }
        case .required:
            if argument == nil {
                throw argumentMissing(entry, expected: entry.expectedArgument.unsafelyUnwrapped)
            }
        case .passThrough:
            break
        }
    }
}

/// Lets a request for `W?` that has no registration of its own resolve `W`.
protocol OptionalService {
    /// The type the optional wraps.
    static var wrappedType: Any.Type { get }

    /// The wrapped type's instance as `Self`, or `nil` when the wrapped type is not registered either.
    static func resolveWrapped(
        in context: ResolutionContext,
        name: DIContainer.Name?,
        through container: DIContainer,
        argument: ArgumentBox?
    ) throws -> Any?
}

extension Optional: OptionalService {
    static var wrappedType: Any.Type { Wrapped.self }

    static func resolveWrapped(
        in context: ResolutionContext,
        name: DIContainer.Name?,
        through container: DIContainer,
        argument: ArgumentBox?
    ) throws -> Any? {
        let key = Key(Wrapped.self, name)
        guard context.find(key, through: container) != nil else { return nil }
        let wrapped = try context.resolve(
            Wrapped.self,
            key: key,
            name: name,
            through: container,
            argument: argument,
            found: nil
        )
        return wrapped as Wrapped?
    }
}
