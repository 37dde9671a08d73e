/// A property resolved when the enclosing object is initialised, or `nil` when nothing is registered.
///
/// ```swift
/// @OptionalInjected var tracker: Tracker?
/// ```
///
/// Only a missing registration gives `nil`: a registration that exists but cannot be built traps with the whole
/// ``ResolutionError`` text, like ``Injected``.
@propertyWrapper
public struct OptionalInjected<Service> {
    /// The resolved instance, or `nil`.
    public var wrappedValue: Service?

    /// Resolves the service now, if it is registered.
    ///
    /// - Parameters:
    ///   - name: The registration's name, or `nil` for the unnamed one.
    ///   - container: The container to resolve from; ``DIContainer/shared`` by default.
    public init(name: DIContainer.Name? = nil, container: DIContainer = .shared) {
        self.wrappedValue = container.optional(Service.self, name: name)
    }
}

extension OptionalInjected: Sendable where Service: Sendable {}
