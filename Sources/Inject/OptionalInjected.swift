/// A property resolved when the enclosing object is initialised, or `nil` when nothing is registered.
///
/// ```swift
/// @OptionalInjected var tracker: Tracker?
/// ```
///
/// Only a missing registration gives `nil`: a registration that exists but cannot be built traps with the whole
/// ``ResolutionError`` text, naming the property, like ``Injected`` (and, like it, is reported instead under
/// ``DIContainer/validate()``). Without `container:` it resolves where ``Injected`` would.
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
    public init(
        name: DIContainer.Name? = nil,
        container: DIContainer? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) {
        let home = WrapperResolution.home(container)
        do {
            storage = .resolved(
                try home.resolveIfRegistered(Service.self, key: Key(Service.self, name), name: name, .outside)
            )
        } catch {
            let site = PropertySite(
                wrapper: "@OptionalInjected",
                service: Service.self,
                name: name,
                file: file,
                line: line
            )
            storage = .failed(WrapperResolution.keep(error, site: site))
        }
    }
}

extension OptionalInjected: Sendable where Service: Sendable {}
