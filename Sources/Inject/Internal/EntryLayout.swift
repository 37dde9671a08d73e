extension DIContainer {
    /// Whether the entries of registrations of `type` keep their atomic cells where ``EntryBase/cells`` looks for
    /// them, for a test of the layout that the cells rely on.
    package static func entryCellsAreInline<T>(for type: T.Type, make: @escaping @Sendable () -> T) -> Bool {
        let container = DIContainer()
        let registration = container.register(type) { make() }
        return registration.entry.cellsAreInline
    }
}
