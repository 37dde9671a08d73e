/// A factory for an argument registration got an argument of another type. Thrown inside the factory wrapper,
/// turned into a ``ResolutionError`` with the path by the resolution.
struct ArgumentTypeMismatch: Error {
    let expected: Any.Type
    let given: Any.Type
}

/// A registration forwarded with `implements` made an instance that is not of the forwarded type.
struct ForwardedTypeMismatch: Error {
    let forwardedType: Any.Type
    let instanceType: Any.Type
}

/// An array type, for the hint that `resolveAll` resolves every registration of its element.
private protocol ArrayOfServices {
    static var elementType: Any.Type { get }
}

extension Array: ArrayOfServices {
    fileprivate static var elementType: Any.Type { Element.self }
}

/// A `mainActorFactory` registration was asked for off the main actor.
struct NotOnMainActor: Error {}

/// The ``ResolutionError``s of one resolution, with its path and the registration that asked.
extension ResolutionContext {
    enum Stage {
        case factory
        case properties
    }

    /// The path so far, plus `last`.
    private func path(then last: String) -> [String] {
        frames.map(\.entry.label) + [last]
    }

    /// The registration whose factory is asking now, as details and a `file:line`.
    private var asker: (details: [String], location: String?) {
        // An `implements` forward is another name for its registration, with no factory of its own: whoever asked for
        // the forward asked.
        guard let frame = frames.last(where: { !$0.entry.isForward }) else {
            return (["asked by: a resolve call outside any factory"], nil)
        }
        // Once the factory has returned, the frame's resolveProperties closure is what asks.
        let closure = frame.inProgress == nil ? "factory" : "resolveProperties closure"
        let entry = frame.entry
        return (["asked by: \(entry.label)'s \(closure), registered at \(entry.location)"], entry.location)
    }

    func notRegistered(_ type: Any.Type, name: DIContainer.Name?, through container: DIContainer) -> ResolutionError {
        let label = Describe.service(type, name)
        let asker = self.asker
        var details = asker.details
        let others = otherRegistrations(of: type, except: name, through: container)
        if !others.isEmpty {
            details.append("registered under other names: " + others.map(\.line).joined(separator: "; "))
        }
        if let name, let near = others.first(where: { $0.name.map { Describe.isNearMiss(name.rawValue, $0) } == true })
        {
            details.append("did you mean \(near.line)? Its name differs from \"\(name.rawValue)\" by a letter or two.")
        }
        details += relatedRegistrations(of: type, through: container)
        if let element = (type as? any ArrayOfServices.Type)?.elementType, name == nil {
            // `init(exporters: [Exporter])`, autowired, or `r.resolve() as [Exporter]`: a plugin list.
            let elementName = Describe.type(element)
            details.append(
                """
                for every registration of \(elementName), call resolveAll(\(elementName).self) (try r.resolveAll() \
                in a factory, written by hand for an autowired one): a request for \(Describe.type(type)) looks for a \
                registration of the array itself.
                """
            )
        }
        let request = Describe.request(type, name)
        let alternatives = others.isEmpty ? "" : ", or ask for one of the names above"
        let plainFix = "register \(request) in this container or one of its parents\(alternatives)."
        var fix = plainFix
        if let reason = outOfReach(Key(type, name), request, through: container) {
            details.append(reason.detail)
            fix = reason.fix
        } else if let frame = frames.last, frame.inProgress == nil, case .autowired = frame.entry.factoryKind,
            type == DIResolver.self
        {
            // `register { (r: DIResolver, id: Int, title: String) in ... }`: a factory closure with several runtime
            // arguments does not match a factory overload, so Swift picked register(autowired:).
            let service = Describe.type(frame.entry.serviceType)
            details.append(
                """
                \(frame.entry.label)'s closure takes a DIResolver and more parameters, so it was taken as \
                register(autowired:), which resolves every parameter by its type: a factory takes (DIResolver) or \
                (DIResolver, Argument), one runtime argument.
                """
            )
            fix = """
                pass several runtime arguments as one tuple or struct: register { (r: DIResolver, args: (id: Int, \
                title: String)) in \(service)(...) }, resolved with argument: (id: 1, title: "..."); a caching scope \
                needs that argument to be Hashable, so use a struct there.
                """
        } else if let frame = frames.last, frame.inProgress == nil, case .autowired = frame.entry.factoryKind {
            let asker = frame.entry.label
            details.append(
                """
                \(asker) is registered with register(autowired:), which resolves every parameter of the initializer \
                by its type, unnamed, those with a default value too (a reference to an initializer does not carry \
                its defaults): one of them is \(label).
                """
            )
            let (registered, made) = Self.handWritten(frame.entry)
            fix = """
                \(fix.dropLast()); or, where that parameter is a value or a named service, write \
                \(frame.entry.label)'s factory by hand instead of register(autowired:), passing the value or \
                resolving the service by its name, and the other parameters with try r.resolve(): \
                \(registered) { r in try \(made)(<label>: r.resolve(), <label>: <the value>) }, with the \
                initializer's own labels.
                """
        }
        if fix == plainFix, let frame = frames.last, frame.entry.scope == .scoped, container.parent == nil {
            // A request's or a session's service resolved through the root, where the child's registrations are
            // out of sight: registering it in the root would make one for the whole app.
            let asker = Describe.type(frame.entry.serviceType)
            fix = """
                \(plainFix.dropLast()); or, if each child container (a session's, a request's) registers \
                \(request), resolve \(asker), which is .scoped, through that child rather than the root.
                """
        }
        if overlay == nil, fix == plainFix,
            let overridden = Overlay.activeOverride(of: Key(type, name), over: container)
        {
            // `withOverrides { ... } operation: { Task.detached { resolve } }`: the override is the task's.
            details.append(
                """
                a test override of \(label), registered at \(overridden.location), is active in another task, but \
                this resolve runs outside it (work started with Task.detached, on a DispatchQueue or a Thread does \
                not inherit withOverrides), so it sees the real container.
                """
            )
            fix = """
                resolve inside the override's task (its child tasks, async let and task groups inherit it), or pass \
                what it resolved to the other work; or, in a serial XCTest suite, use pushOverrides, which applies to \
                the whole process.
                """
        }
        let hidden = container.hiddenEntry(Key(type, name), from: identity)
        if let hidden {
            fix = """
                end that registration chain before resolving here: chain the options in the statement that \
                registers, and do not keep the Registration in a variable.
                """
            details.append(
                """
                \(hidden.label) is registered at \(hidden.location), but by another task or thread whose \
                registration chain has not ended: the Registration that register returned is still alive there. \
                Other tasks and threads see a registration once that Registration is released, at the end of the \
                statement that chains its options; do not keep it in a variable while others resolve.
                """
            )
        }
        if let optional = optionalRegistration(of: type, name, through: container) {
            // `register { () -> W? in ... }` registers `W?`, which a request for `W` does not find.
            details.append(
                """
                \(optional.label) is registered at \(optional.location), a factory that returns an optional: \
                optional(\(Describe.type(type)).self), @OptionalInjected and r.optional() resolve it (to nil when the \
                factory returns nil); a request for \(Describe.type(type)) itself does not.
                """
            )
            fix = """
                ask with optional(\(Describe.type(type)).self), @OptionalInjected or r.optional() where nil is an \
                answer; or, for a service that must exist, make the factory return \(Describe.type(type)) and register \
                it only when the value exists.
                """
        }
        if let wrapped = (type as? any OptionalService.Type)?.wrappedType {
            // `let x: W? = r.resolve()` asks for `W?`, which falls back to `W`; neither is registered.
            let wrappedRequest = Describe.request(wrapped, name)
            fix = """
                register \(wrappedRequest) (a request for \(Describe.type(type)) falls back to it), or, where nil \
                is an answer, call optional(\(Describe.type(wrapped)).self) (r.optional() in a factory) or declare \
                the property @OptionalInjected.
                """
        }
        if let wrapped = (type as? any OptionalService.Type)?.wrappedType, let frame = frames.last,
            frame.inProgress == nil, case .autowired(let tuple, let count) = frame.entry.factoryKind
        {
            let parameters = Describe.elements(of: tuple, count: count)
            // An autowired initializer's parameter is resolved with resolve(): there is no optional() to call. The
            // example has the initializer's parameters in order, but not their labels, which a function reference
            // does not carry.
            let (registered, made) = Self.handWritten(frame.entry)
            let arguments = parameters.map { $0 == type ? "<label>: r.optional()" : "<label>: r.resolve()" }
            fix = """
                register \(Describe.request(wrapped, name)) (a request for \(Describe.type(type)) falls back to it); \
                or, where nil is an answer, write \(frame.entry.label)'s factory by hand instead of \
                register(autowired:), resolving that parameter with try r.optional(), which gives nil when nothing \
                is registered, and the others with try r.resolve(): \
                \(registered) { r in try \(made)(\(arguments.joined(separator: ", "))) }, with the initializer's own \
                labels.
                """
        }
        return ResolutionError(
            kind: .notRegistered,
            service: label,
            path: path(then: label),
            registration: asker.location,
            headline: "nothing is registered for \(request).",
            details: details,
            fix: fix,
            // Not when validate() checks DIContainer.shared itself: then that is the app's container.
            fixThroughShared: container === DIContainer.shared && frames.isEmpty && fix == plainFix
                && overlay?.recorder?.validated !== DIContainer.shared
                ? "register \(request) in DIContainer.shared\(alternatives)" : nil
        )
    }

    /// The registration of `Optional<type>` a resolve through `container` would find, if any.
    private func optionalRegistration(
        of type: Any.Type,
        _ name: DIContainer.Name?,
        through container: DIContainer
    ) -> EntryBase? {
        find(Key(optionalType(of: type), name), through: container)?.0
    }

    /// Under `validate()`, when the service is registered in the validated container (or its ancestors) but the
    /// request could not reach it: why, and the fix. Two ways a user meets this: a property wrapper without
    /// `container:` made outside any factory resolves through ``DIContainer/shared``; and a singleton (or another
    /// scope kept by its registration) resolves what it needs from the container that registered it, a parent that
    /// does not see a child's registrations.
    private func outOfReach(
        _ key: Key,
        _ request: String,
        through container: DIContainer
    ) -> (detail: String, fix: String)? {
        // Under validation, the container validated; at run time, the one the top-level resolve went through.
        let validating = overlay?.recorder?.validated != nil
        let reference = validating ? "the validated container" : "the container this resolve went through"
        guard let validated = overlay?.recorder?.validated ?? topLevelContainer, validated !== container,
            let registered = validated.lineage.lazy.compactMap({ $0.table.find(key) }).first
        else { return nil }
        let at = "\(registered.label) is registered at \(registered.location), in \(reference) or a parent"
        if container === DIContainer.shared, frames.isEmpty {
            return (
                "\(at), but this request went through DIContainer.shared, where a property wrapper without container: resolves when it is made outside any factory.",
                """
                make the object in a factory of the container (its wrappers then resolve through it), or pass \
                container: to the wrapper, or register \(request) in DIContainer.shared if that is the app's container.
                """
            )
        }
        if frames.isEmpty, validated.isOrDescends(from: container) {
            // A lazy wrapper's first read: a resolve of its own, through the container its object was made in.
            return (
                """
                \(at), but this request went through a parent of \(reference), which does not see its children's \
                registrations: a lazy wrapper resolves through the container its object was made in, for a singleton \
                the container that registers it.
                """,
                """
                register the object that holds the property in the container that registers \(request) (one per \
                child), make it .scoped, or register \(request) in the parent.
                """
            )
        }
        guard let holder = frames.last(where: { Scope.resolvesFromOwner($0.entry.scopeCode) })?.entry,
            holder.owner !== validated, validated.isOrDescends(from: holder.owner)
        else { return nil }
        return (
            """
            \(at), but \(holder.label) is \(holder.scope), registered at \(holder.location) in a parent of \
            \(reference), and resolves what it needs from its own container, that parent, which does not see its \
            children's registrations.
            """,
            """
            register \(holder.label) in the container that registers \(request) (one per child), make it .scoped, or \
            register \(request) in the parent.
            """
        )
    }

    /// Registrations of `type` under other names, in the overlays and the container's chain, each registry's in
    /// registration order: their names, and each as `label at file:line`.
    private func otherRegistrations(
        of type: Any.Type,
        except name: DIContainer.Name?,
        through container: DIContainer
    ) -> [(name: String?, line: String)] {
        let typeID = ObjectIdentifier(type)
        let exceptID = name?.id ?? 0
        return registries(through: container).flatMap { registry in
            registry.table.entries()
                .filter { $0.key.type == typeID && $0.key.name != exceptID }
                .sorted { $0.order < $1.order }
                .map { (name: $0.name?.rawValue, line: "\($0.label) at \($0.location)") }
        }
    }

    /// Registrations that were probably meant: for a protocol asked for, the registered concrete types that conform
    /// to it (when the runtime can tell: see ``Describe/conforms(_:to:)``; else those of a similar name, if they
    /// conform); a protocol registered where a concrete type of a similar name is asked for; similar names judged by
    /// their words (every distinctive word of one is in the other: `LiveAPIClient` and `APIClient` share `API`); a
    /// type whose name differs by a letter or two; and a type of the same name from another module. Each as a line
    /// that says what to do. The services on the resolution's path are left out: the one that asks is not what it
    /// asks for.
    private func relatedRegistrations(of type: Any.Type, through container: DIContainer) -> [String] {
        let asked = Describe.type(type)
        let askedWords = Describe.words(asked).subtracting(Describe.commonWords)
        let askedIsProtocol = Describe.isProtocol(type)
        let onPath = Set(frames.map { ObjectIdentifier($0.entry.serviceType) })
        var lines: [String] = []
        var seen: Set<String> = []
        // The conformers beyond the first few are counted, not listed: a protocol many services adopt.
        let conformersListed = 5
        var conformers = 0
        let registries = registries(through: container)
        // Registrations that already forward the asked type, under a name: "registered under other names" says so,
        // and adding .implements(asked) again is not the fix.
        var forwardedAlready: Set<Key> = []
        for registry in registries {
            for entry in registry.table.entries() where entry.key.type == ObjectIdentifier(type) {
                if case .forward(let target, _, _) = entry.factoryKind {
                    forwardedAlready.insert(target)
                }
            }
        }
        for registry in registries {
            for entry in registry.table.entries().sorted(by: { $0.order < $1.order })
            where entry.key.type != ObjectIdentifier(type) && !entry.isForward
                && !onPath.contains(ObjectIdentifier(entry.serviceType))
            {
                let registered = Describe.type(entry.serviceType)
                guard seen.insert(registered).inserted else { continue }
                let at = "\(entry.label) is registered at \(entry.location)"
                if registered == asked {
                    lines.append(
                        "\(at), but as \(String(reflecting: entry.serviceType)), another type than \(String(reflecting: type))."
                    )
                    continue
                }
                let registeredIsProtocol = Describe.isProtocol(entry.serviceType)
                // Whether it conforms, when the runtime can tell: that decides the hint before a similar name does
                // (Noisy conforming to NoisyP is an .implements to add, not a typo).
                let conformance =
                    askedIsProtocol && !registeredIsProtocol ? Describe.conforms(entry.serviceType, to: type) : nil
                if conformance != true, Describe.isNearMiss(asked, registered) {
                    lines.append(
                        "\(at): did you mean \(registered)? Its name differs from \(asked) by a letter or two."
                    )
                    continue
                }
                if let conforms = conformance {
                    // Told by the runtime: every registered type that conforms, of a similar name or not, and none
                    // that does not.
                    guard conforms, !forwardedAlready.contains(entry.key) else { continue }
                    conformers += 1
                    guard conformers <= conformersListed else { continue }
                    lines.append(
                        """
                        \(at), and conforms to \(asked): did you mean to add .implements(\(asked).self) to its \
                        registration, or to resolve \(registered)?
                        """
                    )
                    continue
                }
                let registeredWords = Describe.words(registered).subtracting(Describe.commonWords)
                guard askedIsProtocol != registeredIsProtocol, !askedWords.isDisjoint(with: registeredWords),
                    askedWords.isSubset(of: registeredWords) || registeredWords.isSubset(of: askedWords)
                else { continue }
                if registeredIsProtocol {
                    lines.append(
                        "\(at): did you mean to resolve the protocol, or add .implements(\(asked).self) to its registration?"
                    )
                } else {
                    // A similar name only: whether it conforms is not known here.
                    lines.append(
                        """
                        \(at): if it conforms to \(asked), did you mean to add .implements(\(asked).self) to its \
                        registration, or to resolve \(registered)?
                        """
                    )
                }
            }
        }
        if conformers > conformersListed {
            let more = conformers - conformersListed
            lines.append(
                "\(more) more registered \(more == 1 ? "type conforms" : "types conform") to \(asked), not listed here."
            )
        }
        return lines
    }

    /// The overlays' registries that apply to `container`, then `container` and its ancestors.
    private func registries(through container: DIContainer) -> [DIContainer] {
        var registries: [DIContainer] = []
        var overlay = self.overlay
        while let current = overlay {
            if let registry = current.registry, current.applies(to: container) {
                registries.append(registry)
            }
            overlay = current.outer
        }
        return registries + container.lineage
    }

    /// The steps of the cycle from `frames[index]` back to `entry` that a factory takes (not an `implements`
    /// forward, not `resolveProperties`), as "here: get B in A's resolveProperties instead of its factory; ...: ", or
    /// nothing when there are none.
    private func factorySteps(of index: Int, closedBy entry: EntryBase) -> String {
        let asked = frames[(index + 1)...].map(\.entry) + [entry]
        let steps = zip(frames[index...], asked).compactMap { frame, next -> String? in
            guard frame.inProgress == nil, !frame.entry.isForward else { return nil }
            return "get \(next.label) in \(frame.entry.label)'s resolveProperties instead of its factory"
        }
        return steps.isEmpty ? "" : "here: \(steps.joined(separator: "; ")): "
    }

    func cycle(at index: Int, closedBy entry: EntryBase) -> ResolutionError {
        let loop = frames[index...].map(\.entry.label) + [entry.label]
        let asker = self.asker
        var details = asker.details
        // resolveProperties runs synchronously: it cannot build an async registration, so it closes no cycle that
        // has one.
        let asyncEntry = (frames[index...].map(\.entry) + [entry]).first { $0.isAsync }
        var fix =
            asyncEntry.map { asyncEntry in
                """
                break the cycle: \(Describe.lazyCycleFix). resolveProperties cannot close this one: it runs \
                synchronously, and \(asyncEntry.label) has an async factory, which only an async resolve builds.
                """
            }
                ?? """
                break the cycle: get the other in resolveProperties instead of its factory on every side of the cycle \
                (\(factorySteps(of: index, closedBy: entry))a factory that asks, through the cycle, for an instance \
                whose own factory is still running always fails), or \(Describe.lazyCycleFix).
                """
        if index == frames.count - 1, let overlay, overlay.registers(entry) {
            // `$0.register(API.self) { r in Spy(inner: try r.resolve(API.self)) }`: the override hides the real one.
            let request = Self.spelled(entry)
            details.append(
                """
                \(entry.label) is a test override, and its factory asks for \(entry.label): under the override that \
                is the override itself, which hides the registration it replaces.
                """
            )
            fix = """
                to wrap the real service (a spy, a decorator), resolve it before the override and capture it: let \
                real = container.resolve(\(request)), then withOverrides { $0.register(\(request)) { \
                Spy(wrapping: real) } } operation: { ... }; or register the real implementation under its own type \
                too and resolve that in the override.
                """
        } else if case .argument(let expected, nil) = entry.factoryKind {
            // Values of an argument type that is not Hashable cannot be told apart: a recursion over other values
            // looks like a cycle.
            let argument = Describe.type(expected)
            details.append(
                """
                \(entry.label) takes an argument of type \(argument), which is not Hashable, so Inject cannot tell one \
                \(argument) from another: a resolve of \(entry.label) with any \(argument) inside its own build \
                counts as the same one.
                """
            )
            fix = """
                if the factory resolves \(Self.spelled(entry)) again with another value (a recursion that ends), make \
                \(argument) Hashable: only a repeat of the same value is then a cycle. Otherwise \(fix)
                """
        }
        return ResolutionError(
            kind: .cycle,
            service: entry.label,
            path: path(then: entry.label),
            registration: asker.location,
            headline: "dependency cycle: \(loop.joined(separator: " -> ")).",
            details: details,
            fix: fix
        )
    }

    /// Two first builds that wait for each other on two threads (or, `acrossTasks`, in two tasks).
    func crossThreadCycle(_ chain: [String], waitingFor entry: EntryBase, acrossTasks: Bool = false) -> ResolutionError
    {
        let building = frames.last.map { "building \($0.entry.label), " } ?? ""
        let waits = chain.dropFirst().map { "waits for \($0)" }.joined(separator: ", which ")
        let asker = self.asker
        let (across, this) = acrossTasks ? ("tasks", "task") : ("threads", "thread")
        return ResolutionError(
            kind: .cycle,
            service: entry.label,
            path: path(then: entry.label),
            registration: asker.location,
            headline: """
                dependency cycle across \(across): this \(this), \(building)waits for \(chain[0]), whose builder \
                \(waits), which this \(this) is building.
                """,
            details: asker.details,
            fix: entry.isAsync
                ? """
                break the cycle between these registrations: \(Describe.lazyCycleFix). resolveProperties cannot \
                close it: it runs synchronously, and an async factory is built only by an async resolve.
                """
                : """
                break the cycle between these registrations: let one side get the other after it is built, with \
                @LazyInjected or a resolveProperties closure, instead of in its factory.
                """
        )
    }

    func tooDeep(_ entry: EntryBase) -> ResolutionError {
        let asker = self.asker
        return ResolutionError(
            kind: .tooDeep,
            service: entry.label,
            path: path(then: entry.label),
            registration: asker.location,
            headline: "resolving \(entry.label) went \(Self.maximumDepth) registrations deep.",
            details: asker.details,
            fix: """
                look for unbounded recursion that is not a cycle: a factory that resolves through a new child \
                container, or with a new argument, on every call.
                """
        )
    }

    /// Why a synchronous request for an async registration got no instance.
    enum NotBuiltReason {
        /// It is not built yet.
        case notBuilt
        /// `validate()` does not run async factories, so it could not check the request.
        case syncValidation
        /// Under `validateAsync()`: nothing builds it before the synchronous read at run time, since it is not
        /// eager and no async resolve in the same resolution asked for it first.
        case notEager
        /// Under `validateAsync()`: its own factory needs, directly or through others, the service that reads it,
        /// so it is never built before that read, whoever builds it first.
        case cycle
        /// Under `validateAsync()`: it is `.eager()` and `.scoped`, read through a root container, whose `warmUp()`
        /// builds no `.scoped` registration.
        case scopedInRoot
        /// Under `validateAsync()`: it is registered in a container that is neither the validated one nor one of its
        /// parents (a wrapper's `container:` named another one), whose async registrations this validation does not
        /// build.
        case outsideValidation
    }

    /// - Parameter lastFailure: What the last build of the instance threw, when it failed and none has succeeded
    ///   since: the reason it is not built.
    func notBuiltYet(
        _ entry: EntryBase,
        code: Int,
        because reason: NotBuiltReason,
        lastFailure: (any Error)? = nil
    ) -> ResolutionError {
        let asker = self.asker
        let caches = Scope.storage(ofCode: code) == .registration || Scope.storage(ofCode: code) == .resolvingContainer
        // The call that resolves it, as it is spelled in code: the name too, or it would resolve another registration.
        let call = "resolveAsync(\(Self.spelled(entry)))"
        let headline: String
        var fix: String
        var reasons: [String] = []
        switch reason {
        case .syncValidation:
            headline = """
                \(entry.label), registered at \(entry.location), has an async factory, which validate() does not \
                run, so this synchronous request for it was not checked.
                """
            fix = "call try await validateAsync() instead of validate() to check it."
        case .cycle:
            let reader = frames.last?.entry.label ?? "the service that reads it"
            headline = """
                \(entry.label), registered at \(entry.location), is read synchronously by \(reader), which its own \
                build needs: it is never built before this read, whatever builds it first.
                """
            // A resolveProperties read is synchronous too: only a lazy read, after both are built, waits.
            fix = """
                break the cycle: \(Describe.lazyCycleFix). resolveProperties cannot close this one: it runs \
                synchronously, and \(entry.label) has an async factory, which only an async resolve builds.
                """
        case .scopedInRoot:
            headline = """
                \(entry.label), registered at \(entry.location), is read synchronously through a root container, \
                but it has an async factory and nothing builds it there first: it is .eager() and .scoped, and a root \
                container's warmUp() builds no .scoped registration (each child container's own warmUp() builds its \
                own).
                """
            fix = """
                read it through a child container after that child's warmUp(), or read it with try await \
                r.\(call) in an async factory.
                """
        case .outsideValidation:
            headline = """
                \(entry.label), registered at \(entry.location), has an async factory, in a container that this \
                validation does not cover: the request went through a container that is neither the validated one \
                nor one of its parents (a property wrapper's container:, say), and validation builds only the async \
                registrations of the container it validates and of its parents.
                """
            fix = """
                validate the container the request goes through (or a child of it), or have the wrapper resolve \
                through the validated container.
                """
        case .notEager where code == Scope.Code.weak:
            // A .weak instance warmUp() builds lives only while something holds it: no later read can count on it.
            headline = """
                \(entry.label), registered at \(entry.location), is read synchronously, but it has an async factory \
                and is .weak: an instance warmUp() builds (or any build awaits) is kept only while something else \
                holds it, so nothing makes sure it is built when this read comes.
                """
            fix = """
                read it with try await r.\(call) in an async factory, or give it a scope that keeps it (.singleton or \
                .cached), mark it .eager() and call try await warmUp() at start-up.
                """
        case .notEager where caches:
            headline = """
                \(entry.label), registered at \(entry.location), is read synchronously, but it has an async factory \
                and nothing builds it first: it is not .eager(), and no eager service's build awaits it, so \
                warmUp() does not build it.
                """
            fix = """
                mark its registration .eager() and call try await warmUp() at start-up, or read it with \
                try await r.\(call) in an async factory.
                """
        case .notBuilt where caches && lastFailure != nil:
            let failure = lastFailure.map { ($0 as? ResolutionError)?.headline ?? "\($0)" } ?? ""
            headline = """
                \(entry.label), registered at \(entry.location), has an async factory, and its last build failed, \
                so it is not built and a synchronous resolve cannot return it.
                """
            reasons = ["its last build failed: \(failure)"]
            fix = """
                fix what made that build fail; a later \(entry.isEager ? "try await warmUp() or " : "")try await \
                \(call) builds it again.
                """
        case .notBuilt where caches && entry.isEager:
            headline = """
                \(entry.label), registered at \(entry.location), has an async factory and is not built yet, so a \
                synchronous resolve cannot return it.
                """
            (reasons, fix) = Self.whyEagerIsNotBuilt(entry, code: code, call: call, override: overrideSeen(by: entry))
        case .notBuilt where code == Scope.Code.weak:
            // What an earlier resolve built is gone once nothing holds it: awaiting it first is no fix on its own.
            headline = """
                \(entry.label), registered at \(entry.location), has an async factory and is .weak, and no instance of \
                it is alive, so a synchronous resolve cannot return it: a .weak instance is kept only while something \
                else holds it.
                """
            fix = """
                keep the instance you await and pass it on (let value = try await r.\(call), then use value instead of \
                resolving it again), or give it a scope that keeps it (.singleton or .cached).
                """
        case .notBuilt, .notEager:
            headline = """
                \(entry.label), registered at \(entry.location), has an async factory and is not built yet, so a \
                synchronous resolve cannot return it.
                """
            fix =
                caches
                ? """
                resolve it with try await \(call) (or r.resolveAsync in a factory) before anything resolves it \
                synchronously, or mark its registration .eager() and call try await warmUp() at start-up.
                """
                : code == Scope.Code.graph
                    ? """
                    resolve it with try await \(call), or with r.resolveAsync in an async factory before reading it \
                    there: a .graph async registration is built once per resolution, only by an async resolve, and \
                    read synchronously only later in that same resolution.
                    """
                    : """
                    resolve it with try await \(call), or r.resolveAsync in an async factory: a \
                    \(Scope(code: code)) async registration is built anew on each resolve, so only an async resolve \
                    can build it.
                    """
        }
        var path = path(then: entry.label)
        var details = asker.details + reasons
        if !entry.isEager, let overlay, overlay.registers(entry),
            let real = (frames.first?.container ?? entry.owner).lookupVisible(entry.key, from: identity)?.entry
                .takeUnretainedValue(),
            real.isEager
        {
            // A test's stub of an eager service: warmUp() builds what a resolve would use, the stub, only if it is
            // eager too.
            details.append(
                """
                \(entry.label) here is a test override, registered at \(entry.location), of the registration at \
                \(real.location), which is .eager(): warmUp() builds the override in its place only when the \
                override is .eager() too.
                """
            )
            fix = "mark the override .eager() too, in the override's closure, or read it with try await \(call)."
        }
        if let reader = frames.last?.entry, case .autowired = reader.factoryKind, reason != .syncValidation {
            // An autowired initializer resolves its parameters synchronously: `r.resolveAsync` is not an option there.
            details.append(
                """
                \(reader.label) is registered with register(autowired:), which resolves each parameter \
                synchronously: to await \(entry.label) there, register \(reader.label) with an async factory \
                written out, { r in \(Describe.type(reader.serviceType))(...: try await r.\(call)) }.
                """
            )
        }
        if reason == .notEager || reason == .cycle || reason == .scopedInRoot, path.count > 2 {
            // The read fails when the asker is resolved first: that is the path that matters, not the one
            // validation happened to reach it by.
            let chain = path.dropLast().joined(separator: " -> ")
            details.append(
                """
                validation found this through \(chain), which may well work; what fails is resolving \
                \(path[path.count - 2]) first (the path above).
                """
            )
            path = Array(path.suffix(2))
        }
        return ResolutionError(
            kind: .notBuiltYet,
            service: entry.label,
            path: path,
            registration: asker.location,
            headline: headline,
            details: details,
            fix: fix
        )
    }

    /// How an autowired registration's factory is written by hand: the `register` call, and the type whose
    /// initializer it calls. A registration under a protocol (`register(Logger.self, autowired: FileLogger.init)`)
    /// keeps the protocol, and calls an implementation the registration no longer knows by name; one of a failable
    /// initializer's optional calls the initializer's own type.
    static func handWritten(_ entry: EntryBase) -> (register: String, made: String) {
        let name = entry.name.map { ", name: \($0.rawValue.debugDescription)" } ?? ""
        let spelledOut = "register(\(Describe.type(entry.serviceType)).self\(name))"
        if Describe.isProtocol(entry.serviceType) {
            return (spelledOut, "<the implementation you passed>")
        }
        let type = (entry.serviceType as? any OptionalService.Type)?.wrappedType ?? entry.serviceType
        return (name.isEmpty ? "register" : spelledOut, Describe.type(type))
    }

    /// `entry`'s type and name as a call spells them: `Exporter.self, name: "slow"`.
    private static func spelled(_ entry: EntryBase) -> String {
        let name = entry.name.map { ", name: \($0.rawValue.debugDescription)" } ?? ""
        return "\(Describe.type(entry.serviceType)).self\(name)"
    }

    /// Why an `.eager()` async registration with a caching scope may not be built when it is read synchronously, as
    /// detail lines, and the fix: marking it `.eager()` again would change nothing.
    /// Where this resolve stands to the test overrides, for a message about caches it found empty.
    enum OverrideSeen {
        /// It runs under one, whose caches start empty.
        case inside
        /// It does not, while one that a resolve through the same container would see is active elsewhere.
        case elsewhere
        case none
    }

    private func overrideSeen(by entry: EntryBase) -> OverrideSeen {
        if let overlay, overlay.registry != nil, overlay.recorder == nil { return .inside }
        // The container the request went through: its first frame's, or the registration's own.
        let container = frames.first?.container ?? entry.owner
        return Overlay.isTestOverrideActive(over: container) ? .elsewhere : .none
    }

    private static func whyEagerIsNotBuilt(
        _ entry: EntryBase,
        code: Int,
        call: String,
        override: OverrideSeen
    ) -> (details: [String], fix: String) {
        let orAsync = "or read it with try await \(call) (r.resolveAsync in an async factory), which waits for it."
        switch code {
        case Scope.Code.weak:
            return (
                [
                    """
                    it is .eager(), but .weak: warmUp() does not build it (it reports .eager() on .weak as a failure), \
                    since a .weak instance lives only while someone holds it and would be released at once.
                    """
                ],
                "give it a scope that keeps it (.singleton, .cached, .scoped or a custom one), \(orAsync)"
            )
        case Scope.Code.scoped:
            return (
                [
                    """
                    it is .eager() and .scoped: each child container builds its own, in that child's own warmUp(), \
                    so the warmUp() of the container this resolve went through has not been called or has not \
                    finished (a parent's warmUp() does not build a child's, and a root container's builds none of \
                    its own: a .scoped service is one per child scope), or a reset dropped it.
                    """
                ],
                """
                call try await warmUp() on the container you resolve through (each child's own, after makeChild()) \
                and wait for it before reading it synchronously, and again after a reset, \(orAsync)
                """
            )
        default:
            let reset =
                code == Scope.Code.singleton
                ? ""
                : ", or a reset (reset(\(Scope(code: code))) or reset(\(spelled(entry)))) dropped it since"
            let inChild =
                entry.owner.parent == nil
                ? "" : " It is registered in a child container: that child's own warmUp() builds it, not a parent's."
            let overrides: String
            switch override {
            case .inside:
                overrides = """
                    , or this resolve runs under a test override, which starts with fresh caches (call warmUp() \
                    inside it)
                    """
            case .elsewhere:
                overrides = """
                    . A test override of this container is active, but this resolve runs outside it (work started \
                    with Task.detached, on a DispatchQueue or a Thread does not inherit it), so it reads the real \
                    container, whose warmUp() that override does not run: resolve inside the override, or call \
                    warmUp() on the real container too
                    """
            case .none:
                overrides = ""
            }
            return (
                [
                    """
                    it is .eager(), but warmUp() has not been called yet or has not finished\(reset)\(overrides).\
                    \(inChild)
                    """
                ],
                """
                call try await warmUp() at start-up and wait for it before anything reads it synchronously, and again \
                after a reset, \(orAsync)
                """
            )
        }
    }

    func argumentMissing(_ entry: EntryBase, expected: Any.Type) -> ResolutionError {
        let asker = self.asker
        let expectedName = Describe.type(expected)
        return ResolutionError(
            kind: .argumentMismatch,
            service: entry.label,
            path: path(then: entry.label),
            registration: asker.location,
            headline: """
                \(entry.label), registered at \(entry.location), takes a runtime argument of type \(expectedName), \
                but was resolved without one.
                """,
            details: asker.details,
            fix: "resolve it with resolve(\(Self.spelled(entry)), argument:) and an argument of type \(expectedName)."
        )
    }

    func argumentUnexpected(_ entry: EntryBase, given: Any.Type) -> ResolutionError {
        // Under validate(), a top-level build's argument is the registration's own validationArgument sample.
        if frames.isEmpty, overlay?.recorder != nil, let sample = entry.validationSample,
            ObjectIdentifier(sample.type) == ObjectIdentifier(given)
        {
            return ResolutionError(
                kind: .argumentMismatch,
                service: entry.label,
                path: path(then: entry.label),
                registration: entry.location,
                headline: """
                    \(entry.label), registered at \(entry.location), takes no argument, but is given a \
                    validationArgument sample of type \(Describe.type(given)).
                    """,
                details: ["asked by: validate(), with the sample the registration gives"],
                fix: """
                    remove .validationArgument(...) from the registration, or register a factory that takes \
                    (DIResolver, \(Describe.type(given))) if it is meant to take an argument.
                    """
            )
        }
        let asker = self.asker
        var details = asker.details
        if case .autowired(let parameters, let count) = entry.factoryKind, count > 0 {
            // `register { (id: Int) in Viewer(id: id) }`: a closure without a DIResolver matches no factory overload,
            // so Swift took it as register(autowired:), which resolves its parameters instead of taking an argument.
            let types = Describe.elements(of: parameters, count: count).map(Describe.type).joined(separator: ", ")
            details.append(
                """
                \(entry.label) is registered with register(autowired:), which resolves each parameter of its \
                function (\(types)) by its type; a closure without a DIResolver first parameter is taken as one.
                """
            )
        }
        return ResolutionError(
            kind: .argumentMismatch,
            service: entry.label,
            path: path(then: entry.label),
            registration: asker.location,
            headline: """
                \(entry.label), registered at \(entry.location), takes no argument, but was resolved with an \
                argument of type \(Describe.type(given)).
                """,
            details: details,
            fix: """
                resolve it without argument:, or register a factory that takes (DIResolver, \
                \(Describe.type(given))): register { (r: DIResolver, argument: \(Describe.type(given))) in ... }.
                """
        )
    }

    /// The error a factory or `resolveProperties` threw, as a ``ResolutionError``; `entry` is on top of the stack.
    func wrap(_ error: any Error, from entry: EntryBase, stage: Stage) -> ResolutionError {
        if let error = error as? ResolutionError {
            return error
        }
        let path = frames.map(\.entry.label)
        switch error {
        case let mismatch as ArgumentTypeMismatch:
            let expected = Describe.type(mismatch.expected)
            // The entry is on top of the stack; whoever passed the argument is below it.
            let caller = frames.dropLast().last?.entry
            // Under validate(), a top-level build's argument is the registration's own validationArgument sample.
            if caller == nil, overlay?.recorder != nil, let sample = entry.validationSample,
                ObjectIdentifier(sample.type) == ObjectIdentifier(mismatch.given)
            {
                return ResolutionError(
                    kind: .argumentMismatch,
                    service: entry.label,
                    path: path,
                    registration: entry.location,
                    headline: """
                        \(entry.label), registered at \(entry.location), takes a runtime argument of type \(expected), \
                        but its validationArgument sample is of type \(Describe.type(mismatch.given)).
                        """,
                    details: ["asked by: validate(), with the sample the registration gives"],
                    fix: "pass a sample of type \(expected) to .validationArgument."
                )
            }
            let askedBy =
                caller.map { "asked by: \($0.label)'s factory, registered at \($0.location)" }
                ?? "asked by: a resolve call outside any factory"
            let given = Describe.type(mismatch.given)
            if let overlay, overlay.registers(entry) {
                // The code under test passes what the app's registration takes: the override is what differs.
                let request = Self.spelled(entry)
                return ResolutionError(
                    kind: .argumentMismatch,
                    service: entry.label,
                    path: path,
                    registration: entry.location,
                    headline: """
                        \(entry.label) is a test override, registered at \(entry.location), whose factory takes a \
                        runtime argument of type \(expected), but the code under test resolved it with one of type \
                        \(given).
                        """,
                    details: [askedBy],
                    fix: """
                        give the override a factory that takes the argument type the code passes: \
                        $0.register(\(request)) { (r: DIResolver, argument: \(given)) in ... }.
                        """
                )
            }
            return ResolutionError(
                kind: .argumentMismatch,
                service: entry.label,
                path: path,
                registration: caller?.location ?? entry.location,
                headline: """
                    \(entry.label), registered at \(entry.location), takes a runtime argument of type \(expected), \
                    but was given one of type \(given).
                    """,
                details: [askedBy],
                fix: "pass an argument of type \(expected)."
            )
        case let mismatch as ForwardedTypeMismatch:
            let forwarded = Describe.type(mismatch.forwardedType)
            let instance = Describe.type(mismatch.instanceType)
            // The registration the forward reached: another one than the forward's own when a child (or a test
            // override) registered the target again, with an instance that does not conform.
            var details: [String] = []
            var fix = "make \(instance) conform to \(forwarded), or remove the implements call."
            if case .forward(let target, _, _) = entry.factoryKind, let home = frames.last?.container,
                let reached = overlay?.find(target, through: home)?.entry
                    ?? home.lookupVisible(target, from: identity)?.entry.takeUnretainedValue(),
                reached.location != entry.location
            {
                details.append(
                    """
                    the forward reached \(reached.label) registered at \(reached.location), which shadows the \
                    registration that implements(\(forwarded).self) was called on.
                    """
                )
                fix = """
                    make the instance of the registration at \(reached.location) conform to \(forwarded) too, or \
                    register \(forwarded) there as well (implements(\(forwarded).self) on it).
                    """
            }
            return ResolutionError(
                kind: .notConforming,
                service: entry.label,
                path: path,
                registration: entry.location,
                headline: """
                    \(entry.label) is forwarded by implements(\(forwarded).self) at \(entry.location), but the \
                    instance it forwards to, of type \(instance), is not of type \(forwarded).
                    """,
                details: details,
                fix: fix
            )
        case is NotOnMainActor:
            // The entry is on top of the stack; whoever asked for it is below it.
            if let (asker, through) = asyncFactoryBelowTheTop() {
                let route = through.map(\.label).joined(separator: " and ")
                // A build that caches, the main-actor one or one in between, may have been made before, on the main
                // actor, and is then read, not built; one that does not cache is built here, off it, every time.
                let buildsEveryTime = { (entry: EntryBase) in entry.scope == .transient || entry.scope == .graph }
                let everyTime = buildsEveryTime(entry) && through.allSatisfy(buildsEveryTime)
                let cachedOne = through.first { !buildsEveryTime($0) }.map { _ in route } ?? entry.label
                let consequence =
                    everyTime
                    ? "this fails whoever resolves \(asker.label)"
                    : "this fails unless \(cachedOne) was built before, on the main actor"
                return askedOffTheMainActor(
                    entry,
                    by: asker,
                    path: path,
                    headline: """
                        \(entry.label) is registered with mainActorFactory at \(entry.location), so it is built on \
                        the main actor, but \(asker.label)'s async factory resolves it synchronously\
                        \(through.isEmpty ? "" : " through \(route)"), and an async factory never runs on the main \
                        actor: \(consequence).
                        """,
                    fix: through.first.map { first in
                        """
                        register \(first.label) with mainActorFactory too, and resolve it with try await \
                        r.resolveAsync(\(Self.spelled(first))) in \(asker.label)'s factory, which hops \
                        to the main actor to build it.
                        """
                    }
                        ?? """
                        resolve it with try await r.resolveAsync(\(Self.spelled(entry))), which \
                        hops to the main actor to build it.
                        """,
                    failsFromEveryCaller: everyTime
                )
            }
            // The registration whose factory asked: an `implements` forward on the way is another name for its target.
            if asyncResolution?.startup != nil,
                let asker = frames.dropLast().reversed().first(where: { !$0.entry.isForward })?.entry
            {
                // A synchronous factory that warmUp() runs on the concurrency pool's threads.
                return askedOffTheMainActor(
                    entry,
                    by: asker,
                    path: path,
                    headline: """
                        \(entry.label) is registered with mainActorFactory at \(entry.location), so it is built on \
                        the main actor, but \(asker.label)'s synchronous factory resolves it, and warmUp() runs \
                        synchronous factories off the main actor, wherever it is called from.
                        """,
                    fix: """
                        register \(asker.label) with mainActorFactory too, or resolve \(entry.label) with \
                        r.resolveAsync from an async factory (which hops to the main actor), or remove .eager() from \
                        what needs \(asker.label) and resolve it from @MainActor code after warmUp().
                        """,
                    failsFromEveryCaller: false
                )
            }
            let asker = frames.dropLast().reversed().first(where: { !$0.entry.isForward })?.entry
            return ResolutionError(
                kind: .notOnMainActor,
                service: entry.label,
                path: path,
                registration: entry.location,
                headline: """
                    \(entry.label) is registered with mainActorFactory at \(entry.location), so it is built on the \
                    main actor, but it was resolved from another thread.
                    """,
                details: [
                    asker.map { "asked by: \($0.label)'s factory, registered at \($0.location)" }
                        ?? "asked by: a resolve call outside any factory"
                ],
                fix: """
                    resolve it from @MainActor code (inside `await MainActor.run { ... }`, say, or a test marked \
                    @MainActor), or, if the type does not need the main actor, register it with a plain factory (or \
                    autowired:).
                    """
            )
        default:
            let closure = stage == .factory ? "factory" : "resolveProperties closure"
            return ResolutionError(
                kind: .factoryThrew,
                service: entry.label,
                path: path,
                registration: entry.location,
                underlying: error,
                headline: "the \(closure) of \(entry.label), registered at \(entry.location), threw: \(error)",
                fix: """
                    the error above comes from that \(closure): fix its cause, or catch it there and return a \
                    fallback.
                    """
            )
        }
    }
}

/// `Optional<T>`'s metatype for `type`, `T`.
private func optionalType(of type: Any.Type) -> Any.Type {
    func wrap<T>(_: T.Type) -> Any.Type { T?.self }
    return wrap(type)
}

extension ResolutionContext {
    /// The async factory whose synchronous work built the chain on the stack up to its top, and the
    /// synchronous builds in between, outermost first; `nil` when a `mainActorFactory` build, which runs on the main
    /// actor, or the start of the request comes first. `implements` forwards are passed through.
    fileprivate func asyncFactoryBelowTheTop() -> (EntryBase, through: [EntryBase])? {
        var through: [EntryBase] = []
        for frame in frames.dropLast().reversed() where !frame.entry.isForward {
            if frame.entry.isAsync { return (frame.entry, through.reversed()) }
            if frame.entry.isMainActor { return nil }
            through.append(frame.entry)
        }
        return nil
    }

    /// A main-actor registration resolved off the main actor by `asker`'s factory.
    fileprivate func askedOffTheMainActor(
        _ entry: EntryBase,
        by asker: EntryBase,
        path: [String],
        headline: String,
        fix: String,
        failsFromEveryCaller: Bool
    ) -> ResolutionError {
        ResolutionError(
            kind: .notOnMainActor,
            service: entry.label,
            path: path,
            registration: asker.location,
            headline: headline,
            details: ["asked by: \(asker.label)'s factory, registered at \(asker.location)"],
            fix: fix,
            failsFromEveryCaller: failsFromEveryCaller
        )
    }
}
