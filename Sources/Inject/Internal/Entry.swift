import CInjectShims

/// A value in a reference, for graph-scope and in-progress instances. Made through a metatype the entry caches
/// (``Entry/box(_:)``), so that unspecialised code does not look up `Box<T>`'s metadata on every build.
final class Box<T> {
    let value: T

    required init(_ value: T) {
        self.value = value
    }
}

/// A runtime argument on its way to a factory, with the static type the caller passed. A class, so that "no
/// argument" is a null pointer on the hot path.
final class ArgumentBox {
    let value: Any
    let type: Any.Type

    init(value: Any, type: Any.Type) {
        self.value = value
        self.type = type
    }
}

/// One registration: a service type and name in one container, with its factory and options.
///
/// An entry never changes once it is published in a table: an option on ``Registration`` publishes a changed
/// copy in its place, and the replaced entry stays alive (in its container's `State.entries`) because lock-free
/// readers may still hold it. The only mutable parts are two atomic cells: the built singleton's storage, published
/// for lock-free reads, and the instance slot that guards builds, made on first use.
class EntryBase: @unchecked Sendable {
    // @unchecked: every stored property is a `let`, the factory closures are `@Sendable`, and the two cells are
    // only read and written atomically.
    let key: Key
    let serviceType: Any.Type
    let name: DIContainer.Name?
    let scope: Scope
    let file: StaticString
    let line: UInt
    /// The container whose table holds this entry. Unowned and unchecked: the container owns its entries, and every
    /// other holder of an entry (a ``Registration``, an overlay) also holds the container.
    unowned(unsafe) let owner: DIContainer
    let factoryKind: FactoryKind
    /// The sample argument `validate()` builds an argument registration with.
    let validationSample: ArgumentBox?
    let hasProperties: Bool
    /// `[0]`: the built singleton, as raw storage of a `T` (freed by ``Entry``); `[1]`: the ``InstanceSlot``;
    /// `[2]`: `Box<T>`'s metatype, cached on first use.
    let cells: ReferenceCell

    // Derived once, so that the hot path reads a byte instead of switching on (and copying) `Scope` and
    // `FactoryKind`, whose payloads hold strings.
    let storage: Scope.Storage
    let resolvesFromOwner: Bool
    let holdsWeakly: Bool
    let argumentRule: ArgumentRule

    /// What a resolve of this entry must pass as a runtime argument.
    enum ArgumentRule {
        /// Nothing: the factory takes no argument.
        case none
        /// An argument: the factory takes one.
        case required
        /// Whatever the caller passed, handed on to the forwarded registration.
        case passThrough
    }

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
        self.cells = ReferenceCells.allocate(3)
        self.storage = scope.storage
        self.resolvesFromOwner = scope.resolvesFromOwner
        self.holdsWeakly = scope.kind == .weak
        switch factoryKind {
        case .plain, .mainActor: self.argumentRule = .none
        case .argument: self.argumentRule = .required
        case .forward: self.argumentRule = .passThrough
        }
    }

    deinit {
        if let slot = cells[1] {
            Unmanaged<AnyObject>.fromOpaque(slot).release()
        }
        ReferenceCells.free(cells, count: 3)
    }

    /// The built singleton's storage, read without a lock; `nil` until it is built, and always for other scopes.
    @inline(__always)
    var publishedStorage: UnsafeMutableRawPointer? {
        c_inject_load_acquire(cells)
    }

    /// The registration as a person reads it: `APIClient`, or `Store["live"]` for a named one.
    var label: String { Describe.service(serviceType, name) }

    /// Where the registration was made, as `file:line`.
    var location: String { "\(file):\(line)" }

    var takesArgument: Bool { argumentRule == .required }

    var isForward: Bool { argumentRule == .passThrough }

    /// The argument type of an argument registration.
    var expectedArgument: Any.Type? {
        if case .argument(let expected) = factoryKind { return expected }
        return nil
    }

    var isMainActor: Bool {
        if case .mainActor = factoryKind { return true }
        return false
    }

    /// Drops the instance the entry's own slot caches, if it made one. A published singleton stays published.
    func dropCachedInstance() {}

    /// Builds the entry for `validate()`, as a resolve through `container` would. Overridden by ``Entry``.
    func validate(in context: ResolutionContext, owner: DIContainer, through container: DIContainer) throws {}
}

/// A registration of `T`, with its typed factory.
final class Entry<T>: EntryBase, @unchecked Sendable {
    // @unchecked: as for `EntryBase`; the closures are `@Sendable`.
    /// The factory, whatever its kind, behind one signature: a plain `{ r in ... }` factory is stored and called
    /// as it is. Argument registrations and forwards take their argument from ``ResolutionContext/takeArgument()``;
    /// `mainActorFactory` ones check the actor.
    let make: Make
    let properties: (@Sendable (DIResolver, T) throws -> Void)?

    typealias Make = @Sendable (DIResolver) throws -> T

    init(
        name: DIContainer.Name?,
        scope: Scope,
        file: StaticString,
        line: UInt,
        owner: DIContainer,
        factoryKind: FactoryKind,
        make: @escaping Make,
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

    deinit {
        if let storage = cells[0] {
            let value = storage.assumingMemoryBound(to: T.self)
            value.deinitialize(count: 1)
            value.deallocate()
        }
    }

    /// A copy with some options changed, for ``Registration``'s chainable options.
    func with(
        scope: Scope? = nil,
        properties: (@Sendable (DIResolver, T) throws -> Void)?? = nil,
        validationSample: ArgumentBox?? = nil
    ) -> Entry<T> {
        // `type(of: self)`: the metadata this instance already has, not a lookup of `Entry<T>`'s.
        type(of: self).init(
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

    /// Boxes a value without looking up `Box<T>`'s metadata, after the first time.
    @inline(__always)
    func box(_ value: T) -> Box<T> {
        if let raw = c_inject_load_acquire(cells + 2) {
            return unsafeBitCast(raw, to: Box<T>.Type.self).init(value)
        }
        return boxType().init(value)
    }

    @inline(never)
    private func boxType() -> Box<T>.Type {
        let type = Box<T>.self
        c_inject_store_release(cells + 2, unsafeBitCast(type, to: UnsafeMutableRawPointer.self))
        return type
    }

    /// The slot that guards builds of this entry's shared instance, made on first use.
    var slot: InstanceSlot<T> {
        if let slot = (cells + 1).loadObject(as: InstanceSlot<T>.self) {
            return slot
        }
        let made = InstanceSlot<T>(
            service: serviceType,
            name: name,
            holdsWeakly: holdsWeakly,
            publishTo: scope.kind == .singleton && !isMainActor ? cells : nil
        )
        return (cells + 1).publishOnce(made)
    }

    override func dropCachedInstance() {
        (cells + 1).loadObject(as: InstanceSlot<T>.self)?.reset()
    }

    override func validate(in context: ResolutionContext, owner: DIContainer, through container: DIContainer) throws {
        try context.validate(self, owner: owner, through: container)
    }
}
