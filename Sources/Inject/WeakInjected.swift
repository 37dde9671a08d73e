/// A property resolved on first read and held weakly: `nil` once every strong holder has let go.
///
/// ```swift
/// final class NoteCell {
///     @WeakInjected var coordinator: NotesCoordinator?
/// }
/// ```
///
/// For class types (or protocols whose instances are classes), typically a service in ``Scope/weak`` or
/// ``Scope/singleton`` scope owned elsewhere. Once released it stays `nil`; it is not resolved again. Setting it
/// stores a new weak reference. A value type traps with a message, since it cannot be held weakly. Without
/// `container:` it remembers, when initialised, the container ``Injected`` would resolve through, and
/// ``DIContainer/validate()`` resolves its dependency too, as ``LazyInjected``'s.
///
/// > Important: The first read resolves exactly once, even when many threads read at once. Under a test override
/// > it resolves apart, as ``LazyInjected`` does: what it got there is never read outside the override.
@propertyWrapper
public struct WeakInjected<Service> {
    private let storage: WeakInjection<Service>

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
        let site = PropertySite(wrapper: "@WeakInjected", service: Service.self, name: name, file: file, line: line)
        self.storage = WeakInjection(container: WrapperResolution.home(container), name: name, site: site)
    }

    /// The instance while someone holds it strongly, else `nil`.
    public var wrappedValue: Service? {
        get { storage.value }
        nonmutating set { storage.replace(with: newValue) }
    }
}

extension WeakInjected: Sendable where Service: Sendable {}

/// The shared state of a ``WeakInjected`` property.
final class WeakInjection<Service>: @unchecked Sendable {
    // @unchecked: the reference lives in a slot, behind its lock; the rest is `let` (a weak reference, never set
    // again, is read atomically).
    /// A root strongly, a child weakly: see ``RememberedContainer``.
    private let remembered: RememberedContainer
    private let name: DIContainer.Name?
    private let site: PropertySite
    /// The reference, apart under each test override.
    private let slots: OverrideSlots<WeakReference>

    struct WeakReference {
        weak var object: AnyObject?
    }

    init(container: DIContainer, name: DIContainer.Name?, site: PropertySite) {
        self.remembered = RememberedContainer(container)
        self.name = name
        self.site = site
        self.slots = OverrideSlots(service: Service.self, name: name)
        WrapperResolution.recordLazyDependency(
            Service.self,
            name: name,
            container: container,
            site: site,
            needsAClass: true
        )
    }

    var value: Service? {
        let reference: WeakReference
        do {
            reference = try slots.current.lazyInstance(for: site.description, file: site.file, line: site.line) {
                guard let container = remembered.container else {
                    WrapperResolution.containerReleased(site: site, wasRoot: remembered.isRoot)
                }
                let service = try WrapperResolution.readLazily(site) {
                    try container.resolveThrowing(Service.self, name: name)
                }
                return WeakReference(object: object(service))
            }
        } catch {
            WrapperResolution.trap(error, site: site)
        }
        return reference.object.map { $0 as! Service }
    }

    func replace(with newValue: Service?) {
        slots.current.replace(with: WeakReference(object: newValue.map { object($0) }))
    }

    private func object(_ instance: Service) -> AnyObject {
        guard Swift.type(of: instance as Any) is AnyObject.Type else {
            fatalError(
                "\(WrapperResolution.notAClass(Swift.type(of: instance as Any), for: site))",
                file: site.file,
                line: site.line
            )
        }
        return instance as AnyObject
    }
}
