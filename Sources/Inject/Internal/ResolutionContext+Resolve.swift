/// The slow path of a resolve: everything but the read of an already built singleton.
///
/// Steps: find the entry (overlays first, then the container and its parents); check the stack for the same
/// registration (an instance still in `resolveProperties` is handed back, anything else is a cycle); ask the
/// scope for a cached instance or build one. Building pushes a frame, runs the factory and `resolveProperties`
/// with no lock held, and pops the frame, also when they throw.
extension ResolutionContext {
    /// Resolves the service under `key` through `container` as part of this context's resolution.
    ///
    /// - Returns: The instance, or `nil` when nothing is registered and `optional` is set.
    func resolve<T>(
        _ type: T.Type,
        key: Key,
        name: DIContainer.Name?,
        through container: DIContainer,
        argument: ArgumentBox?,
        optional: Bool
    ) throws -> T? {
        guard let (entry, owner) = find(key, through: container) else {
            // A factory parameter of type `W?` infers `T == W?`: fall back to `W`'s registration.
            if let wrapped = T.self as? any OptionalService.Type,
                let value = try wrapped.resolveWrapped(in: self, name: name, through: container, argument: argument)
            {
                return (value as! T)
            }
            if optional {
                return nil
            }
            throw notRegistered(type, name: name, through: container)
        }
        return try instance(of: unsafeDowncast(entry, to: Entry<T>.self), owner: owner, through: container, argument)
    }

    /// The entry under `key` for a resolve through `container`, with the container that owns it.
    func find(_ key: Key, through container: DIContainer) -> (EntryBase, DIContainer)? {
        if let overlay, let found = overlay.find(key, through: container) {
            return found
        }
        var current = container
        while true {
            if let entry = current.table.find(key) {
                return (entry, current)
            }
            guard let parent = current.parent else { return nil }
            current = parent
        }
    }

    private func instance<T>(
        of entry: Entry<T>,
        owner: DIContainer,
        through container: DIContainer,
        _ argument: ArgumentBox?
    ) throws -> T {
        try checkArgument(of: entry, argument)
        // Singletons and other shared instances take their dependencies from the container that owns the
        // registration; the rest from the container the resolve went through, so that a child's registrations win.
        let home = entry.scope.resolvesFromOwner ? owner : container
        if let index = frames.lastIndex(where: { $0.entry === entry && $0.container === home }) {
            if let inProgress = frames[index].inProgress {
                return unsafeDowncast(inProgress, to: Box<T>.self).value
            }
            throw cycle(at: index, closedBy: entry)
        }
        switch entry.scope.storage {
        case .none:
            return try build(entry, in: home, argument)
        case .graph:
            let key = GraphKey(entry: ObjectIdentifier(entry), container: ObjectIdentifier(home))
            if let box = graph[key] {
                return unsafeDowncast(box, to: Box<T>.self).value
            }
            let value = try build(entry, in: home, argument)
            graph[key] = Box(value)
            return value
        case .registration:
            if let cache = overlay?.cache(for: home) {
                return try fill(cache.slot(for: entry, home: home), entry, in: home, argument)
            }
            if let value = entry.published {
                return value
            }
            return try fill(entry.slot, entry, in: home, argument)
        case .resolvingContainer:
            if let cache = overlay?.cache(for: home) {
                return try fill(cache.slot(for: entry, home: home), entry, in: home, argument)
            }
            return try fill(home.scopedSlot(for: entry), entry, in: home, argument)
        }
    }

    private func fill<T>(
        _ slot: InstanceSlot<T>,
        _ entry: Entry<T>,
        in home: DIContainer,
        _ argument: ArgumentBox?
    ) throws -> T {
        do {
            return try slot.instance(thread: ObjectIdentifier(self)) {
                try build(entry, in: home, argument)
            }
        } catch let deadlock as Parking.Deadlock {
            throw crossThreadCycle(deadlock.chain, waitingFor: entry)
        } catch InstanceSlot<T>.Failure.recursion {
            throw cycle(at: frames.count, closedBy: entry)
        }
    }

    /// Builds a new instance of `entry`: factory, then `resolveProperties`, with a frame on the stack throughout.
    func build<T>(_ entry: Entry<T>, in home: DIContainer, _ argument: ArgumentBox?) throws -> T {
        guard frames.count < Self.maximumDepth else {
            throw tooDeep(entry)
        }
        frames.append(Frame(entry: entry, container: home))
        defer { frames.removeLast() }
        let resolver = DIResolver(container: home, overlay: overlay)
        let value: T
        do {
            value = try make(entry, resolver, argument)
        } catch {
            throw wrap(error, from: entry, stage: .factory)
        }
        if entry.scope.kind == .weak, !(Swift.type(of: value as Any) is AnyObject.Type) {
            throw notAClass(entry, value: value)
        }
        if let properties = entry.properties {
            frames[frames.count - 1].inProgress = Box(value)
            do {
                try properties(resolver, value)
            } catch {
                throw wrap(error, from: entry, stage: .properties)
            }
        }
        return value
    }

    @inline(__always)
    private func make<T>(_ entry: Entry<T>, _ resolver: DIResolver, _ argument: ArgumentBox?) throws -> T {
        switch entry.make {
        case .plain(let make):
            return try make(resolver)
        case .argument(let make):
            return try make(resolver, argument!)
        case .forward(let make):
            return try make(resolver, argument)
        case .mainActor(let make):
            return try MainActorFactory.run(make, resolver)
        }
    }

    private func checkArgument<T>(of entry: Entry<T>, _ argument: ArgumentBox?) throws {
        switch entry.factoryKind {
        case .argument(let expected):
            if argument == nil {
                throw argumentMissing(entry, expected: expected)
            }
        case .forward:
            break
        case .plain, .mainActor:
            if let argument {
                throw argumentUnexpected(entry, given: argument.type)
            }
        }
    }
}

/// Lets a request for `W?` that has no registration of its own resolve `W`.
protocol OptionalService {
    /// The wrapped type's instance as `Self`, or `nil` when the wrapped type is not registered either.
    static func resolveWrapped(
        in context: ResolutionContext,
        name: DIContainer.Name?,
        through container: DIContainer,
        argument: ArgumentBox?
    ) throws -> Any?
}

extension Optional: OptionalService {
    static func resolveWrapped(
        in context: ResolutionContext,
        name: DIContainer.Name?,
        through container: DIContainer,
        argument: ArgumentBox?
    ) throws -> Any? {
        let key = Key(Wrapped.self, name)
        guard context.find(key, through: container) != nil else { return nil }
        let wrapped = try context.resolve(
            Wrapped.self,
            key: key,
            name: name,
            through: container,
            argument: argument,
            optional: false
        )
        return wrapped as Wrapped?
    }
}
