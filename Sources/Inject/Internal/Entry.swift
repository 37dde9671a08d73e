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
final class ArgumentBox: @unchecked Sendable {
    // @unchecked: every property is a `let`; the value goes to the factory of the resolve that passed it, once, as
    // a synchronous resolve hands it, whichever task of the async resolution runs that factory.
    let value: Any
    let type: Any.Type
    /// The sample this one replaced, kept alive for readers that may still hold it (validation samples only).
    let previous: ArgumentBox?

    init(value: Any, type: Any.Type, previous: ArgumentBox? = nil) {
        self.value = value
        self.type = type
        self.previous = previous
    }
}

/// The `implements` forwards of a registration chain that is still open. Only the configuring thread touches it.
final class ForwardList {
    var entries: [EntryBase] = []
}

/// An `onRelease` closure, boxed for an atomic cell.
final class ReleaseBox<T> {
    let body: @Sendable (T) -> Void
    /// The box this one replaced, kept alive for readers that may still hold it.
    let previous: ReleaseBox<T>?

    init(_ body: @escaping @Sendable (T) -> Void, previous: ReleaseBox<T>?) {
        self.body = body
        self.previous = previous
    }
}

/// A `resolveProperties` closure, boxed for an atomic cell.
final class PropertiesBox<T> {
    let body: @Sendable (DIResolver, T) throws -> Void
    /// The box this one replaced, kept alive for readers that may still hold it.
    let previous: PropertiesBox<T>?

    init(_ body: @escaping @Sendable (DIResolver, T) throws -> Void, previous: PropertiesBox<T>?) {
        self.body = body
        self.previous = previous
    }
}

/// One registration: a service type and name in one container, with its factory and options.
///
/// Its identity (key, type, name, factory, where it was registered) never changes. Its options do, through
/// ``Registration`` right after `register`: they live in atomic cells, so that setting one allocates nothing (a
/// scope is an integer code) and lock-free readers see either the old or the new value. The other cells hold the
/// built singleton, published for lock-free reads, and the instance slot that guards builds, made on first use.
@usableFromInline
class EntryBase: @unchecked Sendable {
    // @unchecked: every other stored property is a `let`, the factory closures are `@Sendable`, and the cells are
    // only read and written atomically (the forward list in one of them only by the thread configuring the entry).

    /// The atomic cells, see ``Cell``, inline in the object: one allocation a registration instead of two, and one
    /// load less on every read. The first stored property, so that ``cells`` finds it where the stored properties
    /// begin (the technique of swift-atomics' `ManagedAtomic`); `EntryTests` checks that the two agree. Never read
    /// or written as a Swift property after `init`, only through ``cells``.
    private var cellStorage: CellStorage
    let key: Key
    let serviceType: Any.Type
    let name: DIContainer.Name?
    let file: StaticString
    let line: UInt
    /// The container whose table holds this entry. Unowned and unchecked: the container owns its entries, and every
    /// other holder of an entry (a ``Registration``, an overlay) also holds the container.
    unowned(unsafe) let owner: DIContainer
    let factoryKind: FactoryKind
    let argumentRule: ArgumentRule
    /// For an argument registration whose argument is `Hashable`: how a caching scope keys its instances.
    let argumentKeying: ArgumentKeying?
    /// Whether the factory is async: a synchronous resolve only reads its instance once an async resolution built it.
    /// Stored, as every build asks: matching ``factoryKind`` would copy its payload.
    let isAsync: Bool
    /// Whether the factory runs on the main actor.
    let isMainActor: Bool
    /// The atomic cells, see ``Cell``: the address of ``cellStorage``.
    @inline(__always)
    var cells: ReferenceCell {
        _getUnsafePointerToStoredProperties(self).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    }

    /// Room for ``Cell/count`` cells.
    typealias CellStorage = (
        UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?,
        UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?,
        UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?,
        UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?
    )

    /// Whether ``cells`` is where the compiler put ``cellStorage``: the layout ``cells`` relies on.
    var cellsAreInline: Bool {
        withUnsafeMutablePointer(to: &cellStorage) { UnsafeMutableRawPointer($0) == UnsafeMutableRawPointer(cells) }
            && MemoryLayout<CellStorage>.size == Cell.count * MemoryLayout<UnsafeMutableRawPointer?>.stride
    }

    @usableFromInline
    enum FactoryKind {
        case plain
        /// Made by `register(autowired:)`: a plain factory that resolves every parameter of an initializer by type,
        /// which error messages say, with the parameters' types as one tuple type (no allocation at registration;
        /// ``Describe/elements(of:count:)`` takes it apart) and how many there are.
        case autowired(parameters: Any.Type, count: Int)
        case mainActor
        /// An async factory: built only by an async resolution (`resolveAsync`, `warmUp()`).
        case async
        case argument(expected: Any.Type, keying: ArgumentKeying?)
        /// Made by ``Registration/implements(_:name:)``: resolves `target` and converts it.
        case forward(target: Key, targetType: Any.Type, targetName: DIContainer.Name?)
    }

    /// What a resolve of this entry must pass as a runtime argument.
    enum ArgumentRule {
        /// Nothing: the factory takes no argument.
        case none
        /// An argument: the factory takes one.
        case required
        /// Whatever the caller passed, handed on to the forwarded registration.
        case passThrough
    }

    /// What each cell holds.
    enum Cell {
        /// The built singleton, as raw storage of a `T` (freed by ``Entry``).
        static let published = 0
        /// The ``InstanceSlot``, retained.
        static let slot = 1
        /// `Box<T>`'s metatype, cached on first use.
        static let boxType = 2
        /// The scope's ``Scope/code``, as the bits of a pointer.
        static let scope = 3
        /// The ``PropertiesBox``, retained.
        static let properties = 4
        /// The validation sample's ``ArgumentBox``, retained.
        static let sample = 5
        /// Non-null once a container made a `.scoped` slot for this entry (a mark, not a pointer).
        static let scopedMark = 6
        /// While the registration chain is open: the registering task, or thread context outside any task (see
        /// `Entry+Configuring.swift`).
        static let maker = 7
        /// The ``ReleaseBox``, retained.
        static let release = 8
        /// Non-null once ``Registration/eager()`` was called (a mark, not a pointer).
        static let eager = 9
        /// The entry this one replaced in the same container, unretained (see ``previous``).
        static let previous = 10
        /// The registration order, as the bits of a pointer (see ``order``).
        static let order = 11
        /// The ``ForwardList``, retained, while the chain that published forwards is open.
        static let forwards = 12
        /// The ``PublishedArguments`` of a `.singleton` argument registration, retained, made on first publish.
        static let publishedArguments = 13
        /// The ``label``, boxed and retained, made on first use.
        static let label = 14
        /// Non-null once a registration of the same key replaced this one (a mark, not a pointer: bit 1 set, and
        /// bit 2 too when the replacement dropped an instance this one had built, for `validate()`'s warning).
        static let replaced = 15
        static let count = 16
    }

    /// The entry this one replaced in the same container, if any: what other threads resolve while this one's
    /// registration chain is open. Written once, under the container's lock, before the entry is published; the
    /// container keeps every entry it published alive, so the reference is unretained. In a cell, not a stored
    /// `var`, so that reading it costs no exclusivity check.
    var previous: EntryBase? {
        get {
            c_inject_load_acquire(cells + Cell.previous).map {
                Unmanaged<EntryBase>.fromOpaque($0).takeUnretainedValue()
            }
        }
        set { c_inject_store_release(cells + Cell.previous, newValue.map { Unmanaged.passUnretained($0).toOpaque() }) }
    }

    /// Where the registration comes in its container's registration order: the first registration of its key, so
    /// that a re-registration keeps its place. Written once, under the container's lock, before it is published.
    var order: Int {
        get { Int(bitPattern: c_inject_load_acquire(cells + Cell.order)) }
        set { c_inject_store_release(cells + Cell.order, UnsafeMutableRawPointer(bitPattern: newValue)) }
    }

    /// Adds an `implements` forward that its registration chain published, which ends its configuration with it.
    /// Only the configuring thread calls it, while the chain is open.
    func addForward(_ forward: EntryBase) {
        let list =
            (cells + Cell.forwards).loadObject(as: ForwardList.self)
            ?? (cells + Cell.forwards).publishOnce(ForwardList())
        list.entries.append(forward)
    }

    /// Takes the forwards ``addForward(_:)`` added.
    func takeForwards() -> [EntryBase] {
        guard let list = (cells + Cell.forwards).loadObject(as: ForwardList.self) else { return [] }
        let forwards = list.entries
        list.entries = []
        return forwards
    }

    init(
        key: Key,
        serviceType: Any.Type,
        name: DIContainer.Name?,
        scope: Scope,
        file: StaticString,
        line: UInt,
        owner: DIContainer,
        factoryKind: FactoryKind
    ) {
        self.cellStorage = (nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)
        self.key = key
        self.serviceType = serviceType
        self.name = name
        self.file = file
        self.line = line
        self.owner = owner
        self.factoryKind = factoryKind
        if case .async = factoryKind { self.isAsync = true } else { self.isAsync = false }
        if case .mainActor = factoryKind { self.isMainActor = true } else { self.isMainActor = false }
        switch factoryKind {
        case .plain, .autowired, .mainActor, .async:
            self.argumentRule = .none
            self.argumentKeying = nil
        case .argument(_, let keying):
            self.argumentRule = .required
            self.argumentKeying = keying
        case .forward:
            self.argumentRule = .passThrough
            self.argumentKeying = nil
        }
        cells[Cell.scope] = UnsafeMutableRawPointer(bitPattern: scope.code)
    }

    deinit {
        (cells + Cell.slot).releaseObject()
        (cells + Cell.properties).releaseObject()
        (cells + Cell.sample).releaseObject()
        (cells + Cell.release).releaseObject()
        (cells + Cell.forwards).releaseObject()
        (cells + Cell.publishedArguments).releaseObject()
        (cells + Cell.label).releaseObject()
    }

    // MARK: Options

    /// The scope's code, read atomically.
    @inline(__always)
    var scopeCode: Int {
        Int(bitPattern: c_inject_load_acquire(cells + Cell.scope))
    }

    /// The current scope.
    var scope: Scope { Scope(code: scopeCode) }

    /// Sets the scope. ``Registration`` checks first that no shared instance was made under the old one.
    func setScope(_ scope: Scope) {
        c_inject_store_release(cells + Cell.scope, UnsafeMutableRawPointer(bitPattern: scope.code))
    }

    /// Whether a shared instance was made or asked for, here or, for `.scoped`, in any container: after that,
    /// changing the scope would be ignored.
    var hasSharedInstance: Bool {
        publishedStorage != nil || c_inject_load_acquire(cells + Cell.slot) != nil
            || c_inject_load_acquire(cells + Cell.scopedMark) != nil
    }

    /// Records that a container made a `.scoped` slot for this entry.
    func markScopedSlotMade() {
        c_inject_store_release(cells + Cell.scopedMark, UnsafeMutableRawPointer(bitPattern: 1))
    }

    /// Whether a `resolveProperties` closure is set: one load, no metadata for the closure's box.
    @inline(__always)
    var hasProperties: Bool { c_inject_load_acquire(cells + Cell.properties) != nil }

    /// The sample argument `validate()` builds an argument registration with.
    var validationSample: ArgumentBox? {
        (cells + Cell.sample).loadObject(as: ArgumentBox.self)
    }

    /// What `validate()` builds this entry with, found in `owner`: its own sample, or, for an `implements` forward,
    /// the sample of the registration it forwards to (which takes the argument the forward passes on).
    ///
    /// A test override of an argument registration without a sample of its own is built with the sample of the
    /// registration it replaces for a resolve through `container` (`owner` when not given), when that takes the
    /// same argument type: `expectValid` under overrides checks it as it checks the app.
    func validationSample(in owner: DIContainer, through container: DIContainer? = nil) -> ArgumentBox? {
        validationSample ?? forwarded(in: owner)?.validationSample ?? replacedSample(through: container ?? owner)
    }

    /// The sample of the registration of the same key that a resolve through `container` finds without test
    /// overrides (through its `implements` forwards), when it is another one, taking the same argument type.
    private func replacedSample(through container: DIContainer) -> ArgumentBox? {
        guard takesArgument, let expected = expectedArgument else { return nil }
        let thread = ResolutionContext.currentPointer
        var found = container.lookupVisible(key, from: thread)
        for _ in 0..<8 {
            guard let (entry, home) = found.map({ ($0.entry.takeUnretainedValue(), $0.owner.takeUnretainedValue()) }),
                entry !== self
            else { return nil }
            if let sample = entry.validationSample {
                let sameType = entry.expectedArgument.map(ObjectIdentifier.init) == ObjectIdentifier(expected)
                return sameType ? sample : nil
            }
            guard let target = entry.forwardTarget else { return nil }
            found = home.lookupVisible(target.key, from: thread)
        }
        return nil
    }

    /// Whether this is an `implements` forward to a registration that takes a runtime argument: `validate()` builds
    /// it only with that registration's sample.
    func forwardsAnArgument(in owner: DIContainer) -> Bool {
        forwarded(in: owner)?.takesArgument == true
    }

    /// The registration at the end of this forward's chain, as a resolve through `owner` finds it (test overrides
    /// first); `nil` when this is no forward.
    func forwarded(in owner: DIContainer) -> EntryBase? {
        guard isForward else { return nil }
        var entry: EntryBase = self
        var container = owner
        for _ in 0..<8 {
            guard let target = entry.forwardTarget, let found = container.findSeeingOverrides(target.key) else {
                break
            }
            (entry, container) = found
        }
        return entry === self ? nil : entry
    }

    /// Sets the validation sample; the previous one stays alive inside the new box.
    func setValidationSample(value: Any, type: Any.Type) {
        let box = ArgumentBox(value: value, type: type, previous: validationSample)
        _ = (cells + Cell.sample).replaceObject(with: box, as: ArgumentBox.self)
    }

    // MARK: State

    /// The built singleton's storage, read without a lock; `nil` until it is built, and always for other scopes.
    @inline(__always)
    var publishedStorage: UnsafeMutableRawPointer? {
        c_inject_load_acquire(cells + Cell.published)
    }

    // MARK: Description

    /// The registration as a person reads it: `APIClient`, or `Store["live"]` for a named one. Made once and kept:
    /// describing a type costs dynamic casts, and build events name every build.
    var label: String {
        if let box = (cells + Cell.label).loadObject(as: Box<String>.self) {
            return box.value
        }
        return (cells + Cell.label).publishOnce(Box(Describe.service(serviceType, name))).value
    }

    /// Where the registration was made, as `file:line`.
    var location: String { "\(file):\(line)" }

    var takesArgument: Bool { argumentRule == .required }

    var isForward: Bool { argumentRule == .passThrough }

    /// The registration a forward of ``Registration/implements(_:name:)`` resolves, and its type.
    var forwardTarget: (key: Key, type: Any.Type)? {
        if case .forward(let target, let targetType, _) = factoryKind { return (target, targetType) }
        return nil
    }

    /// The argument type of an argument registration.
    var expectedArgument: Any.Type? {
        if case .argument(let expected, _) = factoryKind { return expected }
        return nil
    }

    /// Whether ``Registration/onRelease(_:)`` set a closure.
    var hasReleaseHook: Bool { c_inject_load_acquire(cells + Cell.release) != nil }

    /// Whether ``Registration/eager()`` marked it for `warmUp()`.
    var isEager: Bool { c_inject_load_acquire(cells + Cell.eager) != nil }

    /// Whether a registration of the same key replaced this one: its factory never runs again (a resolve that
    /// found it before gets the replacement instead).
    @inline(__always)
    var isReplaced: Bool { c_inject_load_acquire(cells + Cell.replaced) != nil }

    /// Whether a registration of the same key replaced this one after it had built an instance, which was dropped
    /// (whoever got it keeps it, and the next resolve builds another).
    var droppedInstanceWhenReplaced: Bool {
        Int(bitPattern: c_inject_load_acquire(cells + Cell.replaced)) & 2 != 0
    }

    /// Marks it replaced; `droppedInstance` when its replacement dropped an instance it had built.
    func markReplaced(droppedInstance: Bool) {
        c_inject_store_release(cells + Cell.replaced, UnsafeMutableRawPointer(bitPattern: droppedInstance ? 3 : 1))
    }

    /// Marks it for `warmUp()`.
    func markEager() {
        c_inject_store_release(cells + Cell.eager, UnsafeMutableRawPointer(bitPattern: 1))
    }

    /// The storage of the published `.singleton` instance this argument registration built for `argument`, if any:
    /// the fast path of a resolve with an argument, with no boxing, no dynamic cast and no generic metadata of the
    /// service type.
    @inline(__always)
    func publishedArgumentStorage<Argument>(for argument: Argument) -> UnsafeMutableRawPointer? {
        guard let raw = c_inject_load_acquire(cells + Cell.publishedArguments),
            let keying = argumentKeying, keying.type == ObjectIdentifier(Argument.self)
        else { return nil }
        // Unretained: the entry holds the table for as long as it lives, and the caller holds the entry.
        return Unmanaged<PublishedArguments>.fromOpaque(raw)._withUnsafeGuaranteedRef { published in
            withUnsafePointer(to: argument) { published.storage(at: UnsafeRawPointer($0), keying) }
        }
    }

    /// Drops the instance the entry's own slot caches, if it made one. A published singleton stays published.
    final func dropCachedInstance() {
        var batch = ReleaseBatch()
        addCachedInstance(to: &batch, retiring: false)
        batch.release()
    }

    /// Adds the instance(s) the entry's own slot caches, if it made one, to `batch`: see ``InstanceCache``.
    func addCachedInstance(to batch: inout ReleaseBatch, retiring: Bool) {}

    /// Drops the cached instance for good: a later registration replaced this one. Resolves that still reach this
    /// entry resolve its replacement instead of running this factory again.
    @discardableResult
    func retireCachedInstance() -> Bool { false }

    /// Builds the entry for `validate()`, as a resolve through `container` would. Overridden by ``Entry``.
    func validate(in context: ResolutionContext, owner: DIContainer, through container: DIContainer) throws {}

    /// Builds the entry as a top-level async resolve through `container` would, with `argument`: for `warmUp()`
    /// and `validateAsync()`. Overridden by ``Entry``.
    func buildAsync(
        in resolution: AsyncResolution,
        owner: DIContainer,
        through container: DIContainer,
        argument: ArgumentBox?
    ) async throws {}

    /// Whether this registration has a shared instance built (for `warmUp()`, which builds only what is not).
    func isBuilt(in container: DIContainer) -> Bool { false }

    /// Whether `overlay` holds a shared instance of this registration, owned by `owner`, for a resolve through
    /// `container` (for `warmUp()` under test overrides, which keep their own instances).
    func isBuilt(in container: DIContainer, owner: DIContainer, under overlay: Overlay) -> Bool { false }
}

/// A registration of `T`, with its typed factory.
@usableFromInline
final class Entry<T>: EntryBase, @unchecked Sendable {
    // @unchecked: as for `EntryBase`; the closures are `@Sendable`.

    /// The factory, whatever its kind, behind one signature: a plain `{ r in ... }` factory is stored and called
    /// as it is. Argument registrations and forwards take their argument from ``ResolutionContext/takeArgument()``;
    /// `mainActorFactory` ones check the actor.
    let make: Make
    /// The async factory of an async registration; `make` then only reports that it is not built.
    let makeAsync: MakeAsync?

    @usableFromInline
    typealias Make = @Sendable (DIResolver) throws -> T

    @usableFromInline
    typealias MakeAsync = @Sendable (DIResolver) async throws -> T

    @usableFromInline
    init(
        name: DIContainer.Name?,
        scope: Scope,
        file: StaticString,
        line: UInt,
        owner: DIContainer,
        factoryKind: FactoryKind,
        make: @escaping Make,
        makeAsync: MakeAsync? = nil
    ) {
        self.make = make
        self.makeAsync = makeAsync
        super.init(
            key: Key(T.self, name),
            serviceType: T.self,
            name: name,
            scope: scope,
            file: file,
            line: line,
            owner: owner,
            factoryKind: factoryKind
        )
    }

    deinit {
        if let storage = cells[Cell.published] {
            let value = storage.assumingMemoryBound(to: T.self)
            value.deinitialize(count: 1)
            value.deallocate()
        }
    }

    /// The `resolveProperties` closure, if one is set. Check ``EntryBase/hasProperties`` first: this looks up the
    /// box's metadata.
    var properties: (@Sendable (DIResolver, T) throws -> Void)? {
        (cells + Cell.properties).loadObject(as: PropertiesBox<T>.self)?.body
    }

    /// The `onRelease` closure, if one is set.
    var releaseBody: (@Sendable (T) -> Void)? {
        (cells + Cell.release).loadObject(as: ReleaseBox<T>.self)?.body
    }

    /// Adds an `onRelease` closure, run after those set before.
    func addRelease(_ body: @escaping @Sendable (T) -> Void) {
        let previous = (cells + Cell.release).loadObject(as: ReleaseBox<T>.self)
        let combined: @Sendable (T) -> Void
        if let earlier = previous?.body {
            combined = { instance in
                earlier(instance)
                body(instance)
            }
        } else {
            combined = body
        }
        _ = (cells + Cell.release).replaceObject(with: ReleaseBox(combined, previous: previous), as: ReleaseBox<T>.self)
    }

    /// Makes a slot for one shared instance of this registration, under the scope whose code is `code`. `onRelease`
    /// goes with it only for a caching scope: a `.graph` or `.transient` slot (validation's memo, an async
    /// resolution's graph instance) never releases anything, as those scopes never do.
    func makeSlot(_ code: Int, publishTo: ReferenceCell? = nil) -> InstanceSlot<T> {
        let storage = Scope.storage(ofCode: code)
        return InstanceSlot<T>(
            service: serviceType,
            name: name,
            holdsWeakly: code == Scope.Code.weak,
            publishTo: publishTo,
            onRelease: storage == .registration || storage == .resolvingContainer ? releaseBody : nil
        )
    }

    /// Adds a `resolveProperties` closure, run after those set before.
    func addProperties(_ body: @escaping @Sendable (DIResolver, T) throws -> Void) {
        let previous = (cells + Cell.properties).loadObject(as: PropertiesBox<T>.self)
        let combined: @Sendable (DIResolver, T) throws -> Void
        if let earlier = previous?.body {
            combined = { resolver, instance in
                try earlier(resolver, instance)
                try body(resolver, instance)
            }
        } else {
            combined = body
        }
        let box = PropertiesBox(combined, previous: previous)
        _ = (cells + Cell.properties).replaceObject(with: box, as: PropertiesBox<T>.self)
    }

    /// Boxes a value without looking up `Box<T>`'s metadata, after the first time.
    @inline(__always)
    func box(_ value: T) -> Box<T> {
        if let raw = c_inject_load_acquire(cells + Cell.boxType) {
            return unsafeBitCast(raw, to: Box<T>.Type.self).init(value)
        }
        return boxType().init(value)
    }

    @inline(never)
    private func boxType() -> Box<T>.Type {
        let type = Box<T>.self
        c_inject_store_release(cells + Cell.boxType, unsafeBitCast(type, to: UnsafeMutableRawPointer.self))
        return type
    }

    /// The slot that guards builds of this entry's shared instance, made on first use, for the scope whose code is
    /// `code` (the one the build read).
    func slot(_ code: Int) -> InstanceSlot<T> {
        if let slot = (cells + Cell.slot).loadObject(as: InstanceSlot<T>.self) {
            return slot
        }
        let made = makeSlot(
            code,
            publishTo: code == Scope.Code.singleton && !isMainActor ? cells + Cell.published : nil
        )
        return (cells + Cell.slot).publishOnce(made)
    }

    override func retireCachedInstance() -> Bool {
        // Also when nothing was built yet: a resolve that found this entry just before its replacement must not
        // build it afterwards, into a cache that nothing would ever release.
        let code = scopeCode
        if Scope.storage(ofCode: code) == .resolvingContainer {
            // The registering container's own `.scoped` instance goes with the registration. A child's stays until
            // the child is released (a container does not know its children); nothing resolves the old entry again.
            return owner.dropScoped(self)
        }
        guard Scope.storage(ofCode: code) == .registration else { return false }
        if argumentKeying != nil {
            return argumentCache(code).retire()
        } else {
            return slot(code).retire()
        }
    }

    override func addCachedInstance(to batch: inout ReleaseBatch, retiring: Bool) {
        if argumentKeying != nil {
            (cells + Cell.slot).loadObject(as: ArgumentCache<T>.self)?.addSlots(to: &batch, retiring: retiring)
        } else {
            (cells + Cell.slot).loadObject(as: InstanceSlot<T>.self)?.addSlots(to: &batch, retiring: retiring)
        }
    }

    /// The per-argument-value instances of this argument registration, made on first use, for the scope whose code
    /// is `code`. In the slot's cell: an entry keeps either a slot or an argument cache there, never both.
    func argumentCache(_ code: Int) -> ArgumentCache<T> {
        if let cache = (cells + Cell.slot).loadObject(as: ArgumentCache<T>.self) {
            return cache
        }
        return (cells + Cell.slot).publishOnce(ArgumentCache { [unowned self] in self.makeSlot(code) })
    }

    /// Publishes the `.singleton` instance built for `argument`, for the fast path of a resolve with an argument.
    func publishArgumentInstance(_ value: T, for argument: ArgumentBox) {
        guard let keying = argumentKeying else { return }
        let published =
            (cells + Cell.publishedArguments).loadObject(as: PublishedArguments.self)
            ?? (cells + Cell.publishedArguments).publishOnce(PublishedArguments(of: T.self))
        published.publish(value, for: argument, keying)
    }

    override func validate(in context: ResolutionContext, owner: DIContainer, through container: DIContainer) throws {
        try context.validate(self, owner: owner, through: container)
    }

    override func buildAsync(
        in resolution: AsyncResolution,
        owner: DIContainer,
        through container: DIContainer,
        argument: ArgumentBox?
    ) async throws {
        _ = try await resolution.instance(of: self, owner: owner, through: container, argument, parent: nil)
    }

    override func isBuilt(in container: DIContainer) -> Bool {
        let code = scopeCode
        switch Scope.storage(ofCode: code) {
        case .none, .graph:
            return false
        case .registration:
            return publishedStorage != nil || (cells + Cell.slot).loadObject(as: InstanceSlot<T>.self)?.current != nil
        case .resolvingContainer:
            return container.existingScopedSlot(for: self)?.current != nil
        }
    }

    override func isBuilt(in container: DIContainer, owner: DIContainer, under overlay: Overlay) -> Bool {
        let code = scopeCode
        switch Scope.storage(ofCode: code) {
        case .none, .graph:
            return false
        case .registration, .resolvingContainer:
            let home = Scope.resolvesFromOwner(code) ? owner : container
            return (overlay.existingSlot(for: self, home: home) as? InstanceSlot<T>)?.current != nil
        }
    }
}
