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
/// Without `container:`, the property resolves through the container a factory's dependencies come from when it is
/// initialised while that factory runs (so a session child's registrations reach it, as they reach `r.resolve()`),
/// and through ``DIContainer/shared`` anywhere else. Initialised inside a factory, the wrapper joins that factory's
/// resolution (its graph-scope instances and cycle detection). Resolution honours the active test overrides.
///
/// Property wrappers cannot throw: a service that cannot be resolved traps with the whole ``ResolutionError`` text,
/// naming the property's declaration (`@Injected Cart at Shop/HomeScreen.swift:12`). Under
/// ``DIContainer/validate()`` the failure is reported instead, and validation goes on; the property then traps only
/// if it is read. In a factory that `resolveAsync` or `warmUp()` runs, the failure fails that factory's build
/// instead, as if the factory had thrown it: `resolveAsync` throws it, and `warmUp()` builds again once the async
/// singleton the property needs is built.
@propertyWrapper
public struct Injected<Service> {
    @usableFromInline
    var storage: InjectedValue<Service>

    /// The resolved instance.
    @inlinable
    public var wrappedValue: Service {
        get { storage.value }
        set { storage = .resolved(newValue) }
    }

    /// Resolves the service now.
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
            storage = .resolved(try home.resolveThrowing(Service.self, name: name))
        } catch {
            storage = .failed(WrapperResolution.keep(error, "@Injected", Service.self, name, file, line))
        }
    }
}

extension Injected: Sendable where Service: Sendable {}
