extension DIContainer {
    /// Resolves every registration of a type: unnamed and named, in this container and its parents. A plugin list.
    ///
    /// ```swift
    /// container.register(Exporter.self, name: "pdf") { PDFExporter() }
    /// container.register(Exporter.self, name: "csv") { CSVExporter() }
    /// let exporters = container.resolveAll(Exporter.self)      // [PDFExporter, CSVExporter]
    /// ```
    ///
    /// A child's registration under a name (or unnamed) shadows its parents' under the same name, as it does for
    /// ``resolve(_:name:file:line:)``. The order: the root's registrations first, then each child's down to this
    /// container, each container's in registration order (a re-registration keeps its place, and so does a test
    /// override of a registration). Each element is
    /// built as its own registration's scope says, through the same path as `resolve`, in one resolution: test
    /// overrides, cycle detection and validation see it. Registrations that take a runtime argument are left out.
    ///
    /// - Parameters:
    ///   - type: The service type; inferred from context when omitted.
    ///   - file: The call site a trap names; leave the default.
    ///   - line: The call site's line; leave the default.
    /// - Returns: The instances; empty when nothing is registered. Traps, with the error's text, when one of them
    ///   cannot be built.
    public func resolveAll<T>(_ type: T.Type = T.self, file: StaticString = #fileID, line: UInt = #line) -> [T] {
        do {
            return try resolveAllSlowly(T.self, .outside)
        } catch {
            Self.trap(error, file: file, line: line)
        }
    }

    /// ``resolveAll(_:file:line:)`` for `caller`: in the resolution under way on this thread, or a new one.
    func resolveAllSlowly<T>(_ type: T.Type, _ caller: Caller) throws -> [T] {
        try inResolution(caller) { context in
            try context.resolveAll(T.self, through: self)
        }
    }
}

extension DIResolver {
    /// Resolves every registration of a type, as ``DIContainer/resolveAll(_:file:line:)`` does, as part of this
    /// resolution.
    ///
    /// - Parameter type: The service type; inferred from context when omitted.
    /// - Returns: The instances, in the order ``DIContainer/resolveAll(_:file:line:)`` gives.
    /// - Throws: ``ResolutionError`` when one of them cannot be built.
    public func resolveAll<T>(_ type: T.Type = T.self) throws -> [T] {
        try container.resolveAllSlowly(T.self, caller)
    }
}

extension ResolutionContext {
    /// Every registration of `T` a resolve through `container` sees, built in order.
    func resolveAll<T>(_ type: T.Type, through container: DIContainer) throws -> [T] {
        let typeID = ObjectIdentifier(T.self)
        // By name id (0 for unnamed): the registration that wins, where it is, and where it sorts.
        var winners: [Int: (entry: EntryBase, owner: DIContainer, level: Int)] = [:]
        let ancestry = Array(container.lineage.reversed())
        for (level, holder) in ancestry.enumerated() {
            // An argument registration shadows its parents' under the same name, as for `resolve`; it is left out
            // below, since nothing here has an argument to give it.
            for entry in holder.visibleEntries(from: identity) where entry.key.type == typeID {
                winners[entry.key.name] = (entry, holder, level)
            }
        }
        // Test overrides that apply here shadow the containers, the innermost last.
        var layers: [Overlay] = []
        var current = overlay
        while let layer = current {
            layers.append(layer)
            current = layer.outer
        }
        // An override takes the place of the registration it shadows; one that shadows nothing comes last.
        var places: [ObjectIdentifier: (level: Int, order: Int)] = [:]
        for (index, layer) in layers.reversed().enumerated() {
            guard let registry = layer.registry else { continue }
            guard layer.applies(to: container) else {
                for entry in registry.table.entries() where entry.key.type == typeID {
                    layer.noteMiss(of: entry, through: container)
                }
                continue
            }
            for entry in registry.table.entries() where entry.key.type == typeID {
                layer.noteUse(of: entry)
                let place: (level: Int, order: Int) =
                    winners[entry.key.name].map { places[ObjectIdentifier($0.entry)] ?? ($0.level, $0.entry.order) }
                    ?? (ancestry.count + index, entry.order)
                winners[entry.key.name] = (entry, layer.target ?? container, place.level)
                places[ObjectIdentifier(entry)] = place
            }
        }
        func place(_ winner: (entry: EntryBase, owner: DIContainer, level: Int)) -> (Int, Int) {
            places[ObjectIdentifier(winner.entry)] ?? (winner.level, winner.entry.order)
        }
        let ordered = winners.values
            .filter { !$0.entry.takesArgument && !$0.entry.forwardsAnArgument(in: $0.owner) }
            .sorted { place($0) < place($1) }
        if ordered.isEmpty, !winners.isEmpty, let recorder = overlay?.recorder {
            // Registered, but every one takes an argument: an empty list that validation points out.
            recorder.recordResolveAllOfArgumentsOnly(
                Describe.type(T.self),
                asker: frames.last { !$0.entry.isForward }?.entry,
                leftOut: winners.values.sorted { place($0) < place($1) }.map(\.entry)
            )
        }
        return try ordered.map { winner in
            var entry = unsafeDowncast(winner.entry, to: Entry<T>.self)
            // Replaced since it was collected (by an earlier element's factory, say): its replacement is built, never
            // the old factory, whatever the scope (a caching one's retired cache would tell too; a `.transient`,
            // `.graph` or child's `.scoped` one has none).
            while entry.isReplaced {
                entry = try replacement(of: entry)
            }
            do {
                return try instance(of: entry, owner: winner.owner, through: container, nil)
            } catch let error as ResolutionError {
                // The call that asked is resolveAll, not a resolve of this one registration.
                throw error.adding(
                    detail: """
                        while resolveAll(\(Describe.type(T.self)).self) built every registration of \
                        \(Describe.type(T.self)): this one, \(entry.label) registered at \(entry.location), failed.
                        """
                )
            }
        }
    }
}
