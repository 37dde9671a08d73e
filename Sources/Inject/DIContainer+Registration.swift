import CInjectShims

extension DIContainer {
    /// Registers a factory that resolves its dependencies.
    ///
    /// A later registration of the same type and name in the same container replaces this one. The default scope
    /// is ``Scope/graph``; chain ``Registration/scope(_:file:line:)`` and the other options on the result.
    ///
    /// ```swift
    /// container.register { r in try Repository(api: r.resolve(), cache: r.resolve()) }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under; inferred from the factory when omitted.
    ///   - name: A name that tells this registration apart from others of the same type.
    ///   - file: Where the registration is made, for error messages and validation reports.
    ///   - line: Where the registration is made.
    ///   - factory: Makes an instance. Resolve dependencies through its ``DIResolver``. Runs with no lock held.
    /// - Returns: The registration, for chaining options.
    @inlinable
    @discardableResult
    public func register<T>(
        _ type: T.Type = T.self,
        name: Name? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        factory: @escaping @Sendable (DIResolver) throws -> T
    ) -> Registration<T> {
        add(name: name, scope: .graph, file: file, line: line, factoryKind: .plain, make: factory)
    }

    /// Registers a factory without dependencies.
    ///
    /// ```swift
    /// container.register(Clock.self) { SystemClock() }.scope(.singleton)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under; inferred from the factory when omitted.
    ///   - name: A name that tells this registration apart from others of the same type.
    ///   - file: Where the registration is made, for error messages and validation reports.
    ///   - line: Where the registration is made.
    ///   - factory: Makes an instance. Runs with no lock held.
    /// - Returns: The registration, for chaining options.
    @inlinable
    @discardableResult
    public func register<T>(
        _ type: T.Type = T.self,
        name: Name? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        factory: @escaping @Sendable () throws -> T
    ) -> Registration<T> {
        register(type, name: name, file: file, line: line) { _ in try factory() }
    }

    /// Registers a factory that takes one runtime argument; use a tuple for several.
    ///
    /// ```swift
    /// container.register { (r, noteID: Note.ID) in try NoteEditor(id: noteID, store: r.resolve()) }
    /// let editor = container.resolve(NoteEditor.self, argument: note.id)
    /// ```
    ///
    /// Argument registrations are ``Scope/transient`` by default: every resolve builds a new instance. When the
    /// argument is `Hashable`, any other scope caches **one instance per argument value** (Factory's
    /// `scopeOnParameters`): `.singleton` gives one `NoteEditor` per note for the container's life, `.cached` or a
    /// custom scope until `reset`, `.scoped` one per child container and value, `.graph` one per top-level resolve and
    /// value; each built exactly once even when many threads ask for the same value at once. A caching scope on an
    /// argument that is not `Hashable` (a tuple, say) traps at registration, saying to make it `Hashable`.
    /// Resolving with an argument of another type is a ``ResolutionError`` that names both types. Give
    /// ``DIContainer/validate()`` a sample with ``Registration/validationArgument(_:)``.
    ///
    /// - Parameters:
    ///   - type: The type to register under; inferred from the factory when omitted.
    ///   - name: A name that tells this registration apart from others of the same type.
    ///   - file: Where the registration is made, for error messages and validation reports.
    ///   - line: Where the registration is made.
    ///   - factory: Makes an instance from the argument. Runs with no lock held.
    /// - Returns: The registration, for chaining options.
    @discardableResult
    public func register<T, Argument>(
        _ type: T.Type = T.self,
        name: Name? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        factory: @escaping @Sendable (DIResolver, Argument) throws -> T
    ) -> Registration<T> {
        let make: Entry<T>.Make = { resolver in
            // The resolution has checked that an argument was passed (EntryBase.argumentRule).
            let argument = ResolutionContext.takeArgument().unsafelyUnwrapped
            guard let typed = argument.value as? Argument else {
                throw ArgumentTypeMismatch(expected: Argument.self, given: argument.type)
            }
            return try factory(resolver, typed)
        }
        let kind = EntryBase.FactoryKind.argument(expected: Argument.self, keying: ArgumentKeying.of(Argument.self))
        return add(name: name, scope: .transient, file: file, line: line, factoryKind: kind, make: make)
    }

    /// Registers a factory for a `@MainActor` type, such as a view model or a coordinator.
    ///
    /// The factory runs on the main actor. Resolving the service from main-actor code works from synchronous code,
    /// with no `await`; resolving it from another thread is a ``ResolutionError`` of kind
    /// ``ResolutionError/Kind/notOnMainActor`` that says so.
    ///
    /// ```swift
    /// container.register(mainActorFactory: { r in try ProfileViewModel(api: r.resolve()) })
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under; inferred from the factory when omitted.
    ///   - name: A name that tells this registration apart from others of the same type.
    ///   - file: Where the registration is made, for error messages and validation reports.
    ///   - line: Where the registration is made.
    ///   - mainActorFactory: Makes an instance on the main actor.
    /// - Returns: The registration, for chaining options.
    @discardableResult
    public func register<T>(
        _ type: T.Type = T.self,
        name: Name? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        mainActorFactory: @escaping @MainActor @Sendable (DIResolver) throws -> T
    ) -> Registration<T> {
        let make: Entry<T>.Make = { resolver in try MainActorFactory.run(mainActorFactory, resolver) }
        return add(name: name, scope: .graph, file: file, line: line, factoryKind: .mainActor, make: make)
    }

    /// Registers a factory for a `@MainActor` type that needs no other service: `register(mainActorFactory: {
    /// SettingsViewModel() })`, or `register(mainActorFactory: SettingsViewModel.init)`. The same as a
    /// `mainActorFactory` registration whose factory ignores its resolver.
    ///
    /// - Parameters:
    ///   - type: The type to register under; inferred from the factory when omitted.
    ///   - name: A name that tells this registration apart from others of the same type.
    ///   - file: Where the registration is made, for error messages and validation reports.
    ///   - line: Where the registration is made.
    ///   - mainActorFactory: Makes an instance on the main actor.
    /// - Returns: The registration, for chaining options.
    @discardableResult
    public func register<T>(
        _ type: T.Type = T.self,
        name: Name? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        mainActorFactory: @escaping @MainActor @Sendable () throws -> T
    ) -> Registration<T> {
        register(
            type,
            name: name,
            file: file,
            line: line,
            mainActorFactory: { (_: DIResolver) in
                try mainActorFactory()
            }
        )
    }

    /// Registers the initializer of a `@MainActor` type, its parameters all resolved by type: autowiring for view
    /// models and coordinators, built on the main actor as a `mainActorFactory` registration is.
    ///
    /// ```swift
    /// container.register(mainActorAutowired: ProfileViewModel.init)    // @MainActor init(api: APIClient)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under; the initializer's result type when omitted.
    ///   - name: A name that tells this registration apart from others of the same type.
    ///   - file: Where the registration is made, for error messages and validation reports.
    ///   - line: Where the registration is made.
    ///   - initializer: A main-actor initializer (or function) whose parameters are services.
    /// - Returns: The registration, for chaining options.
    @discardableResult
    public func register<T, each Dependency>(
        _ type: T.Type = T.self,
        name: Name? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        mainActorAutowired initializer: @escaping @MainActor @Sendable (repeat each Dependency) throws -> T
    ) -> Registration<T> {
        register(
            type,
            name: name,
            file: file,
            line: line,
            mainActorFactory: { (resolver: DIResolver) in
                try initializer(repeat try resolver.resolve((each Dependency).self))
            }
        )
    }

    /// Registers an initializer whose parameters are all resolved by type: autowiring, with nothing to write per
    /// parameter.
    ///
    /// ```swift
    /// container.register(autowired: NotesRepository.init)                      // init(api: APIClient, cache: Cache)
    /// container.register(APIClient.self, autowired: LiveAPIClient.init).scope(.singleton)
    /// ```
    ///
    /// Each parameter is resolved by its type, unnamed, through the factory's ``DIResolver``, exactly as the
    /// hand-written factory `{ r in try NotesRepository(api: r.resolve(), cache: r.resolve()) }` would: errors,
    /// paths, cycles, overrides and validation behave the same, and so does the speed (the registration is generic
    /// code your module specialises). Every registration option chains on it. An initializer with several overloads
    /// needs its labels: `NotesRepository.init(api:cache:)`. For a named dependency or a runtime argument, write the
    /// factory by hand.
    ///
    /// - Parameters:
    ///   - type: The type to register under; the initializer's result type when omitted.
    ///   - name: A name that tells this registration apart from others of the same type.
    ///   - file: Where the registration is made, for error messages and validation reports.
    ///   - line: Where the registration is made.
    ///   - initializer: An initializer (or any function) whose parameters are services.
    /// - Returns: The registration, for chaining options.
    @inlinable
    @discardableResult
    public func register<T, each Dependency>(
        _ type: T.Type = T.self,
        name: Name? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        autowired initializer: @escaping @Sendable (repeat each Dependency) throws -> T
    ) -> Registration<T> {
        // The parameters' types for error messages, kept as one tuple type and a count: no allocation, so that the
        // autowired form registers as fast as a closure.
        var count = 0
        func counted<Parameter>(_: Parameter.Type) { count += 1 }
        repeat counted((each Dependency).self)
        let parameters = (repeat each Dependency).self
        return add(
            name: name,
            scope: .graph,
            file: file,
            line: line,
            factoryKind: .autowired(parameters: parameters, count: count)
        ) { resolver in
            try initializer(repeat try resolver.resolve((each Dependency).self))
        }
    }

    /// Registers the services of each module, in order.
    ///
    /// - Parameters:
    ///   - modules: Groups of registrations, such as one per feature.
    ///   - file: The call, named when it traps (on a sealed container); leave the default.
    ///   - line: The call's line.
    public func install(_ modules: any DIModule..., file: StaticString = #fileID, line: UInt = #line) {
        for module in modules {
            if isSealed {
                fatalError(
                    """
                    Inject: install(\(Describe.type(type(of: module)))) at \(file):\(line) on a sealed container.
                      The container was sealed with seal(), so it takes no more registrations or options.
                      fix: \(sealedFix())
                    """,
                    file: file,
                    line: line
                )
            }
            module.register(in: self)
        }
    }

    /// Whether a service is registered under the type and name here or in a parent (or in an active test override).
    ///
    /// - Parameters:
    ///   - type: The service type.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    public func isRegistered<T>(_ type: T.Type, name: Name? = nil) -> Bool {
        let key = Key(T.self, name)
        if let overlay = Overlay.active(), overlay.find(key, through: self) != nil {
            return true
        }
        return lookupVisible(key, from: ResolutionContext.currentPointer) != nil
    }
}

extension DIContainer {
    /// Publishes a new registration and returns its options. Inlinable, so that clients specialise it and make the
    /// entry with `Entry<T>`'s metadata at hand, instead of looking it up per registration.
    @inlinable
    func add<T>(
        name: Name?,
        scope: Scope,
        file: StaticString,
        line: UInt,
        factoryKind: EntryBase.FactoryKind,
        make: @escaping Entry<T>.Make
    ) -> Registration<T> {
        let entry = Entry<T>(
            name: name,
            scope: scope,
            file: file,
            line: line,
            owner: self,
            factoryKind: factoryKind,
            make: make
        )
        publishRegistration(entry)
        return Registration(container: self, entry: entry)
    }

    @usableFromInline
    func publishRegistration<T>(_ entry: Entry<T>) {
        publish(entry, action: "register(\(Describe.type(T.self)).self)")
    }

    /// Publishes `entry` in the table, over the entry of the same key if there is one, marked as being configured
    /// by the calling thread until its ``Registration`` is released (see `Entry+Configuring.swift`).
    ///
    /// - Parameter action: What the caller is doing, for the message when the container is sealed.
    func publish(_ entry: EntryBase, action: @autoclosure () -> String) {
        checkNotRegisteringAroundOverrides(action(), at: entry)
        let added = Unmanaged.passUnretained(entry)
        entry.beginConfiguring()
        // Unretained references throughout: the table and the entries are owned by `state` and retired, never freed,
        // while the container lives; retaining each would cost atomic operations on every registration.
        let outcome: PublishOutcome = state.withLock { state in
            guard !isSealed else { return .sealed }
            var table = Unmanaged<EntryTable>.fromOpaque(c_inject_load_acquire(tableCell).unsafelyUnwrapped)
            let existing = table._withUnsafeGuaranteedRef { $0.findUnretained(entry.key) }
            if existing == nil, (state.keyCount + 1) * 2 > table._withUnsafeGuaranteedRef(\.capacity) {
                let bigger = EntryTable(capacity: table._withUnsafeGuaranteedRef(\.capacity) * 2)
                table._withUnsafeGuaranteedRef { $0.copy(into: bigger) }
                if let retired = tableCell.replaceObject(with: bigger, as: EntryTable.self) {
                    state.retiredTables.append(retired)
                }
                table = Unmanaged.passUnretained(bigger)
            }
            // The replaced entry stays alive in `state.entries`; its cached instance is dropped when this entry's
            // chain ends, since other threads resolve it until then.
            entry.previous = existing?.takeUnretainedValue()
            if let previous = entry.previous {
                entry.order = previous.order
            } else {
                entry.order = state.nextOrder
                state.nextOrder += 1
            }
            state.entries.append(entry)
            if table._withUnsafeGuaranteedRef({ $0.store(added) }) {
                state.keyCount += 1
            }
            return .published
        }
        if outcome == .sealed {
            sealedTrap(action(), at: entry, call: nil)
        }
    }

    /// What ``publish(_:action:)`` did, to act on outside the lock.
    private enum PublishOutcome {
        case published
        case sealed
    }

    /// Traps when the container is sealed, for a registration option.
    ///
    /// - Parameters:
    ///   - file: The option's call, when it knows it: the trap names it and is reported there.
    ///   - line: The call's line.
    func checkNotSealed(
        for action: @autoclosure () -> String,
        at entry: EntryBase,
        file: StaticString? = nil,
        line: UInt = 0
    ) {
        if isSealed {
            sealedTrap(action(), at: entry, call: file.map { ($0, line) })
        }
    }

    /// Traps, at the option's call or else the registration's own `file:line`, for a registration or option on a
    /// sealed container.
    private func sealedTrap(_ action: String, at entry: EntryBase, call: (file: StaticString, line: UInt)?) -> Never {
        let file = call?.file ?? entry.file
        let line = call?.line ?? entry.line
        let action = call.map { "\(action) at \($0.file):\($0.line), registered" } ?? action
        if Self.overridesBeingMade.value > 0, ResolutionContext.current.overridesBeingMade?.registry === self {
            fatalError(
                """
                Inject: \(action) at \(entry.location) on the container of a test override's closure, which \
                seal() closed.
                  fix: remove seal() from the overrides closure: an override's container needs no sealing, and \
                overrides win over a sealed real container all the same.
                """,
                file: file,
                line: line
            )
        }
        fatalError(
            """
            Inject: \(action) at \(entry.location) on a sealed container.
              The container was sealed with seal(), so it takes no more registrations or options.
              fix: \(sealedFix())
            """,
            file: file,
            line: line
        )
    }

    /// What to do instead of registering on this sealed container.
    private func sealedFix() -> String {
        // Without `in:`, an override applies to DIContainer.shared: the fix names the container when it is another.
        let inContainer = self === DIContainer.shared ? "" : "(in: theSealedContainer)"
        let other =
            self === DIContainer.shared
            ? "" : " Pass this container as in: (without it, an override applies to DIContainer.shared)."
        return """
            register everything before calling seal(), or register into a child container (container.makeChild()). \
            In a test, replace the service with an override instead of registering it: \
            withOverrides\(inContainer) { $0.register(...) } operation: { ... }, or \
            pushOverrides\(inContainer) { $0.register(...) } in an XCTestCase (both from InjectTesting). Overrides work \
            on a sealed container, reach the property wrappers, and end with the test.\(other)
            """
    }

    /// Drops this container's own `.scoped` instance(s) of `entry`, by a reset or because the registration was
    /// replaced. A build under way goes to its caller and those waiting for it, and is not kept.
    ///
    /// The cache is retired, not only emptied: it has left the table, so a resolve that found it just before must
    /// not build into it (what it built would be released with it, `onRelease` and all, before that resolve
    /// returned); it gets ``InstanceSlot/Failure/retired`` and looks again.
    ///
    /// - Returns: Whether there was an instance to drop.
    @discardableResult
    func dropScoped(_ entry: EntryBase) -> Bool {
        let dropped = state.withLock { $0.scopedSlots.removeValue(forKey: ObjectIdentifier(entry)) }
        // Outside the lock: onRelease and a deinit are user code.
        guard let cache = dropped as? any InstanceCache else { return false }
        return cache.retire()
    }

    /// This container's own `.scoped` instances of the argument registration `entry`, one per argument value.
    func scopedArgumentCache<T>(for entry: Entry<T>) -> ArgumentCache<T> {
        state.withLock { state in
            let key = ObjectIdentifier(entry)
            if let cache = state.scopedSlots[key] {
                return unsafeDowncast(cache, to: ArgumentCache<T>.self)
            }
            let cache = ArgumentCache { entry.makeSlot(Scope.Code.scoped) }
            state.scopedSlots[key] = cache
            if entry.hasReleaseHook {
                noteInstancesWithRelease()
            }
            entry.markScopedSlotMade()
            return cache
        }
    }

    /// This container's own `.scoped` slot of `entry`, if one was made.
    func existingScopedSlot<T>(for entry: Entry<T>) -> InstanceSlot<T>? {
        state.withLock { $0.scopedSlots[ObjectIdentifier(entry)] }.flatMap { $0 as? InstanceSlot<T> }
    }

    /// The slot of this container's own `.scoped` instance of `entry`.
    func scopedSlot<T>(for entry: Entry<T>) -> InstanceSlot<T> {
        state.withLock { state in
            let key = ObjectIdentifier(entry)
            if let slot = state.scopedSlots[key] {
                return unsafeDowncast(slot, to: InstanceSlot<T>.self)
            }
            let slot = entry.makeSlot(Scope.Code.scoped)
            state.scopedSlots[key] = slot
            if entry.hasReleaseHook {
                noteInstancesWithRelease()
            }
            entry.markScopedSlotMade()
            return slot
        }
    }
}
