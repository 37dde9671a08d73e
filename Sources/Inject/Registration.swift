/// A registration's chainable options.
///
/// ```swift
/// container.register { LiveAPIClient() }
///     .scope(.singleton)
///     .implements(APIClient.self)
/// ```
///
/// Chain the options on the `register` call. Other threads see a registration whole: until the `Registration` is
/// released (at the end of the statement that chains its options) they resolve what was there before, the
/// registration it replaces or a parent's, so none of them ever sees it with only some of its options. The thread
/// that registers sees it at once. So do not keep a `Registration` in a variable while other threads resolve: they
/// do not see it until it is released.
///
/// > Important: Changing the scope of a service whose shared instance was already asked for traps (it would be
/// > ignored). An option on a registration that a later `register` of the same type and name has replaced changes
/// > nothing that resolves. On a sealed container an option traps, like `register`.
public final class Registration<T> {
    @usableFromInline let container: DIContainer
    @usableFromInline let entry: Entry<T>

    @inlinable
    init(container: DIContainer, entry: Entry<T>) {
        self.container = container
        self.entry = entry
    }

    /// Ends the registration chain: from now on every thread sees the registration, with all its options, and its
    /// forwards. Until now, other threads resolved what was there before. Inlinable, so that a chain whose result is
    /// discarded needs no heap allocation for the `Registration`.
    @inlinable
    deinit {
        entry.endConfiguring()
    }

    /// Sets how long instances live and who shares them. The default is ``Scope/graph``.
    ///
    /// - Parameters:
    ///   - scope: The scope. A registration that takes a runtime argument caches one instance per argument value in
    ///     any scope but ``Scope/transient``; that needs a `Hashable` argument, and traps otherwise.
    ///   - file: The call, named by a trap (a scope changed after the first resolve, an argument that is not
    ///     `Hashable`); leave the default.
    ///   - line: The call's line.
    @inlinable
    @discardableResult
    public func scope(_ scope: Scope, file: StaticString = #fileID, line: UInt = #line) -> Self {
        // Inlinable, and the work in a static function, so that `self` does not escape: in a chain whose result is
        // discarded, the Registration is never allocated.
        Self.apply(scope, to: entry, in: container, file: file, line: line)
        return self
    }

    @usableFromInline
    static func apply(_ scope: Scope, to entry: Entry<T>, in container: DIContainer, file: StaticString, line: UInt) {
        if entry.takesArgument, scope != .transient, entry.argumentKeying == nil {
            let argument = Describe.type(entry.expectedArgument ?? Any.self)
            // A tuple cannot conform to a protocol: it has to become a struct. Anything else can conform.
            let how =
                argument.hasPrefix("(") ? "a struct instead of the tuple, declared Hashable" : "conform to Hashable"
            fatalError(
                """
                Inject: \(entry.label), registered at \(entry.location), takes a runtime argument of type \
                \(argument), which is not Hashable, so it cannot be \(scope), as Registration.scope(\(scope)) at \
                \(file):\(line) asks: a \(scope) argument registration keeps one instance per argument value, and \
                needs to tell the values apart.
                  fix: make \(argument) Hashable (\(how)), or keep the registration \
                .transient (the default for argument registrations).
                """,
                file: file,
                line: line
            )
        }
        container.checkNotSealed(
            for: "Registration.scope(\(scope)) on \(entry.label)",
            at: entry,
            file: file,
            line: line
        )
        if scope.code != entry.scopeCode, entry.hasSharedInstance {
            fatalError(
                """
                Inject: Registration.scope(\(scope)) at \(file):\(line), on \(entry.label), registered at \
                \(entry.location), after its \(entry.scope) instance was already asked for: the new scope would be \
                ignored.
                  fix: set the scope right after register, in the registration at \(entry.location), before anything \
                resolves the service.
                """,
                file: file,
                line: line
            )
        }
        entry.setScope(scope)
    }

    /// Forwards another type, and optionally a name, to this registration.
    ///
    /// Resolving `P` resolves this registration and hands the instance out as a `P`. With a caching scope,
    /// resolving `P` and `T` gives the same instance. The forward looks the registration up by type and name on
    /// each resolve, so a later re-registration of `T`, or a test override of `T`, is seen through `P` too.
    ///
    /// - Parameters:
    ///   - type: The type to forward, usually a protocol `T` conforms to.
    ///   - name: The name to forward it under, or `nil`.
    @discardableResult
    public func implements<P>(_ type: P.Type, name: DIContainer.Name? = nil) -> Self {
        let targetName = entry.name
        if P.self == T.self, name == targetName {
            // The forward would take the registration's own key: resolving it would forward to itself, forever.
            fatalError(
                """
                Inject: implements(\(Describe.type(P.self)).self\(name.map { ", name: \"\($0.rawValue)\"" } ?? "")) \
                on \(entry.label), registered at \(entry.location), forwards the registration to itself: it would \
                replace the registration with a forward that resolves only itself.
                  fix: remove this implements call (a registration already resolves as its own type), or forward a \
                protocol it conforms to, or the same type under another name.
                """,
                file: entry.file,
                line: entry.line
            )
        }
        let make: Entry<P>.Make = { resolver in
            let argument = ResolutionContext.takeArgument()
            let instance = try resolver.resolveForwarded(T.self, name: targetName, argument: argument)
            guard let forwarded = instance as? P else {
                throw ForwardedTypeMismatch(forwardedType: P.self, instanceType: Swift.type(of: instance as Any))
            }
            return forwarded
        }
        let forward = Entry<P>(
            name: name,
            scope: .transient,
            file: entry.file,
            line: entry.line,
            owner: container,
            factoryKind: .forward(target: entry.key, targetType: T.self, targetName: targetName),
            make: make
        )
        container.publish(forward, action: "implements(\(Describe.type(P.self)).self)")
        entry.addForward(forward)
        return self
    }

    /// Runs `body` on every newly made instance, after the factory and before the instance is handed out.
    ///
    /// Use it to set properties that would form a cycle in an initializer: an instance joins its resolution as
    /// soon as its factory returns, so a `resolveProperties` closure further down the same resolution that asks
    /// for it gets it back instead of a cycle error.
    ///
    /// ```swift
    /// container.register { Parent() }
    ///     .resolveProperties { r, parent in parent.child = try r.resolve() }   // Child's factory resolves Parent
    /// ```
    ///
    /// Calling it again adds another closure; they run in the order they were added.
    ///
    /// - Parameter body: Receives the resolver and the new instance. Errors it throws fail the resolve.
    @discardableResult
    public func resolveProperties(_ body: @escaping @Sendable (DIResolver, T) throws -> Void) -> Self {
        container.checkNotSealed(for: "Registration.resolveProperties on \(entry.label)", at: entry)
        entry.addProperties(body)
        return self
    }

    /// Runs `body` once for each instance that leaves its scope: when `reset` drops it (``DIContainer/reset(_:file:line:)``
    /// of its scope, or ``DIContainer/reset(_:name:file:line:)`` of this registration), when the container that
    /// holds it is released (a session child's `.scoped` instances, a child's own registrations), or when a test
    /// override or `validate()` that built it ends. The place to close a session's sockets.
    ///
    /// ```swift
    /// session.register { SocketPool() }.scope(.scoped).onRelease { $0.closeAll() }
    /// ```
    ///
    /// > Important: It runs exactly once per instance, never under a lock, on the thread that let go of the
    /// > instance (the one that called `reset`, or released the last reference to the container). It never runs for
    /// > ``Scope/transient``, ``Scope/graph`` or ``Scope/weak`` instances, which the container does not hold, nor for
    /// > an instance whose build was under way when `reset` ran (its caller gets it, the scope never held it).
    /// > ``DIContainer/validate()`` warns about an `onRelease` on those scopes.
    ///
    /// Calling it again adds another closure; they run in the order they were added.
    ///
    /// - Parameter body: Receives the instance that leaves its scope.
    @discardableResult
    public func onRelease(_ body: @escaping @Sendable (T) -> Void) -> Self {
        container.checkNotSealed(for: "Registration.onRelease on \(entry.label)", at: entry)
        entry.addRelease(body)
        container.noteInstancesWithRelease()
        return self
    }

    /// Gives ``DIContainer/validate()`` an argument to build this argument registration with.
    ///
    /// Without one, `validate()` cannot build the registration and reports a warning instead.
    ///
    /// - Parameter sample: A representative argument. It must be of the factory's argument type.
    @discardableResult
    public func validationArgument<A>(_ sample: A) -> Self {
        container.checkNotSealed(for: "Registration.validationArgument on \(entry.label)", at: entry)
        entry.setValidationSample(value: sample, type: A.self)
        return self
    }
}
