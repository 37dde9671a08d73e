// Hooks for Inject's own tests, with `package` access: what a test needs to see of the internals to prove a
// guarantee, and nothing a user of the library can call.

extension DIContainer {
    /// Whether the entries of registrations of `type` keep their atomic cells where ``EntryBase/cells`` looks for
    /// them, for a test of the layout that the cells rely on.
    package static func entryCellsAreInline<T>(for type: T.Type, make: @escaping @Sendable () -> T) -> Bool {
        let container = DIContainer()
        let registration = container.register(type) { make() }
        return registration.entry.cellsAreInline
    }

    /// How many resolves wait for a build of the `.singleton`, `.cached` or `.weak` registration of `type` (threads parked
    /// and tasks suspended), for a test that must know they wait before it lets the build end.
    package func resolvesWaitingForBuild<T>(of type: T.Type, name: Name? = nil) -> Int {
        guard let found = findUnretained(Key(type, name)),
            let entry = found.takeUnretainedValue() as? Entry<T>
        else { return 0 }
        return entry.slot(entry.scopeCode).waitingCount
    }
}
