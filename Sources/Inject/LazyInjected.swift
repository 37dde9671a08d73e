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
/// The projected value (`$analytics`) offers ``isResolved`` and ``reset()``.
///
/// > Important: The first read resolves the service exactly once, even when many threads read it at once; the
/// > others wait for that resolve and get the same instance. A failure traps with the whole ``ResolutionError``
/// > text. Copies of the wrapper share one instance.
@propertyWrapper
public struct LazyInjected<Service> {
    private let storage: LazyInjection<Service>

    /// Prepares the property; nothing is resolved until the first read.
    ///
    /// - Parameters:
    ///   - name: The registration's name, or `nil` for the unnamed one.
    ///   - container: The container to resolve from; ``DIContainer/shared`` by default.
    public init(name: DIContainer.Name? = nil, container: DIContainer = .shared) {
        self.storage = LazyInjection(container: container, name: name)
    }

    /// The instance, resolved on first read.
    public var wrappedValue: Service {
        storage.value
    }

    /// The wrapper itself, for ``isResolved`` and ``reset()``.
    public var projectedValue: LazyInjected<Service> {
        self
    }

    /// Whether the service has been resolved (and not reset since).
    public var isResolved: Bool {
        storage.slot.current != nil
    }

    /// Forgets the instance; the next read resolves again.
    public func reset() {
        storage.slot.reset()
    }
}

extension LazyInjected: Sendable where Service: Sendable {}

/// The shared state of a ``LazyInjected`` property.
final class LazyInjection<Service>: @unchecked Sendable {
    // @unchecked: the instance lives in the slot, behind its lock; the rest is `let`.
    let container: DIContainer
    let name: DIContainer.Name?
    let slot: InstanceSlot<Service>

    init(container: DIContainer, name: DIContainer.Name?) {
        self.container = container
        self.name = name
        self.slot = InstanceSlot(service: Service.self, name: name)
    }

    var value: Service {
        do {
            return try slot.lazyInstance(for: "@LazyInjected \(slot.label)") {
                try container.resolveThrowing(Service.self, name: name)
            }
        } catch {
            fatalError(String(describing: error))
        }
    }
}
