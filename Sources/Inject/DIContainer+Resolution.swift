extension DIContainer {
    /// Resolves a service, trapping with the whole ``ResolutionError`` text when it cannot be built.
    ///
    /// Use it at the composition root and in app code. Inside a factory, resolve through the ``DIResolver`` the
    /// factory gets instead, so that a failure is reported rather than trapping inside your code.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    /// - Returns: The instance, as the registration's scope dictates.
    public func resolve<T>(_ type: T.Type = T.self, name: Name? = nil) -> T {
        do {
            return try resolveThrowing(T.self, name: name)
        } catch {
            fatalError(String(describing: error))
        }
    }

    /// Resolves a service that takes a runtime argument, trapping with the whole error text when it cannot.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    ///   - argument: The argument for the factory. Pass a tuple for several.
    public func resolve<T, Argument>(_ type: T.Type = T.self, name: Name? = nil, argument: Argument) -> T {
        do {
            return try resolveThrowing(T.self, name: name, argument: argument)
        } catch {
            fatalError(String(describing: error))
        }
    }

    /// Resolves a service if one is registered.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    /// - Returns: The instance, or `nil` only when nothing is registered under the type and name. A registration
    ///   that exists but cannot be built traps with the error's text, like ``resolve(_:name:)``.
    public func optional<T>(_ type: T.Type = T.self, name: Name? = nil) -> T? {
        let key = Key(T.self, name)
        if Overlay.activeCount.value == 0, let value = published(key, as: T.self) {
            return value
        }
        do {
            return try resolveSlowly(T.self, key: key, name: name, argument: nil, optional: true, .outside)
        } catch {
            fatalError(String(describing: error))
        }
    }

    /// Resolves a service, throwing when it cannot be built.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    /// - Throws: ``ResolutionError``: nothing registered, a cycle, a factory's own error, and so on.
    public func resolveThrowing<T>(_ type: T.Type = T.self, name: Name? = nil) throws -> T {
        let key = Key(T.self, name)
        if Overlay.activeCount.value == 0, let value = published(key, as: T.self) {
            return value
        }
        return try resolveSlowly(T.self, key: key, name: name, argument: nil, optional: false, .outside)!
    }

    /// Resolves a service that takes a runtime argument, throwing when it cannot be built.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    ///   - argument: The argument for the factory. Pass a tuple for several.
    /// - Throws: ``ResolutionError``, also when the argument is not of the registered argument type.
    public func resolveThrowing<T, Argument>(_ type: T.Type = T.self, name: Name? = nil, argument: Argument) throws -> T
    {
        let box = ArgumentBox(value: argument, type: Argument.self)
        return try resolveSlowly(T.self, key: Key(T.self, name), name: name, argument: box, optional: false, .outside)!
    }
}

extension DIContainer {
    /// Who started a resolve: code outside the resolution (which runs under the task's overlay), or a
    /// ``DIResolver`` (which carries the overlay of the resolution it belongs to).
    enum Caller {
        case outside
        case resolver(Overlay?)
    }

    /// The fast path: a built singleton under `key`, read without a lock; `nil` for anything else.
    @inline(__always)
    func published<T>(_ key: Key, as type: T.Type) -> T? {
        var container = self
        while true {
            if let entry = container.table.find(key) {
                // The key's type identity guarantees the entry's type.
                return unsafeDowncast(entry, to: Entry<T>.self).published
            }
            guard let parent = container.parent else { return nil }
            container = parent
        }
    }

    /// The slow path: joins the resolution running on this thread, or starts a top-level one.
    func resolveSlowly<T>(
        _ type: T.Type,
        key: Key,
        name: Name?,
        argument: ArgumentBox?,
        optional: Bool,
        _ caller: Caller
    ) throws -> T? {
        let context = ResolutionContext.current
        if context.isResolving {
            return try context.resolve(
                T.self,
                key: key,
                name: name,
                through: self,
                argument: argument,
                optional: optional
            )
        }
        switch caller {
        case .outside:
            context.overlay = Overlay.active()
        case .resolver(let overlay):
            context.overlay = overlay
        }
        defer { context.endTopLevel() }
        return try context.resolve(T.self, key: key, name: name, through: self, argument: argument, optional: optional)
    }
}
