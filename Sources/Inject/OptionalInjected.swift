/// A property resolved when the enclosing object is initialised, or `nil` when nothing is registered (or when what is
/// registered is a factory of `Service?` that returned `nil`).
///
/// ```swift
/// @OptionalInjected var tracker: Tracker?
/// ```
///
/// Only a missing registration (or a factory of `Service?` returning `nil`) gives `nil`: a registration that exists
/// but cannot be built traps with the whole ``ResolutionError`` text, naming the property, like ``Injected`` (and,
/// like it, is reported instead under ``DIContainer/validate()``). Without `container:` it resolves where ``Injected`` would.
@propertyWrapper
public struct OptionalInjected<Service> {
    @usableFromInline
    var storage: InjectedValue<Service?>

    /// The resolved instance, or `nil`.
    @inlinable
    public var wrappedValue: Service? {
        get { storage.value }
        set { storage = .resolved(newValue) }
    }

    /// Resolves the service now, if it is registered.
    ///
    /// - Parameters:
    ///   - name: The registration's name, or `nil` for the unnamed one.
    ///   - container: The container to resolve through; by default the running factory's, else
    ///     ``DIContainer/shared``.
    ///   - file: The property's declaration, named by every message about it; leave the default.
    ///   - line: The property's declaration line; leave the default.
    @inlinable
    public init(
        name: DIContainer.Name? = nil,
        container: DIContainer? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) {
        // Inlinable, so that your module specialises the storage for `Service`: the resolve itself runs in Inject.
        let home = container ?? WrapperResolution.defaultHome()
        do {
            storage = .resolved(try home.optionalThrowing(Service.self, name: name))
        } catch {
            storage = .failed(WrapperResolution.keep(error, "@OptionalInjected", Service.self, name, file, line))
        }
    }
}

extension OptionalInjected: Sendable where Service: Sendable {}
