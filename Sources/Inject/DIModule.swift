/// A group of registrations, such as one feature's services, installed with ``DIContainer/install(_:file:line:)``.
///
/// ```swift
/// struct NotesModule: DIModule {
///     func register(in container: DIContainer) {
///         container.register(NoteStore.self) { SQLiteNoteStore() }.scope(.singleton)
///         container.register { r in try NotesViewModel(store: r.resolve()) }
///     }
/// }
/// container.install(NotesModule(), AnalyticsModule())
/// ```
public protocol DIModule {
    /// Registers the module's services.
    ///
    /// - Parameter container: The container to register into.
    func register(in container: DIContainer)
}
