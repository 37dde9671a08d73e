extension DIContainer {
    /// Drops this container's cached instances of a scope; the next resolve of each builds a new one.
    ///
    /// - ``Scope/cached`` and ``Scope/custom(_:)``: the instances of registrations made in this container.
    /// - ``Scope/scoped``: the instances this container resolved for itself.
    /// - ``Scope/weak``: forgets the shared instances; holders keep theirs, the next resolve builds anew.
    /// - ``Scope/singleton``, ``Scope/graph``, ``Scope/transient``: nothing. A singleton is built once and lives as
    ///   long as its container; register a service as `.cached` or in a custom scope to make it resettable.
    ///
    /// Under an active test override the override's instances are dropped and the container's are left as they
    /// were, so that the container is unchanged when the override ends.
    ///
    /// ```swift
    /// func logOut() {
    ///     container.reset(.session)   // extension Scope { static let session = Scope.custom("session") }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - scope: The scope whose instances to drop.
    ///   - file: The call, named by a trap (a reset of the real container inside a test override's closure).
    ///   - line: The call's line.
    public func reset(_ scope: Scope, file: StaticString = #fileID, line: UInt = #line) {
        // A scope that holds nothing to drop (.singleton, .transient, .graph) makes this a no-op, wherever it is called.
        guard scope.isResettable else { return }
        checkNotResettingAroundOverrides("reset(\(scope))", file: file, line: line)
        if let overlay = Overlay.active() {
            overlay.reset(scope, in: self)
            return
        }
        // Released newest first (see `ReleaseBatch`), outside the lock: onRelease and a deinit are user code.
        var batch = ReleaseBatch()
        if scope.storage == .resolvingContainer {
            let dropped = state.withLock { state in
                defer { state.scopedSlots.removeAll() }
                return state.scopedSlots
            }
            // Retired, not only let go of: a build under way then goes to its caller without being kept, and a
            // resolve that found a cache just before does not build into it, where what it built would be released
            // (onRelease and all) before it returned; it looks again (see `dropScoped`).
            for cache in dropped.values {
                batch.add(cache, retiring: true)
            }
        } else {
            for entry in visibleEntries where entry.scopeCode == scope.code {
                entry.addCachedInstance(to: &batch, retiring: false)
            }
        }
        batch.release()
    }
}

extension DIContainer {
    /// Drops the cached instance(s) of one registration; the next resolve builds anew.
    ///
    /// The registration is the one a resolve through this container would use (a test override's, a child's, or
    /// a parent's; through an `implements` forward, the registration it forwards to), and the instance dropped is the
    /// one that resolve would get: this container's own for ``Scope/scoped``, the registration's for
    /// ``Scope/cached``, ``Scope/weak`` and custom scopes, and every per-argument instance of an argument
    /// registration. Its `onRelease` runs for each. ``Scope/transient`` and ``Scope/graph`` hold nothing to drop.
    ///
    /// ```swift
    /// container.reset(FeedCache.self)           // after the user pulled to refresh
    /// ```
    ///
    /// - Parameters:
    ///   - type: The service type.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    ///   - file: The call site a trap names; leave the default.
    ///   - line: The call site's line; leave the default.
    ///
    /// Traps when nothing is registered under the type and name, and for a ``Scope/singleton``, which lives as long
    /// as its container: register it `.cached` or in a custom scope to make it resettable.
    public func reset<T>(_ type: T.Type, name: Name? = nil, file: StaticString = #fileID, line: UInt = #line) {
        checkNotResettingAroundOverrides("reset(\(Describe.request(T.self, name)))", file: file, line: line)
        let overlay = Overlay.active()
        let thread = ResolutionContext.currentPointer
        func find(_ key: Key) -> (EntryBase, DIContainer)? {
            if let found = overlay?.find(key, through: self) {
                return found
            }
            return lookupVisible(key, from: thread).map {
                ($0.entry.takeUnretainedValue(), $0.owner.takeUnretainedValue())
            }
        }
        var found = find(Key(T.self, name))
        while let (entry, _) = found, case .forward(let target, _, _) = entry.factoryKind {
            found = find(target)
        }
        guard let (entry, owner) = found else {
            // The same type under other names, as a resolve's error lists them: a misspelt name is the usual cause.
            let typeID = ObjectIdentifier(T.self)
            let others = lineage.flatMap { container in
                container.visibleEntries(from: thread).filter { $0.key.type == typeID }.sorted { $0.order < $1.order }
            }
            let registered =
                others.isEmpty
                ? "" : "\n  registered: " + others.map { "\($0.label) at \($0.location)" }.joined(separator: "; ")
            fatalError(
                """
                Inject: reset(\(Describe.type(T.self)).self\(name.map { ", name: \"\($0.rawValue)\"" } ?? "")) at \
                \(file):\(line): nothing is registered for \(Describe.request(T.self, name)) in this container or its \
                parents.\(registered)
                  fix: reset the type that is registered (a protocol registered with implements resets the \
                registration it forwards to)\(others.isEmpty ? "" : ", or one of the names above"); a registration \
                made in a child container is reset through that child (session.reset(\(Describe.type(T.self)).self)), \
                which a parent does not see.
                """,
                file: file,
                line: line
            )
        }
        let scope = entry.scope
        switch scope.kind {
        case .transient, .graph:
            return
        case .singleton:
            let registered = overlay?.registers(entry) == true ? "registered by a test override at" : "registered at"
            let call = "reset(\(Describe.type(T.self)).self\(name.map { ", name: \"\($0.rawValue)\"" } ?? ""))"
            fatalError(
                """
                Inject: \(call) at \(file):\(line): \(entry.label), \(registered) \(entry.location), is a \
                .singleton, and a singleton lives as long as its container: there is nothing to reset.
                  fix: register it .cached (reset(.cached) or \(call) renews it) or in a custom scope, or make a \
                child container for what must be renewed.
                """,
                file: file,
                line: line
            )
        case .cached, .weak, .scoped, .custom:
            let home = scope == .scoped ? self : owner
            if let overlay {
                overlay.reset(entry, in: home)
            } else if scope == .scoped {
                dropScoped(entry)
            } else {
                entry.dropCachedInstance()
            }
        }
    }
}

extension DIContainer {
    /// Traps when a test override's closure resets this container (or one it resolves through): see
    /// ``checkNotChangingAroundOverrides(_:fix:file:line:)``.
    @inline(__always)
    fileprivate func checkNotResettingAroundOverrides(_ call: @autoclosure () -> String, file: StaticString, line: UInt)
    {
        checkNotChangingAroundOverrides(
            call(),
            lasting: "the instances the reset dropped are not given back: the real container builds new ones",
            fix: """
                call reset in the test's operation, where it drops what the override built and leaves the real \
                container's instances as they are.
                """,
            file: file,
            line: line
        )
    }
}
