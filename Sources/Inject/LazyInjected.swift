/// A property resolved on first read.
///
/// ```swift
/// final class NotesViewModel {
///     @LazyInjected var analytics: Analytics
///
///     func reload() {
///         analytics.track("reload")        // resolved here, the first time
///         if $analytics.isResolved { ... }
///     }
/// }
/// ```
///
/// The projected value (`$analytics`) offers ``isResolved`` and ``reset()``. Without `container:`, the property
/// remembers, when it is initialised, the container ``Injected`` would resolve through (the running factory's, else
/// ``DIContainer/shared``) and resolves through it on first read. It holds a child container weakly (a child's
/// `.scoped` service with lazy properties must not keep the child alive), so a read after that child was released
/// traps, naming the property. It holds a root container strongly, so that an object whose root nobody kept still
/// reads it, unless the root keeps the object itself (a `.singleton` or `.cached` service of the root, or what its
/// factory makes), which would be a cycle. ``DIContainer/validate()`` resolves its dependency too, after building the
/// object that holds it, as the first read would.
///
/// > Important: The first read resolves the service exactly once, even when many threads read it at once; the
/// > others wait for that resolve and get the same instance. A failure traps with the whole ``ResolutionError``
/// > text. Copies of the wrapper share one instance.
///
/// Under a test override (InjectTesting's `withOverrides`, the `.overrides` trait, `pushOverrides`) the property
/// resolves apart: a read under the override gets the override's service, resolved once for that override, and
/// what it resolved there is never handed out outside it. So an object that outlives a test (a global, a singleton)
/// and is first read in it gets the container's service again after it, and one read before a test gets the
/// override's service inside it.
@propertyWrapper
public struct LazyInjected<Service> {
    private let storage: LazyInjection<Service>

    /// Prepares the property; nothing is resolved until the first read.
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
        let site = PropertySite(wrapper: "@LazyInjected", service: Service.self, name: name, file: file, line: line)
        self.storage = LazyInjection(container: WrapperResolution.home(container), name: name, site: site)
    }

    /// The instance, resolved on first read.
    public var wrappedValue: Service {
        storage.value
    }

    /// The wrapper itself, for ``isResolved`` and ``reset()``.
    public var projectedValue: LazyInjected<Service> {
        self
    }

    /// Whether the service has been resolved (and not reset since), for a read here: under the test override
    /// active now, if any (see ``LazyInjected``).
    public var isResolved: Bool {
        storage.slots.current.current != nil
    }

    /// Forgets the instance; the next read resolves again. Under a test override, it forgets what the property
    /// resolved under that override only: the app's instance, and what other tests' overrides resolved, stay.
    public func reset() {
        storage.slots.reset()
    }
}

extension LazyInjected: Sendable where Service: Sendable {}

/// The shared state of a ``LazyInjected`` property.
final class LazyInjection<Service>: @unchecked Sendable {
    // @unchecked: the instances live in slots behind their locks; the rest is `let` (a weak reference, never set
    // again, is read atomically).
    /// A root strongly, a child weakly: see ``RememberedContainer``.
    private let remembered: RememberedContainer
    let name: DIContainer.Name?
    let site: PropertySite
    /// The instance, apart under each test override.
    let slots: OverrideSlots<Service>

    init(container: DIContainer, name: DIContainer.Name?, site: PropertySite) {
        self.remembered = RememberedContainer(container)
        self.name = name
        self.site = site
        self.slots = OverrideSlots(service: Service.self, name: name)
        WrapperResolution.recordLazyDependency(Service.self, name: name, container: container, site: site)
    }

    var value: Service {
        do {
            return try slots.current.lazyInstance(for: site.description, file: site.file, line: site.line) {
                guard let container = remembered.container else {
                    WrapperResolution.containerReleased(site: site, wasRoot: remembered.isRoot)
                }
                return try WrapperResolution.readLazily(site) {
                    try container.resolveThrowing(Service.self, name: name)
                }
            }
        } catch {
            WrapperResolution.trap(error, site: site)
        }
    }
}
