import CInjectShims

extension DIContainer {
    /// Resolves a service, trapping with the whole ``ResolutionError`` text when it cannot be built.
    ///
    /// Use it at the composition root and in app code. Inside a factory, resolve through the ``DIResolver`` the
    /// factory gets instead, so that a failure is reported rather than trapping inside your code.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    ///   - file: The call site a trap names; leave the default.
    ///   - line: The call site's line; leave the default.
    /// - Returns: The instance, as the registration's scope dictates.
    @inlinable
    public func resolve<T>(
        _ type: T.Type = T.self,
        name: Name? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> T {
        // One call into Inject, as for `resolveThrowing`: a `do`/`catch` here would cost a call frame of its own.
        resolveOrTrap(T.self, name: name, file: file, line: line)
    }

    /// ``resolve(_:name:file:line:)``'s body: the fast path, inlined, and the trap.
    @usableFromInline
    func resolveOrTrap<T>(_ type: T.Type, name: Name?, file: StaticString, line: UInt) -> T {
        do {
            return try resolveFast(T.self, name: name, overlayFree: Overlay.activeCount.value == 0, .outside)
        } catch {
            Self.trap(error, file: file, line: line)
        }
    }

    /// Resolves a service that takes a runtime argument, trapping with the whole error text when it cannot.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    ///   - argument: The argument for the factory. Pass a tuple for several.
    ///   - file: The call site a trap names; leave the default.
    ///   - line: The call site's line; leave the default.
    @inlinable
    public func resolve<T, Argument>(
        _ type: T.Type = T.self,
        name: Name? = nil,
        argument: Argument,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> T {
        do {
            return try resolveThrowing(T.self, name: name, argument: argument)
        } catch {
            Self.trap(error, file: file, line: line)
        }
    }

    /// Resolves a service if one is registered.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    ///   - file: The call site a trap names; leave the default.
    ///   - line: The call site's line; leave the default.
    /// - Returns: The instance, or `nil` only when nothing is registered under the type and name, or when what is
    ///   registered is a factory that returns `T?` (`register { () -> T? in ... }`) and it returned `nil`. A
    ///   registration that exists but cannot be built traps with the error's text, like ``resolve(_:name:file:line:)``.
    @inlinable
    public func optional<T>(
        _ type: T.Type = T.self,
        name: Name? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> T? {
        do {
            return try optionalThrowing(T.self, name: name)
        } catch {
            Self.trap(error, file: file, line: line)
        }
    }

    /// Resolves a service that takes a runtime argument, if one is registered.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    ///   - argument: The argument for the factory. Pass a tuple for several.
    ///   - file: The call site a trap names; leave the default.
    ///   - line: The call site's line; leave the default.
    /// - Returns: The instance, or `nil` only when nothing is registered under the type and name, or when what is
    ///   registered is a factory that returns `T?` (`register { () -> T? in ... }`) and it returned `nil`.
    public func optional<T, Argument>(
        _ type: T.Type = T.self,
        name: Name? = nil,
        argument: Argument,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> T? {
        do {
            let box = ArgumentBox(value: argument, type: Argument.self)
            return try resolveIfRegistered(T.self, key: Key(T.self, name), name: name, argument: box, .outside)
        } catch {
            Self.trap(error, file: file, line: line)
        }
    }

    /// Resolves a service, throwing when it cannot be built.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    /// - Throws: ``ResolutionError``: nothing registered, a cycle, a factory's own error, and so on.
    public func resolveThrowing<T>(_ type: T.Type = T.self, name: Name? = nil) throws -> T {
        try resolveFast(T.self, name: name, overlayFree: Overlay.activeCount.value == 0, .outside)
    }

    /// Resolves a service that takes a runtime argument, throwing when it cannot be built.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    ///   - argument: The argument for the factory. Pass a tuple for several.
    /// - Throws: ``ResolutionError``, also when the argument is not of the registered argument type.
    public func resolveThrowing<T, Argument>(
        _ type: T.Type = T.self,
        name: Name? = nil,
        argument: Argument
    ) throws -> T {
        try resolveWithArgument(T.self, name: name, argument: argument, .outside)
    }

    /// The throwing `optional`: what ``optional(_:name:file:line:)`` and `@OptionalInjected` resolve with.
    @usableFromInline
    func optionalThrowing<T>(_ type: T.Type, name: Name?) throws -> T? {
        try resolveIfRegistered(T.self, key: Key(T.self, name), name: name, .outside)
    }

    /// Traps with `error`'s text, at the caller's call site.
    @usableFromInline
    @inline(never)
    static func trap(_ error: any Error, file: StaticString, line: UInt) -> Never {
        var message = "\(error)\n  resolved at: \(file):\(line)"
        if let factory = runningFactory {
            message += """

                  this call runs inside \(factory)'s factory, where a DIContainer's resolve traps: resolve through the \
                factory's DIResolver instead ({ r in try ...(r.resolve()) }), so that the error is thrown to whoever \
                resolves \(factory).
                """
        }
        fatalError(WrapperResolution.withStopNote(message), file: file, line: line)
    }

    /// The registration whose factory is running on this thread, if any: for the trap of a container's `resolve`
    /// called inside a factory.
    private static var runningFactory: String? {
        guard let raw = c_inject_get_thread_context() else { return nil }
        return Unmanaged<ResolutionContext>.fromOpaque(raw).takeUnretainedValue().frames.last?.entry.label
    }
}

extension DIContainer {
    /// Who started a resolve: code outside the resolution (which runs under the task's overlay), or a
    /// ``DIResolver`` (which carries the overlay of the resolution it belongs to and, an async factory's, its build).
    enum Caller {
        case outside
        case resolver(Overlay?, AsyncFrame?)

        /// The async build a resolve by this caller joins: the resolver's, else the task's while its factory runs.
        /// A task the factory started and that runs on after it returned starts a resolution of its own, under the
        /// overrides active then, not under those of a resolution that has ended.
        var frame: AsyncFrame? {
            if case .resolver(_, let frame?) = self {
                return frame
            }
            guard let frame = AsyncFrame.currentIfAny, frame.isFactoryRunning else { return nil }
            return frame
        }
    }

    /// An entry found by ``lookup(_:)`` and the container whose table holds it, unretained: both stay alive as long
    /// as the container the lookup started from.
    typealias Found = (entry: Unmanaged<EntryBase>, owner: Unmanaged<DIContainer>)

    /// The entry under `key` in this container or its nearest ancestor that has one: lock-free, retains nothing.
    @inline(__always)
    func lookup(_ key: Key) -> Found? {
        var container = Unmanaged.passUnretained(self)
        while true {
            let (entry, parent) = container._withUnsafeGuaranteedRef { ($0.findUnretained(key), $0.parentRef) }
            if let entry {
                return (entry, container)
            }
            guard let parent else { return nil }
            container = parent
        }
    }

    /// The hot path of `resolve` without an argument: a built singleton is one lookup and one load, no lock.
    ///
    /// - Parameter overlayFree: Whether the caller knows that no test override or validation applies, so that
    ///   the table alone decides.
    @inline(__always)
    func resolveFast<T>(_ type: T.Type, name: Name?, overlayFree: Bool, _ caller: Caller) throws -> T {
        let key = Key(T.self, name)
        guard overlayFree, let found = lookup(key) else {
            return try resolveSlowly(T.self, key: key, name: name, argument: nil, found: nil, caller)
        }
        if let storage = found.entry._withUnsafeGuaranteedRef({ $0.publishedStorage }) {
            return storage.assumingMemoryBound(to: T.self).pointee
        }
        return try resolveSlowly(T.self, key: key, name: name, argument: nil, found: found, caller)
    }

    /// A resolve with an argument: a `.singleton` instance already built for this argument value is a lookup, a hash
    /// and the published table's lock, with no boxing; anything else takes the slow path.
    @inline(__always)
    func resolveWithArgument<T, Argument>(
        _ type: T.Type,
        name: Name?,
        argument: Argument,
        _ caller: Caller,
        overlayFree: Bool = Overlay.activeCount.value == 0
    ) throws -> T {
        let key = Key(T.self, name)
        if overlayFree, let found = lookup(key),
            let storage = found.entry._withUnsafeGuaranteedRef({ $0.publishedArgumentStorage(for: argument) })
        {
            return storage.assumingMemoryBound(to: T.self).pointee
        }
        let box = ArgumentBox(value: argument, type: Argument.self)
        return try resolveSlowly(T.self, key: key, name: name, argument: box, found: nil, caller)
    }

    /// The slow path: joins the resolution running on this thread, or starts a top-level one.
    ///
    /// - Parameter found: What ``lookup(_:)`` found, when the caller already looked and no overlay applies.
    @inline(__always)
    func resolveSlowly<T>(
        _ type: T.Type,
        key: Key,
        name: Name?,
        argument: ArgumentBox?,
        found: Found?,
        _ caller: Caller
    ) throws -> T {
        try inResolution(caller) { context in
            try context.resolve(T.self, key: key, name: name, through: self, argument: argument, found: found)
        }
    }

    /// The slow path for `optional`: `nil` when nothing is registered under `key`.
    func resolveIfRegistered<T>(
        _ type: T.Type,
        key: Key,
        name: Name?,
        argument: ArgumentBox? = nil,
        _ caller: Caller
    ) throws -> T? {
        try inResolution(caller) { context in
            try context.resolveIfRegistered(T.self, key: key, name: name, through: self, argument: argument)
        }
    }

    /// Runs `body` in the resolution under way on this thread, or in a new top-level one that `caller` starts.
    @inline(__always)
    func inResolution<Result>(
        _ caller: Caller,
        _ body: (ResolutionContext) throws -> Result
    ) rethrows -> Result {
        try ResolutionContext.withCurrent { context in
            if context.isResolving {
                if case .outside = caller, context.overlay?.recorder != nil {
                    // A property wrapper's resolve inside a build, under validation (see `readBoundary`).
                    let outer = context.readBoundary
                    context.readBoundary = context.frames.count
                    defer { context.readBoundary = outer }
                    return try body(context)
                }
                return try body(context)
            }
            if let frame = caller.frame {
                // Inside an async factory: join its resolution, on this thread, for this call.
                guard case .outside = caller, frame.resolution.overlay?.recorder != nil else {
                    return try context.seed(from: frame, in: frame.resolution, body)
                }
                // A property wrapper's resolve inside an async factory, under validation (see `readBoundary`).
                return try context.seed(from: frame, in: frame.resolution) { context in
                    context.readBoundary = context.frames.count
                    defer { context.readBoundary = 0 }
                    return try body(context)
                }
            }
            context.beginTopLevel(caller, through: self)
            defer { context.endTopLevel() }
            return try body(context)
        }
    }
}
