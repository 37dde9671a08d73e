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
    /// - Parameter scope: The scope whose instances to drop.
    public func reset(_ scope: Scope) {
        guard scope.isResettable else { return }
        if let overlay = Overlay.active() {
            overlay.reset(scope, in: self)
            return
        }
        if scope.storage == .resolvingContainer {
            let dropped = state.withLock { state in
                defer { state.scopedSlots.removeAll() }
                return state.scopedSlots
            }
            _ = dropped  // released here, outside the lock: a deinit is user code
        } else {
            for entry in visibleEntries where entry.scopeCode == scope.code {
                entry.dropCachedInstance()
            }
        }
    }
}
