/// A value in a reference: how a built instance is published for lock-free reads, and how in-progress and
/// graph-scope instances are kept without a dynamic cast (the key or entry guarantees `T`).
final class Box<T> {
    let value: T

    init(_ value: T) {
        self.value = value
    }
}

/// A runtime argument on its way to a factory, with the static type the caller passed.
struct ArgumentBox {
    let value: Any
    let type: Any.Type
}

/// One registration: a service type and name in one container, with its factory and options.
///
/// An entry never changes once it is published in a table: an option on ``Registration`` publishes a changed
/// copy in its place, and the replaced entry stays alive (in its container's `State.entries`) because lock-free
/// readers may still hold it. The only mutable parts are two atomic cells: the built singleton, published for
/// lock-free reads, and the instance slot that guards builds, made on first use.
class EntryBase: @unchecked Sendable {
    // @unchecked: every stored property is a `let`, the factory closures are `@Sendable`, and the two cells are
    // only read and written atomically.
    let key: Key
    let serviceType: Any.Type
    let name: DIContainer.Name?
    let scope: Scope
    let file: StaticString
    let line: UInt
    /// The container whose table holds this entry. Entries never outlive it: it owns them.
    unowned let owner: DIContainer
    let factoryKind: FactoryKind
    /// The sample argument `validate()` builds an argument registration with.
    let validationSample: ArgumentBox?
    let hasProperties: Bool
    /// `[0]`: the built singleton's `Box<T>`; `[1]`: the entry's `InstanceSlot<T>`.
    let cells: ReferenceCell

    enum FactoryKind {
        case plain
        case mainActor
        case argument(expected: Any.Type)
        /// Made by ``Registration/implements(_:name:)``: resolves `target` and converts it.
        case forward(target: Key, targetType: Any.Type, targetName: DIContainer.Name?)
    }

    init(
        key: Key,
        serviceType: Any.Type,
        name: DIContainer.Name?,
        scope: Scope,
        file: StaticString,
        line: UInt,
        owner: DIContainer,
        factoryKind: FactoryKind,
        validationSample: ArgumentBox?,
        hasProperties: Bool
    ) {
        self.key = key
        self.serviceType = serviceType
        self.name = name
        self.scope = scope
        self.file = file
        self.line = line
        self.owner = owner
        self.factoryKind = factoryKind
        self.validationSample = validationSample
        self.hasProperties = hasProperties
        self.cells = ReferenceCells.allocate(2)
    }

    deinit {
        ReferenceCells.deallocate(cells, count: 2)
    }

    /// The registration as a person reads it: `APIClient`, or `Store["live"]` for a named one.
    var label: String { Describe.service(serviceType, name) }

    /// Where the registration was made, as `file:line`.
    var location: String { "\(file):\(line)" }

    var takesArgument: Bool {
        if case .argument = factoryKind { return true }
        return false
    }

    var isForward: Bool {
        if case .forward = factoryKind { return true }
        return false
    }

    var isMainActor: Bool {
        if case .mainActor = factoryKind { return true }
        return false
    }

    /// Drops the instance the entry's own slot caches, if it made one. A published singleton stays published.
    func dropCachedInstance() {}
}

/// A registration of `T`, with its typed factory.
final class Entry<T>: EntryBase, @unchecked Sendable {
    // @unchecked: as for `EntryBase`; the closures are `@Sendable`.
    let make: Make
    let properties: (@Sendable (DIResolver, T) throws -> Void)?

    enum Make {
        case plain(@Sendable (DIResolver) throws -> T)
        case mainActor(@MainActor @Sendable (DIResolver) throws -> T)
        case argument(@Sendable (DIResolver, ArgumentBox) throws -> T)
        case forward(@Sendable (DIResolver, ArgumentBox?) throws -> T)
    }

    init(
        name: DIContainer.Name?,
        scope: Scope,
        file: StaticString,
        line: UInt,
        owner: DIContainer,
        factoryKind: FactoryKind,
        make: Make,
        properties: (@Sendable (DIResolver, T) throws -> Void)? = nil,
        validationSample: ArgumentBox? = nil
    ) {
        self.make = make
        self.properties = properties
        super.init(
            key: Key(T.self, name),
            serviceType: T.self,
            name: name,
            scope: scope,
            file: file,
            line: line,
            owner: owner,
            factoryKind: factoryKind,
            validationSample: validationSample,
            hasProperties: properties != nil
        )
    }

    /// A copy with some options changed, for ``Registration``'s chainable options.
    func with(
        scope: Scope? = nil,
        properties: (@Sendable (DIResolver, T) throws -> Void)?? = nil,
        validationSample: ArgumentBox?? = nil
    ) -> Entry<T> {
        Entry(
            name: name,
            scope: scope ?? self.scope,
            file: file,
            line: line,
            owner: owner,
            factoryKind: factoryKind,
            make: make,
            properties: properties ?? self.properties,
            validationSample: validationSample ?? self.validationSample
        )
    }

    /// The built singleton, read without a lock; `nil` until it is built, and always for other scopes.
    @inline(__always)
    var published: T? {
        cells.loadObject(as: Box<T>.self)?.value
    }

    /// The slot that guards builds of this entry's shared instance, made on first use.
    var slot: InstanceSlot<T> {
        if let slot = (cells + 1).loadObject(as: InstanceSlot<T>.self) {
            return slot
        }
        let made = InstanceSlot<T>(
            service: serviceType,
            name: name,
            holdsWeakly: scope.kind == .weak,
            publishTo: scope.kind == .singleton && !isMainActor ? cells : nil
        )
        return (cells + 1).publishOnce(made)
    }

    override func dropCachedInstance() {
        (cells + 1).loadObject(as: InstanceSlot<T>.self)?.reset()
    }
}
