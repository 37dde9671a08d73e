import Foundation
import Inject
import InjectTesting

/// One soak worker: picks operations with its own seeded generator and runs them against the shared tree, checking
/// each result as it goes.
///
/// A worker runs on a `Thread` of its own or in a Swift concurrency task (``runAsync(operations:)``), which overrides with the
/// asynchronous form of the layer `withOverrides` makes and suspends inside it. Every choice a worker makes comes from its generator, so a
/// seed replays each worker's sequence of choices; which node a choice lands on, and the interleaving, are not
/// replayed, since the tree is shared.
final class SoakWorker {
    /// What an operation does.
    enum Operation: CaseIterable {
        case resolve
        case register
        case makeChild
        case dropChild
        case reset
        case override
        case validate
        case seal

        /// How often each operation is picked, out of the sum of all weights.
        var weight: Int {
            switch self {
            case .resolve: 50
            case .register: 10
            case .makeChild: 6
            case .dropChild: 3
            case .reset: 10
            case .override: 12
            case .validate: 2
            case .seal: 2
            }
        }
    }

    /// One resolve inside an override, chosen before the override begins.
    private struct Step {
        let node: SoakNode
        let key: SoakKey
        /// A scope to reset in the override's target after the resolve, if any.
        let reset: Scope?
    }

    /// A resolved instance, held, with what its factory recorded.
    private struct Resolved {
        let instance: AnyObject
        let build: SoakBuild
        let dependency: SoakBuild?
    }

    private let index: Int
    private let world: SoakWorld
    private var generator: SeededGenerator
    private var operation = 0
    private static let totalWeight = Operation.allCases.map(\.weight).reduce(0, +)

    init(index: Int, world: SoakWorld, generator: SeededGenerator) {
        self.index = index
        self.world = world
        self.generator = generator
    }

    private var ledger: SoakLedger { world.ledger }

    private func site(_ what: String) -> SoakSite {
        SoakSite(worker: index, operation: operation, what: what)
    }

    private func nextOperation() -> Operation {
        var roll = Int.random(in: 0..<Self.totalWeight, using: &generator)
        for operation in Operation.allCases {
            if roll < operation.weight {
                return operation
            }
            roll -= operation.weight
        }
        return .resolve
    }

    /// Runs `operations` operations on the calling thread.
    func run(operations: Int) {
        for number in 0..<operations {
            operation = number
            let next = nextOperation()
            if next == .override {
                overrideSynchronously()
            } else {
                perform(next)
            }
        }
    }

    /// Runs `operations` operations in the calling task, overriding with the asynchronous form of the layer `withOverrides` makes.
    func runAsync(operations: Int) async {
        for number in 0..<operations {
            operation = number
            let next = nextOperation()
            if next == .override {
                await overrideAsynchronously()
            } else {
                perform(next)
            }
            if number.isMultiple(of: 16) {  // the pool is shared with the other tests: take turns often
                await Task.yield()
            }
        }
    }

    private func perform(_ operation: Operation) {
        switch operation {
        case .resolve: resolveOutside()
        case .register: registerIntoALiveChild()
        case .makeChild: makeChild()
        case .dropChild: dropChild()
        case .reset: reset()
        case .override: overrideSynchronously()
        case .validate: validate()
        case .seal: seal()
        }
    }

    // MARK: Resolving outside overrides

    /// Resolves `key` through `container`, telling the factories when the resolve began.
    private func resolve(_ key: SoakKey, through container: DIContainer) throws -> Resolved {
        try SoakLayer.$resolveBegan.withValue(SoakClock.now) {
            try resolveNow(key, through: container)
        }
    }

    private func resolveNow(_ key: SoakKey, through container: DIContainer) throws -> Resolved {
        switch key.kind {
        case .service:
            let service = try container.resolveThrowing(SoakService.self, name: key.name)
            return Resolved(instance: service, build: service.build, dependency: nil)
        case .holder:
            let holder = try container.resolveThrowing(SoakHolder.self, name: key.name)
            return Resolved(instance: holder, build: holder.build, dependency: holder.dependency.build)
        }
    }

    /// Resolves a random key through a random node, or, three times in ten, a burst of resolves at a registration
    /// announced lately, through its node and that node's descendants.
    private func resolveOutside() {
        if generator.chance(0.3), let (nodes, key) = world.hotTarget(using: &generator) {
            for _ in 0..<Int.random(in: 1...12, using: &generator) {
                resolveOutside(key, through: generator.pick(nodes))
            }
        } else {
            resolveOutside(generator.pick(SoakKey.all), through: generator.pick(world.live))
        }
    }

    /// Resolves `key` through `node` and checks what it got. A `.weak` key is resolved twice while the first is
    /// held; a `.cached`, `.scoped` or custom one is compared with the instance seen before since the last reset.
    private func resolveOutside(_ key: SoakKey, through node: SoakNode) {
        let site = site("resolve \(key) through \(node)")
        let checks = SoakChecks(world: world, site: site)
        let mustSucceed = node.seesDone(key)
        let lineage = node.lineage
        let before = lineage.map { $0.resets(of: key.scope) }
        ledger.count("resolves")
        do {
            let first = try resolve(key, through: node.container)
            checks.outside(first.build, dependency: first.dependency, through: node.container)
            if key.scope == .weak {
                let second = try resolve(key, through: node.container)
                checks.outside(second.build, dependency: second.dependency, through: node.container)
                if second.build.registration === first.build.registration, second.build.serial != first.build.serial,
                    quietKeeper(of: first.build, lineage: lineage, before: before, scope: key.scope) != nil
                {
                    ledger.record(
                        .sharedInstanceChanged,
                        "\(site): while \(first.build) was held, a second resolve got \(second.build)",
                        whileRegistering: first.build.whileRegistering || second.build.whileRegistering
                    )
                }
                withExtendedLifetime(first.instance) {}
            } else if [.cached, .scoped, SoakScopes.session].contains(key.scope), first.build.layer == nil,
                let epoch = quietKeeper(of: first.build, lineage: lineage, before: before, scope: key.scope)
            {
                let scopedNode = key.scope == .scoped ? node.id : 0
                ledger.checkStable(
                    StableKey(registration: first.build.registration.id, node: scopedNode, epoch: epoch),
                    first.build,
                    through: node.description,
                    site: site
                )
            }
            if mustSucceed, generator.chance(0.1), !isRegistered(key, in: node.container) {
                ledger.record(.unexpectedError, "\(site): isRegistered was false for a complete registration")
            }
        } catch {
            if mustSucceed {
                ledger.record(.unexpectedError, "\(site): \(error)")
            } else {
                ledger.count("expected errors (not registered yet)")
            }
        }
    }

    private func isRegistered(_ key: SoakKey, in container: DIContainer) -> Bool {
        switch key.kind {
        case .service: container.isRegistered(SoakService.self, name: key.name)
        case .holder: container.isRegistered(SoakHolder.self, name: key.name)
        }
    }

    /// The reset epoch of the container that keeps `build`'s instance, when no reset of `scope` started or ran there
    /// while the resolve ran; `nil` otherwise.
    ///
    /// - Parameters:
    ///   - lineage: The resolving node and its ancestors; the first is the keeper of a `.scoped` instance.
    ///   - before: The reset counts of `scope` in each node of `lineage`, read before the resolve.
    private func quietKeeper(of build: SoakBuild, lineage: [SoakNode], before: [ResetCount], scope: Scope) -> Int? {
        let position =
            scope == .scoped ? 0 : lineage.firstIndex { $0.id == build.registration.nodeID && build.layer == nil }
        guard let position else { return nil }
        let after = lineage[position].resets(of: scope)
        guard after == before[position], after.isQuiet else { return nil }
        return after.started
    }

    // MARK: Changing the tree

    /// Registers a key the node has not registered yet into a live child, while other workers resolve through it
    /// and its descendants.
    private func registerIntoALiveChild() {
        let candidates = world.live.filter(\.takesRegistrations)
        guard !candidates.isEmpty else { return }
        let node = generator.pick(candidates)
        for _ in 0..<3 {
            let key = generator.pick(SoakKey.all)
            if node.claim(key) {
                world.register(key, in: node)
                ledger.count("registrations into live children")
                return
            }
        }
    }

    /// Makes a child, with a few registrations; one in five will be sealed, half of those at once.
    private func makeChild() {
        let live = world.live
        if live.count >= world.maximumLive, let victim = live.dropFirst().randomElement(using: &generator) {
            world.drop(victim)
            ledger.count("children dropped")
        }
        let parents = live.filter { $0.depth < 3 }
        let parent = generator.pick(parents.isEmpty ? [world.root] : parents)
        let keys = (0..<Int.random(in: 0...3, using: &generator)).map { _ in generator.pick(SoakKey.all) }
        let sealable = generator.chance(0.2)
        world.makeChild(
            of: parent,
            initialKeys: keys,
            takesRegistrations: !sealable,
            seal: sealable && generator.chance(0.5)
        )
        ledger.count("children made")
    }

    private func dropChild() {
        guard let victim = world.live.dropFirst().randomElement(using: &generator) else { return }
        world.drop(victim)
        ledger.count("children dropped")
    }

    private func reset() {
        let node = generator.pick(world.live)
        let scope = generator.pick(SoakScopes.resettable)
        node.reset(scope)
        ledger.count("resets")
    }

    /// Seals a node that nobody registers into.
    private func seal() {
        let candidates = world.live.filter { !$0.takesRegistrations && !$0.container.isSealed }
        guard !candidates.isEmpty else { return }
        let node = generator.pick(candidates)
        node.container.seal()
        ledger.count("seals")
        if !node.container.isSealed {
            ledger.record(.notSealed, "\(site("seal \(node)")): isSealed is false")
        }
    }

    /// `validationReport()` on a random container, in a layer of its own so that its builds are marked.
    private func validate() {
        let node = generator.pick(world.live)
        let layer = world.makeLayerID()
        let report = SoakLayer.$current.withValue(layer) { node.container.validationReport() }
        ledger.count("validation reports")
        if !report.isValid {
            ledger.record(
                .invalidReport,
                "\(site("validationReport() of \(node)")): \(String(describing: report).prefix(800))"
            )
        }
    }

    // MARK: Overrides

    /// What an override operation will do, chosen before it begins: its target, the service it overrides (if any)
    /// with which scope, and the resolves inside it, through the target, its relatives and random nodes.
    private func planOverride() -> (target: SoakNode, registration: SoakRegistration?, steps: [Step], layer: Int) {
        let live = world.live
        let target = generator.pick(live)
        let layer = world.makeLayerID()
        var registration: SoakRegistration?
        if generator.chance(0.7) {
            registration = world.makeRegistration(
                key: generator.pick(SoakKey.rootServices),
                scope: generator.pick(SoakScopes.all).scope,
                node: target,
                container: target.container,
                layer: layer
            )
        }
        let relatives = live.filter { $0.parent === target.parent || $0.isOrDescends(from: target) }
        let steps = (0..<Int.random(in: 2...8, using: &generator)).map { _ in
            let node = generator.chance(0.6) ? generator.pick(relatives) : generator.pick(live)
            let key: SoakKey
            if let overridden = registration?.key, generator.chance(0.4) {
                key = overridden
            } else {
                key = generator.pick(SoakKey.all)
            }
            return Step(
                node: node,
                key: key,
                reset: generator.chance(0.1) ? generator.pick(SoakScopes.resettable) : nil
            )
        }
        return (target, registration, steps, layer)
    }

    /// One resolve inside the override `layer`, checked against the rules for inside.
    private func runStep(_ step: Step, layer: Int, target: SoakNode, override: SoakRegistration?) {
        let site = site("inside override layer \(layer) of \(target): resolve \(step.key) through \(step.node)")
        let mustSucceed = step.node.seesDone(step.key) || step.key == override?.key
        ledger.count("resolves inside overrides")
        do {
            let resolved = try resolve(step.key, through: step.node.container)
            SoakChecks(world: world, site: site).inside(
                layer: layer,
                resolved.build,
                dependency: resolved.dependency,
                through: step.node.container,
                override: override
            )
        } catch {
            if mustSucceed {
                ledger.record(.unexpectedError, "\(site): \(error)")
            } else {
                ledger.count("expected errors (not registered yet)")
            }
        }
        if let scope = step.reset {
            // Inside the override, reset drops the layer's instances only: no reset of the container to count.
            target.container.reset(scope)
        }
    }

    /// After an override: the target's and its relatives' services, outside, must carry no mark of the layer.
    private func resolveAfterOverride(_ steps: [Step]) {
        for step in steps.prefix(2) {
            let site = site("after an override: resolve \(step.key) through \(step.node)")
            if let resolved = try? resolve(step.key, through: step.node.container) {
                SoakChecks(world: world, site: site).outside(
                    resolved.build,
                    dependency: resolved.dependency,
                    through: step.node.container
                )
            }
        }
    }

    private func overrideSynchronously() {
        let (target, registration, steps, layer) = planOverride()
        SoakLayer.$current.withValue(layer) {
            // The layer withOverrides makes, without its report of overrides a resolve did not reach: the soak
            // resolves through other containers on purpose.
            target.container.overrideLayer { registry in
                if let registration {
                    world.register(registration, into: registry)
                }
            }
            .run {
                for step in steps {
                    runStep(step, layer: layer, target: target, override: registration)
                }
            }
        }
        ledger.count("overrides")
        resolveAfterOverride(steps)
    }

    private func overrideAsynchronously() async {
        let (target, registration, steps, layer) = planOverride()
        await SoakLayer.$current.withValue(layer) {
            await target.container.overrideLayer { registry in
                if let registration {
                    world.register(registration, into: registry)
                }
            }
            .run {
                for (number, step) in steps.enumerated() {
                    runStep(step, layer: layer, target: target, override: registration)
                    if number.isMultiple(of: 2) {
                        await Task.yield()  // the override follows the task across the suspension
                    }
                }
            }
        }
        ledger.count("overrides (async)")
        resolveAfterOverride(steps)
    }
}
