/// What a factory resolves its dependencies with: resolution that throws.
///
/// A factory receives a `DIResolver` and resolves through it, so that a failure deep in a graph (a missing
/// registration three levels down, a cycle, a factory's own error) unwinds through your factories as a
/// ``ResolutionError``, to ``DIContainer/resolveThrowing(_:name:)`` or to ``DIContainer/validate()``, instead of
/// trapping inside your code:
///
/// ```swift
/// container.register { r in
///     try ProfileViewModel(api: r.resolve(), store: r.resolve(name: .live))
/// }
/// ```
///
/// The resolver belongs to one resolution: it shares that resolution's graph-scope instances and cycle detection
/// and honours the test overrides that were active when it began, also when a factory hands it to another thread.
public struct DIResolver: Sendable {
    /// The container this resolution runs in: the registering container for a singleton's factory, else the
    /// container the resolve went through.
    public let container: DIContainer
    let overlay: Overlay?
    /// For an async factory: the build it runs in, so that what it resolves, on any task, joins its resolution.
    let frame: AsyncFrame?

    init(container: DIContainer, overlay: Overlay?, frame: AsyncFrame? = nil) {
        self.container = container
        self.overlay = overlay
        self.frame = frame
    }

    /// Resolves a service.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    /// - Throws: ``ResolutionError`` when the service cannot be built.
    public func resolve<T>(_ type: T.Type = T.self, name: DIContainer.Name? = nil) throws -> T {
        try container.resolveFast(T.self, name: name, overlayFree: overlay == nil, caller)
    }

    /// Resolves a service that takes a runtime argument.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    ///   - argument: The argument for the factory. Pass a tuple for several.
    /// - Throws: ``ResolutionError``, also when the argument is not of the registered argument type.
    public func resolve<T, Argument>(
        _ type: T.Type = T.self,
        name: DIContainer.Name? = nil,
        argument: Argument
    ) throws -> T {
        try container.resolveWithArgument(T.self, name: name, argument: argument, caller, overlayFree: overlay == nil)
    }

    /// Resolves a service if one is registered.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    /// - Returns: The instance, or `nil` when nothing is registered under the type and name, or when what is
    ///   registered is a factory that returns `T?` (`register { () -> T? in ... }`) and it returned `nil`.
    /// - Throws: ``ResolutionError`` when a registration exists but cannot be built.
    public func optional<T>(_ type: T.Type = T.self, name: DIContainer.Name? = nil) throws -> T? {
        try container.resolveIfRegistered(T.self, key: Key(T.self, name), name: name, caller)
    }

    /// Resolves a service that takes a runtime argument, if one is registered.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - name: The registration's name, or `nil` for the unnamed one.
    ///   - argument: The argument for the factory. Pass a tuple for several.
    /// - Returns: The instance, or `nil` when nothing is registered under the type and name, or when what is
    ///   registered is a factory that returns `T?` (`register { () -> T? in ... }`) and it returned `nil`.
    /// - Throws: ``ResolutionError`` when a registration exists but cannot be built.
    public func optional<T, Argument>(
        _ type: T.Type = T.self,
        name: DIContainer.Name? = nil,
        argument: Argument
    ) throws -> T? {
        let box = ArgumentBox(value: argument, type: Argument.self)
        return try container.resolveIfRegistered(T.self, key: Key(T.self, name), name: name, argument: box, caller)
    }

    var caller: DIContainer.Caller { .resolver(overlay, frame) }
}

extension DIResolver {
    /// Resolves the target of an `implements` forward, passing on the argument the forward was resolved with.
    func resolveForwarded<T>(_ type: T.Type, name: DIContainer.Name?, argument: ArgumentBox?) throws -> T {
        try container.resolveSlowly(T.self, key: Key(T.self, name), name: name, argument: argument, found: nil, caller)
    }
}
