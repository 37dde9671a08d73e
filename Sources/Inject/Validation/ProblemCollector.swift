/// Gathers the problems of one validation, each once, however many registrations lead to it.
///
/// A missing service asked for by one factory is found again from every registration that needs that factory; a
/// cycle is found from each of its members. Each is reported once, with the shortest path it was found by.
struct ProblemCollector {
    /// Whether async factories were built (`validateAsync()`): then a synchronous request for an async registration
    /// that is still not built is an error, not a warning that says to use `validateAsync()`.
    var buildsAsync = false
    /// The recorder of the validation, told of each new problem, so that a trap that ends the validation early can
    /// still list them.
    var recorder: ValidationRecorder?
    private var problems: [ValidationProblem] = []
    private var pathLengths: [Int] = []
    private var indexByKey: [String: Int] = [:]

    /// A factory's own time above which validation warns.
    static let slowFactoryNanoseconds: UInt64 = 50_000_000

    /// Errors first, then warnings; each group in the order found.
    var sorted: [ValidationProblem] {
        problems.filter { $0.severity == .error } + problems.filter { $0.severity == .warning }
    }

    mutating func add(_ problem: ValidationProblem, key: String? = nil, pathLength: Int = 0) {
        let key = key ?? problem.description
        if let index = indexByKey[key] {
            if pathLength < pathLengths[index] {
                problems[index] = problem
                pathLengths[index] = pathLength
            }
            return
        }
        indexByKey[key] = problems.count
        problems.append(problem)
        pathLengths.append(pathLength)
        recorder?.noteProblem(problem)
    }

    /// The error building `entry` ended in.
    mutating func add(_ error: ResolutionError, building entry: EntryBase) {
        add(error, at: entry.location)
    }

    /// The failures recorded instead of thrown: property wrappers' (reported at the property's declaration when the
    /// property's own request failed), and synchronous reads of async registrations nothing builds first.
    mutating func addKeptFailures(in seen: ValidationRecorder.State) {
        let warmUp =
            seen.keptUnlessBuiltByWarmUp.isEmpty ? WarmUpBuilds() : seen.warmUpBuilds(validated: recorder?.validated)
        for (index, error) in seen.keptFailures.enumerated() {
            if let read = seen.keptUnlessBuiltByWarmUp[index], warmUp.keeps(read) {
                continue
            }
            add(error, at: error.registration ?? "")
        }
    }

    /// `error`, reported at the `file:line` of the registration whose factory asked, or at `fallback`.
    mutating func add(_ error: ResolutionError, at fallback: String) {
        let (severity, kind): (ValidationProblem.Severity, ValidationProblem.Kind)
        switch error.kind {
        case .notRegistered: (severity, kind) = (.error, .missingRegistration)
        case .cycle: (severity, kind) = (.error, .cycle)
        case .factoryThrew: (severity, kind) = (.error, .factoryThrew)
        case .notOnMainActor:
            (severity, kind) = error.failsFromEveryCaller ? (.error, .invalidRegistration) : (.warning, .notBuilt)
        // Under validateAsync(), a read that nothing builds first: the wiring cannot work as written.
        case .notBuiltYet: (severity, kind) = buildsAsync ? (.error, .invalidRegistration) : (.warning, .notBuilt)
        case .argumentMismatch, .notAClass, .notConforming, .tooDeep, .invalidRegistration:
            (severity, kind) = (.error, .invalidRegistration)
        }
        let location = error.registration ?? fallback
        let problem = ValidationProblem(
            severity: severity,
            kind: kind,
            service: error.service,
            location: location,
            message: error.headline,
            details: error.detailLines
        )
        add(problem, key: Self.key(of: error, at: location), pathLength: error.path.count)
    }

    /// One key per problem, whichever registration led to it.
    private static func key(of error: ResolutionError, at location: String) -> String {
        if error.kind == .cycle, let closing = error.path.last, let start = error.path.firstIndex(of: closing) {
            // The same cycle found from each of its members: the set of its steps.
            return cycleKey(Array(error.path[start...]))
        }
        return "\(error.kind):\(error.service):\(location)"
    }

    /// The key of a cycle, whichever of its members it was found from: the set of its steps.
    static func cycleKey(_ steps: [String]) -> String {
        "cycle:" + Set(steps).sorted().joined(separator: ",")
    }

    /// A warning for a registration validation cannot build, or `nil` when it can.
    ///
    /// - Parameters:
    ///   - onMainActor: Whether validation runs on the main actor (a synchronous one cannot build a
    ///     `mainActorFactory` registration off it).
    ///   - buildsAsync: Whether validation builds async factories (`validateAsync()`).
    ///   - hasSample: Whether there is a sample argument to build it with, for one that takes an argument: its own,
    ///     or the one it is given (see ``EntryBase/validationSample(in:)``).
    static func notBuilt(
        _ entry: EntryBase,
        onMainActor: Bool,
        buildsAsync: Bool,
        hasSample: Bool? = nil
    ) -> ValidationProblem? {
        if entry.isAsync, !buildsAsync {
            return ValidationProblem(
                severity: .warning,
                kind: .notBuilt,
                service: entry.label,
                location: entry.location,
                message: "\(entry.label) has an async factory, which validate() does not run, so it was not built.",
                details: [
                    "fix: call try await validateAsync() instead (in a test, or at start-up in a debug build) to build it too."
                ]
            )
        }
        if entry.takesArgument, !(hasSample ?? (entry.validationSample != nil)) {
            let argument = Describe.type(entry.expectedArgument ?? Any.self)
            return ValidationProblem(
                severity: .warning,
                kind: .notBuilt,
                service: entry.label,
                location: entry.location,
                message: "\(entry.label) takes a runtime argument of type \(argument), so it was not built.",
                details: ["fix: give validate() a sample with .validationArgument(...) on the registration."]
            )
        }
        if entry.isMainActor, !onMainActor, !buildsAsync {
            return ValidationProblem(
                severity: .warning,
                kind: .notBuilt,
                service: entry.label,
                location: entry.location,
                message: "\(entry.label) is built on the main actor, and validate() ran off it, so it was not built.",
                details: [
                    """
                    fix: call validate() from the main actor (at app start; in a test, mark the test @MainActor), or \
                    call try await validateAsync() from anywhere (expectValidAsync or assertValidAsync in a test), \
                    which hops to the main actor to build it.
                    """
                ]
            )
        }
        return nil
    }

    /// A warning for an `onRelease` closure on a registration whose scope never lets go of an instance (the container
    /// holds none), so that the closure never runs; `nil` for the scopes that run it.
    static func releaseHookNeverRuns(_ entry: EntryBase) -> ValidationProblem? {
        let scope = entry.scope
        let why: String
        switch scope.kind {
        case .transient, .graph:
            why = "the container hands each \(scope) instance out and keeps none, so none ever leaves a scope"
        case .weak:
            why = """
                the container holds a .weak instance only weakly: it goes when its last owner lets go, and nothing \
                is left to hand to the closure then
                """
        case .singleton, .cached, .scoped, .custom:
            return nil
        }
        return ValidationProblem(
            severity: .warning,
            kind: .invalidRegistration,
            service: entry.label,
            location: entry.location,
            message: "\(entry.label) has an onRelease closure that never runs: it is registered \(scope).",
            details: [
                "\(why).",
                """
                fix: register it .cached, .scoped or in a custom scope to have onRelease run when reset(_:) or the \
                release of its child container drops it; or close its resources in its own deinit.
                """,
            ]
        )
    }

    /// Registrations replaced in the same container by a registration of the same type and name made elsewhere:
    /// allowed (the later one wins), but across modules usually a mistake nothing else would show.
    mutating func addReplacedRegistrations(in containers: [DIContainer]) {
        // A forward of `implements` registers its protocol at the line of the registration it is chained on.
        func site(_ entry: EntryBase) -> String {
            guard let target = entry.forwardTarget else { return entry.location }
            let forwarded = Describe.type(entry.serviceType)
            return "\(entry.location) (.implements(\(forwarded).self) on \(Describe.type(target.type)))"
        }
        for container in containers {
            // One warning for each registration that is used, with every one it replaced, in registration order.
            var replacements: [(used: EntryBase, replaced: [String])] = []
            for (replaced, used) in container.replacedRegistrations {
                if replaced.location == used.location {
                    add(Self.registeredAgainAfterItWasBuilt(used))
                    continue
                }
                if let index = replacements.firstIndex(where: { $0.used === used }) {
                    if !replacements[index].replaced.contains(site(replaced)) {
                        replacements[index].replaced.append(site(replaced))
                    }
                } else {
                    replacements.append((used, [site(replaced)]))
                }
            }
            for (used, replaced) in replacements {
                let times = replaced.count == 1 ? "twice" : "\(replaced.count + 1) times"
                let others =
                    replaced.count == 1
                    ? "the one at \(replaced[0]) is not"
                    : "the ones at \(replaced.joined(separator: ", ")) are not"
                let remove =
                    replaced.count == 1
                    ? "remove one of them, give one a name"
                    : "remove all but one of them, give them names"
                add(
                    ValidationProblem(
                        severity: .warning,
                        kind: .invalidRegistration,
                        service: used.label,
                        location: used.location,
                        message: """
                            \(used.label) is registered \(times) in the same container: at \
                            \(replaced.joined(separator: ", ")), then \(site(used)); the last one wins.
                            """,
                        details: [
                            "only the registration at \(site(used)) is resolved; \(others).",
                            """
                            fix: \(remove) (register(\(Describe.type(used.serviceType)).self, name: ...)), or make \
                            the replacement in a child container if it is meant to shadow the \
                            \(replaced.count == 1 ? "other" : "others"); to replace it in a test, use withOverrides, \
                            which also keeps every singleton built before it from holding the one it replaces.
                            """,
                        ]
                    )
                )
            }
        }
    }

    /// A registration made again by the same code (a module installed twice) after the first one had built an
    /// instance, which the second dropped: two instances of a service meant to have one.
    private static func registeredAgainAfterItWasBuilt(_ used: EntryBase) -> ValidationProblem {
        ValidationProblem(
            severity: .warning,
            kind: .invalidRegistration,
            service: used.label,
            location: used.location,
            message: """
                \(used.label) (\(used.scope)) was registered again at \(used.location), by the same code run a second \
                time (a module installed twice?), after the first registration had built an instance.
                """,
            details: [
                """
                that instance was dropped: whatever got it before keeps it, and the next resolve builds another, so \
                the app has two.
                """,
                """
                fix: run the registration once (install the module in one container, a parent of whatever needs \
                it), or before anything resolves \(used.label).
                """,
            ]
        )
    }

    /// `.weak` registrations of value types: they work, as `.transient`, which is probably not what was meant.
    mutating func addWeakValueTypes(in seen: ValidationRecorder.State) {
        for (entry, type) in seen.weakValueTypes {
            let valueType = Describe.type(type)
            add(
                ValidationProblem(
                    severity: .warning,
                    kind: .invalidRegistration,
                    service: entry.label,
                    location: entry.location,
                    message: """
                        \(entry.label) is registered in .weak scope, but its factory makes \(valueType), a value \
                        type: a weak reference cannot hold one, so every resolve builds a new one, as .transient.
                        """,
                    details: [
                        """
                        fix: register it .transient (the same behaviour, said plainly), .cached or .singleton to share \
                        one, or make \(valueType) a class.
                        """
                    ]
                )
            )
        }
    }

    /// `resolveAll` calls that return an empty list although their type is registered: every registration of it
    /// takes a runtime argument, which `resolveAll` has none to give.
    mutating func addResolveAllsOfArgumentsOnly(in seen: ValidationRecorder.State) {
        for (type, asker, leftOut) in seen.resolveAllsOfArgumentsOnly {
            let registered = leftOut.map { "\($0.label) at \($0.location)" }.joined(separator: "; ")
            let by = asker.map { "\($0.label)'s resolveAll(\(type).self)" } ?? "resolveAll(\(type).self)"
            add(
                ValidationProblem(
                    severity: .warning,
                    kind: .invalidRegistration,
                    service: asker?.label ?? type,
                    location: asker?.location ?? leftOut[0].location,
                    message: """
                        \(by) gets an empty list: every registration of \(type) takes a runtime argument, and \
                        resolveAll leaves those out, having no argument to give them.
                        """,
                    details: [
                        "left out: \(registered)",
                        """
                        fix: register the plugins without an argument (pass what they need through other \
                        registrations), or resolve each with resolve(\(type).self, name:, argument:) where its \
                        argument is known.
                        """,
                    ]
                )
            )
        }
    }

    /// A `@WeakInjected` property whose service is `.transient` or `.graph`: its first read builds a new instance that
    /// nothing else holds, so the property is `nil` at once.
    mutating func addWeakPropertyOfANewInstance(_ site: PropertySite, through container: DIContainer) {
        // What a resolve finds: a test override first, then the containers.
        guard var found = container.findSeeingOverrides(Key(site.service, site.name)) else { return }
        // Through `implements` forwards (each a step), to the registration that makes the instance.
        for _ in 0..<8 {
            guard let target = found.entry.forwardTarget, let next = found.owner.findSeeingOverrides(target.key) else {
                break
            }
            found = next
        }
        let entry = found.entry
        guard !entry.isForward else { return }
        let scope = entry.scope
        guard scope == .transient || scope == .graph else { return }
        add(
            ValidationProblem(
                severity: .warning,
                kind: .invalidRegistration,
                service: entry.label,
                location: site.location,
                message: """
                    \(site) holds \(entry.label) weakly, but \(entry.label) is \(scope), registered at \
                    \(entry.location): its first read builds a new one that nothing else holds, so the property is \
                    nil at once.
                    """,
                details: [
                    """
                    fix: give \(entry.label) a scope that keeps it (.singleton, .cached, .scoped, or .weak while \
                    something else owns it), or hold it strongly with @Injected or @LazyInjected.
                    """
                ]
            ),
            key: "weak-new:\(site.location)"
        )
    }

    /// Synchronous factories whose own time was above ``slowFactoryNanoseconds``. An async factory's time includes
    /// what it awaits (a disk, a network), which is why it is async: `warmUp()` builds those in parallel and its
    /// report gives their times, so they are not flagged here.
    mutating func addSlowFactories(in seen: ValidationRecorder.State) {
        for entry in seen.entries where !entry.isAsync {
            guard let nanoseconds = seen.buildNanoseconds[ObjectIdentifier(entry)],
                nanoseconds > Self.slowFactoryNanoseconds
            else { continue }
            let time = ValidationReport.milliseconds(nanoseconds)
            add(
                ValidationProblem(
                    severity: .warning,
                    kind: .slowFactory,
                    service: entry.label,
                    location: entry.location,
                    message: entry.hasProperties
                        ? """
                        \(entry.label)'s factory and resolveProperties closure took \(time) on their own, without the \
                        services they asked for.
                        """
                        : "\(entry.label)'s factory took \(time) on its own, without the services it asked for.",
                    details: [
                        "the first resolve of \(entry.label) waits that long, on whatever thread asks.",
                        """
                        fix: move the slow work out of the factory (load lazily, or in the background), or resolve \
                        it early, off the main thread.
                        """,
                    ]
                )
            )
        }
    }
}
