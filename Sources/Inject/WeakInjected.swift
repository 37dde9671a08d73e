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
/// stores a new weak reference. A value type traps with a message, since it cannot be held weakly.
///
/// > Important: The first read resolves exactly once, even when many threads read at once.
@propertyWrapper
public struct WeakInjected<Service> {
    private let storage: WeakInjection<Service>

    /// Prepares the property; nothing is resolved until the first read.
    ///
    /// - Parameters:
    ///   - name: The registration's name, or `nil` for the unnamed one.
    ///   - container: The container to resolve from; ``DIContainer/shared`` by default.
    public init(name: DIContainer.Name? = nil, container: DIContainer = .shared) {
        self.storage = WeakInjection(container: container, name: name)
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
    // @unchecked: the reference lives in the slot, behind its lock; the rest is `let`.
    private let container: DIContainer
    private let name: DIContainer.Name?
    private let slot: InstanceSlot<WeakReference>

    struct WeakReference {
        weak var object: AnyObject?
    }

    init(container: DIContainer, name: DIContainer.Name?) {
        self.container = container
        self.name = name
        self.slot = InstanceSlot(service: Service.self, name: name)
    }

    var value: Service? {
        let reference: WeakReference
        do {
            reference = try slot.lazyInstance(for: "@WeakInjected \(slot.label)") {
                WeakReference(object: Self.object(try container.resolveThrowing(Service.self, name: name), name))
            }
        } catch {
            fatalError(String(describing: error))
        }
        return reference.object.map { $0 as! Service }
    }

    func replace(with newValue: Service?) {
        slot.replace(with: WeakReference(object: newValue.map { Self.object($0, name) }))
    }

    private static func object(_ instance: Service, _ name: DIContainer.Name?) -> AnyObject {
        guard Swift.type(of: instance as Any) is AnyObject.Type else {
            fatalError(
                """
                Inject: @WeakInjected \(Describe.service(Service.self, name)) got a \
                \(Describe.type(Swift.type(of: instance as Any))), which is not a class: a weak reference can only \
                hold a class instance.
                  fix: use @Injected or @LazyInjected for value types.
                """
            )
        }
        return instance as AnyObject
    }
}
