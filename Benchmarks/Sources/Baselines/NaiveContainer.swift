/// The naive container the goals compare Inject with: an unlocked `[ObjectIdentifier: factory]` dictionary and an
/// `as!` cast of the `Any` it returns. No names, scopes, parents, errors, cycle detection or thread safety: about
/// the least a dictionary-based container can do. A singleton is a factory that returns a captured instance.
///
/// Like Inject, it lives in a module of its own and is not `@inlinable`, so callers reach its generic `resolve`
/// unspecialized, as they reach Inject's.
public final class NaiveContainer {
    private var factories: [ObjectIdentifier: (NaiveContainer) -> Any] = [:]

    /// An empty container.
    public init() {}

    /// Registers a factory that runs on every resolve (transient).
    public func register<T>(_ type: T.Type, factory: @escaping (NaiveContainer) -> T) {
        factories[ObjectIdentifier(type)] = factory
    }

    /// Registers an already built instance under its dynamic type (a singleton).
    public func register(instance: AnyObject) {
        factories[ObjectIdentifier(type(of: instance))] = { _ in instance }
    }

    /// Runs the factory registered for `T` and casts its result with `as!`; traps when there is none.
    public func resolve<T>(_ type: T.Type = T.self) -> T {
        factories[ObjectIdentifier(type)]!(self) as! T
    }
}
