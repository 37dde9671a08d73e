extension DIContainer {
    /// Registers an async factory: for a service that must `await` to be built, such as a database that opens, a
    /// keychain read or a remote configuration.
    ///
    /// ```swift
    /// container.register(Database.self) { r in try await Database.open(config: r.resolve()) }
    ///     .scope(.singleton)
    ///     .eager()
    /// ```
    ///
    /// The same `register` name as a synchronous factory: Swift picks this overload when the closure awaits.
    /// Resolve the service with ``resolveAsync(_:name:)``, or mark it ``Registration/eager()`` and call
    /// ``warmUp()`` at start-up. Once built, a caching scope's instance is read by the synchronous `resolve` and the
    /// property wrappers too (a built singleton through the same lock-free read as any); before that they fail with
    /// a ``ResolutionError`` of kind ``ResolutionError/Kind/notBuiltYet`` that says so. They never wait for it.
    ///
    /// > Important: An async registration of a caching scope is built exactly once, even when many tasks ask at once:
    /// > the others suspend (no thread is blocked) and get the same instance. A factory that throws leaves it unbuilt:
    /// > the tasks that waited for that build get its error, and the next ask builds again. A waiting task that is
    /// > cancelled stops waiting with `CancellationError`; the build goes on for the others. A building task that is
    /// > cancelled gets its factory's `CancellationError` as it is, and a task that waited builds again.
    ///
    /// - Parameters:
    ///   - type: The type to register under; inferred from the factory when omitted.
    ///   - name: A name that tells this registration apart from others of the same type.
    ///   - file: Where the registration is made, for error messages and validation reports.
    ///   - line: Where the registration is made.
    ///   - factory: Makes an instance, awaiting what it needs. Resolve dependencies through its ``DIResolver``
    ///     (`try await r.resolveAsync()`, or `try r.resolve()` for what is built already). Runs with no lock held.
    /// - Returns: The registration, for chaining options.
    @discardableResult
    public func register<T>(
        _ type: T.Type = T.self,
        name: Name? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        factory: @escaping @Sendable (DIResolver) async throws -> T
    ) -> Registration<T> {
        let entry = Entry<T>(
            name: name,
            scope: .graph,
            file: file,
            line: line,
            owner: self,
            factoryKind: .async,
            make: { _ in preconditionFailure("Inject: an async factory is only run by an async resolution") },
            makeAsync: factory
        )
        publishRegistration(entry)
        return Registration(container: self, entry: entry)
    }

    /// Registers an async factory without dependencies.
    ///
    /// - Parameters:
    ///   - type: The type to register under; inferred from the factory when omitted.
    ///   - name: A name that tells this registration apart from others of the same type.
    ///   - file: Where the registration is made, for error messages and validation reports.
    ///   - line: Where the registration is made.
    ///   - factory: Makes an instance, awaiting what it needs.
    /// - Returns: The registration, for chaining options.
    @discardableResult
    public func register<T>(
        _ type: T.Type = T.self,
        name: Name? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        factory: @escaping @Sendable () async throws -> T
    ) -> Registration<T> {
        register(type, name: name, file: file, line: line) { (_: DIResolver) async throws -> T in try await factory() }
    }

    /// Resolves a service, awaiting its build if it has an async factory: every registration resolves this way, the
    /// synchronous ones too (a synchronous factory runs inline, with no task hop).
    ///
    /// ```swift
    /// let database = try await container.resolveAsync(Database.self)
    /// ```
    ///
    /// It honours test overrides, child scopes, names, `implements`, `resolveProperties` and errors exactly as
    /// ``resolveThrowing(_:name:)`` does: one resolution per call, whichever threads it runs on, with its own
    /// graph-scope instances and cycle detection. A built singleton is one lookup and one load, with no allocation
    /// and no task hop. A `mainActorFactory` registration is built on the main actor, hopping there if need be.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    /// - Throws: ``ResolutionError``, or `CancellationError` when the task is cancelled while it waits for another
    ///   task's build.
    nonisolated(nonsending)
        public func resolveAsync<T>(_ type: T.Type = T.self, name: Name? = nil) async throws -> T
    {
        let key = Key(T.self, name)
        if Overlay.activeCount.value == 0, let found = lookup(key),
            let storage = found.entry._withUnsafeGuaranteedRef({ $0.publishedStorage })
        {
            return storage.assumingMemoryBound(to: T.self).pointee
        }
        return try await resolveAsyncSlowly(T.self, key: key, name: name, argument: nil, .outside)
    }

    /// Resolves a service that takes a runtime argument, awaiting its build if its factory is async.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    ///   - argument: The argument for the factory. Pass a tuple for several.
    /// - Throws: ``ResolutionError``, also when the argument is not of the registered argument type.
    nonisolated(nonsending)
        public func resolveAsync<T, Argument>(
            _ type: T.Type = T.self,
            name: Name? = nil,
            argument: Argument
        ) async throws -> T
    {
        let box = ArgumentBox(value: argument, type: Argument.self)
        return try await resolveAsyncSlowly(T.self, key: Key(T.self, name), name: name, argument: box, .outside)
    }

    /// The slow path of `resolveAsync`: joins the async resolution of the build that asks (a resolver's, or the
    /// task's), or starts a top-level one, which ends with this call.
    func resolveAsyncSlowly<T>(
        _ type: T.Type,
        key: Key,
        name: Name?,
        argument: ArgumentBox?,
        _ caller: Caller
    ) async throws -> T {
        if let parent = caller.frame {
            return try await parent.resolution.resolve(
                T.self,
                key: key,
                name: name,
                through: self,
                argument: argument,
                parent: parent
            )
        }
        let overlay: Overlay?
        switch caller {
        case .outside: overlay = Overlay.active()
        case .resolver(let resolverOverlay, _): overlay = resolverOverlay
        }
        let resolution = AsyncResolution(overlay: overlay, top: self)
        defer { resolution.finish() }
        let value = try await resolution.resolve(
            T.self,
            key: key,
            name: name,
            through: self,
            argument: argument,
            parent: nil
        )
        await resolution.awaitBorrowedBuilds()
        return value
    }
}

extension DIResolver {
    /// Resolves a service as part of this resolution, awaiting its build if its factory is async: what an async
    /// factory uses for its async dependencies.
    ///
    /// ```swift
    /// container.register { r in try await SyncEngine(database: r.resolveAsync(), api: r.resolve()) }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    /// - Throws: ``ResolutionError``, or `CancellationError` when the task is cancelled while it waits.
    nonisolated(nonsending)
        public func resolveAsync<T>(_ type: T.Type = T.self, name: DIContainer.Name? = nil) async throws -> T
    {
        let key = Key(T.self, name)
        if overlay == nil, Overlay.activeCount.value == 0, let found = container.lookup(key),
            let storage = found.entry._withUnsafeGuaranteedRef({ $0.publishedStorage })
        {
            return storage.assumingMemoryBound(to: T.self).pointee
        }
        return try await container.resolveAsyncSlowly(T.self, key: key, name: name, argument: nil, caller)
    }

    /// Resolves a service that takes a runtime argument as part of this resolution, awaiting its build if its
    /// factory is async.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    ///   - argument: The argument for the factory. Pass a tuple for several.
    /// - Throws: ``ResolutionError``, also when the argument is not of the registered argument type.
    nonisolated(nonsending)
        public func resolveAsync<T, Argument>(
            _ type: T.Type = T.self,
            name: DIContainer.Name? = nil,
            argument: Argument
        ) async throws -> T
    {
        let box = ArgumentBox(value: argument, type: Argument.self)
        return try await container.resolveAsyncSlowly(T.self, key: Key(T.self, name), name: name, argument: box, caller)
    }
}
