/// A property resolved when the enclosing object is initialised.
///
/// ```swift
/// final class ProfileViewModel {
///     @Injected var api: APIClient
///     @Injected(name: .live) var store: NoteStore
///     @Injected(container: session) var cart: Cart
/// }
/// ```
///
/// Property wrappers cannot throw: a service that cannot be resolved traps with the whole ``ResolutionError``
/// text. Initialised inside a factory, the wrapper joins that factory's resolution (its graph-scope instances and
/// cycle detection). Resolution honours the active test overrides.
@propertyWrapper
public struct Injected<Service> {
    /// The resolved instance.
    public var wrappedValue: Service

    /// Resolves the service now.
    ///
    /// - Parameters:
    ///   - name: The registration's name, or `nil` for the unnamed one.
    ///   - container: The container to resolve from; ``DIContainer/shared`` by default.
    public init(name: DIContainer.Name? = nil, container: DIContainer = .shared) {
        self.wrappedValue = container.resolve(Service.self, name: name)
    }
}

extension Injected: Sendable where Service: Sendable {}
