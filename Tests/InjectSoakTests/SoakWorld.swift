import Dispatch
import Foundation
import Inject

/// The override or `validate()` run that the current task is in, if any: set by the soak around `withOverrides` and
/// `validationReport()`, and read by every factory, so that an instance knows whether it was built in a layer.
///
/// Task-locals reach the synchronous code that the task runs, and factories run on the resolving thread, so a
/// factory sees the value of the resolve that called it.
enum SoakLayer {
    @TaskLocal static var current: Int?

    /// When the top-level resolve the current task is in began (``SoakClock``), so that a factory can tell whether
    /// it runs for a resolve that began before its registration's `.scope(...)` returned.
    @TaskLocal static var resolveBegan: UInt64?
}

/// Monotonic nanoseconds, comparable across threads.
enum SoakClock {
    static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }
}

/// The scopes the soak registers with, each under a name of its own.
enum SoakScopes {
    /// The custom scope.
    static let session = Scope.custom("soak-session")

    /// Every scope, with the name its keys are registered under.
    static let all: [(name: String, scope: Scope)] = [
        ("transient", .transient),
        ("graph", .graph),
        ("singleton", .singleton),
        ("cached", .cached),
        ("weak", .weak),
        ("scoped", .scoped),
        ("session", session),
    ]

    /// The scopes `reset(_:)` is called with.
    static let resettable: [Scope] = [.cached, .scoped, .weak, session]

    /// Whether instances of `scope` resolve their dependencies from the registering container (rather than from the
    /// container resolved through), as the README's scope table says.
    static func resolvesFromOwner(_ scope: Scope) -> Bool {
        scope != .transient && scope != .graph && scope != .scoped
    }
}

/// A service key of the soak: ``SoakService`` or ``SoakHolder``, under a name that says its scope.
struct SoakKey: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        /// ``SoakService``: no dependencies.
        case service
        /// ``SoakHolder``: holds a ``SoakService`` it resolves in its factory.
        case holder
    }

    let kind: Kind
    let name: DIContainer.Name
    let scope: Scope
    /// The ``SoakService`` name a holder resolves; `nil` for a service.
    let dependency: DIContainer.Name?
    /// Whether only children register it, so that resolving it may legitimately fail.
    let childOnly: Bool

    var description: String {
        "\(kind == .service ? "SoakService" : "SoakHolder")[\"\(name.rawValue)\"] \(scope)"
    }

    /// Every key: a service and a holder per scope, registered in the root and shadowed by children, and three
    /// services that only children register.
    static let all: [SoakKey] = {
        let scopes = SoakScopes.all
        var keys = scopes.map {
            SoakKey(kind: .service, name: DIContainer.Name($0.name), scope: $0.scope, dependency: nil, childOnly: false)
        }
        for (index, entry) in scopes.enumerated() {
            // Each holder depends on another scope's service: the singleton holder on the scoped service (a captive
            // dependency, as apps have), the scoped holder on the graph one, and so on.
            let dependency = scopes[(index + 3) % scopes.count].name
            keys.append(
                SoakKey(
                    kind: .holder,
                    name: DIContainer.Name(entry.name),
                    scope: entry.scope,
                    dependency: DIContainer.Name(dependency),
                    childOnly: false
                )
            )
        }
        for (name, scope) in [
            ("extra-singleton", Scope.singleton), ("extra-scoped", .scoped), ("extra-cached", .cached),
        ] {
            keys.append(
                SoakKey(kind: .service, name: DIContainer.Name(name), scope: scope, dependency: nil, childOnly: true)
            )
        }
        return keys
    }()

    /// The service keys the root registers, which every holder's dependency is one of.
    static let rootServices = all.filter { $0.kind == .service && !$0.childOnly }
}

/// One registration the soak made: in a container of the tree, or in an override.
final class SoakRegistration: Sendable, CustomStringConvertible {
    let id: Int
    let key: SoakKey
    /// The scope it was registered with: the key's, except for overrides, which pick one.
    let scope: Scope
    /// The node that registered it, or the override's target.
    let nodeID: Int
    weak let container: DIContainer?
    /// The override layer it belongs to, or `nil` for a registration of the tree.
    let overrideLayer: Int?
    /// When `register(...).scope(...)` returned (``SoakClock``), once it has: a resolve that began before may have
    /// seen the registration torn.
    private let completed = Guarded(UInt64?.none)

    init(id: Int, key: SoakKey, scope: Scope, nodeID: Int, container: DIContainer, overrideLayer: Int?) {
        self.id = id
        self.key = key
        self.scope = scope
        self.nodeID = nodeID
        self.container = container
        self.overrideLayer = overrideLayer
    }

    /// Whether a resolve that began at `time` may have seen the registration before its options were all set.
    func mayBeTorn(forAResolveThatBegan time: UInt64?) -> Bool {
        guard let completed = completed.snapshot else { return true }
        return time.map { $0 <= completed } ?? false
    }

    /// Records that the registration's options are all set.
    func markComplete() {
        completed.withLock { $0 = SoakClock.now }
    }

    var description: String {
        let layer = overrideLayer.map { " in override layer \($0)" } ?? ""
        return "registration #\(id) of \(key.name.rawValue) as \(scope) in node \(nodeID)\(layer)"
    }
}

/// How one instance was made, recorded by its factory.
final class SoakBuild: Sendable, CustomStringConvertible {
    /// Unique per instance, for the whole run.
    let serial: Int
    let registration: SoakRegistration
    /// `r.container` in the factory: where its dependencies came from.
    weak let home: DIContainer?
    /// The override or validation layer the factory ran in, if any.
    let layer: Int?
    /// Whether the resolve that built it began before the registration's `.scope(...)` returned.
    let whileRegistering: Bool

    init(serial: Int, registration: SoakRegistration, home: DIContainer, layer: Int?, whileRegistering: Bool) {
        self.serial = serial
        self.registration = registration
        self.home = home
        self.layer = layer
        self.whileRegistering = whileRegistering
    }

    var description: String {
        var text = "instance #\(serial) of \(registration)"
        if let layer {
            text += ", built in layer \(layer)"
        }
        if whileRegistering {
            text += ", built for a resolve that began before .scope returned"
        }
        return text
    }
}

/// A service without dependencies.
final class SoakService: Sendable {
    let build: SoakBuild

    init(build: SoakBuild) {
        self.build = build
    }
}

/// A service that holds a ``SoakService`` resolved from its own home.
final class SoakHolder: Sendable {
    let build: SoakBuild
    let dependency: SoakService

    init(build: SoakBuild, dependency: SoakService) {
        self.build = build
        self.dependency = dependency
    }
}

/// The churning tree of containers and the soak's counters: what exists, and how each instance is recorded.
final class SoakWorld: Sendable {
    let root: SoakNode
    let ledger: SoakLedger
    /// At most this many nodes are live; past it, a child is dropped.
    let maximumLive = 24

    private struct State {
        var live: [SoakNode] = []
        /// Every live or recently live container, to name a home in a report.
        var nodeIDs: [ObjectIdentifier: Int] = [:]
        var nextNode = 1
        var nextRegistration = 1
        var nextLayer = 1
        /// The last few registrations announced by ``register(_:in:)``, newest last, for resolves to aim at.
        var hot: [(node: SoakNode, key: SoakKey)] = []
    }

    private let state = Guarded(State())
    private let serials = Guarded(0)

    init(ledger: SoakLedger) {
        self.ledger = ledger
        let container = DIContainer()
        root = SoakNode(id: 0, container: container, parent: nil, takesRegistrations: false)
        state.withLock {
            $0.live = [root]
            $0.nodeIDs[ObjectIdentifier(container)] = 0
        }
        for key in SoakKey.all where !key.childOnly {
            _ = root.claim(key)
            register(key, in: root)
        }
        container.seal()
    }

    /// The live nodes, root first.
    var live: [SoakNode] { state.snapshot.live }

    /// The node of a container, by identity, for reports.
    func nodeName(of container: DIContainer?) -> String {
        guard let container else { return "a released container" }
        let id = state.withLock { $0.nodeIDs[ObjectIdentifier(container)] }
        return id.map { "node \($0)" } ?? "a container outside the tree (an override's registry?)"
    }

    /// A new layer id, for an override or a validation run.
    func makeLayerID() -> Int {
        state.withLock { state in
            defer { state.nextLayer += 1 }
            return state.nextLayer
        }
    }

    /// Makes a child of `parent` and registers `initialKeys` into it, sealing it when `seal` is set, before any other
    /// worker can see it. It is live once this returns.
    @discardableResult
    func makeChild(of parent: SoakNode, initialKeys: [SoakKey], takesRegistrations: Bool, seal: Bool) -> SoakNode {
        let container = parent.container.makeChild()
        let node: SoakNode = state.withLock { state in
            defer { state.nextNode += 1 }
            state.nodeIDs[ObjectIdentifier(container)] = state.nextNode
            return SoakNode(
                id: state.nextNode,
                container: container,
                parent: parent,
                takesRegistrations: takesRegistrations
            )
        }
        for key in initialKeys where node.claim(key) {
            register(key, in: node)
        }
        if seal {
            container.seal()
        }
        state.withLock { $0.live.append(node) }
        return node
    }

    /// Removes `node` and its live descendants from the tree; the containers go when the last worker using them does.
    func drop(_ node: SoakNode) {
        guard node !== root else { return }
        let dropped: [SoakNode] = state.withLock { state in
            let (gone, kept) = (
                state.live.filter { $0.isOrDescends(from: node) }, state.live.filter { !$0.isOrDescends(from: node) }
            )
            state.live = kept
            return gone
        }
        _ = dropped  // released outside the lock: a container's deinit releases instances
    }

    /// A registration announced lately, with the live nodes that see it, for a burst of resolves that races it.
    func hotTarget(using generator: inout SeededGenerator) -> (nodes: [SoakNode], key: SoakKey)? {
        let (hot, live) = state.withLock { ($0.hot, $0.live) }
        guard !hot.isEmpty else { return nil }
        let (node, key) = generator.pick(hot)
        let nodes = live.filter { $0.isOrDescends(from: node) }
        return nodes.isEmpty ? nil : (nodes, key)
    }

    /// Registers `key` into `node` with the chained options, then marks it done. The caller has claimed the key.
    ///
    /// The registration is announced first, so that other workers aim bursts of resolves at it while it is made.
    func register(_ key: SoakKey, in node: SoakNode) {
        if node !== root {
            state.withLock { state in
                state.hot.append((node, key))
                if state.hot.count > 4 {
                    state.hot.removeFirst()
                }
            }
        }
        let registration = makeRegistration(
            key: key,
            scope: key.scope,
            node: node,
            container: node.container,
            layer: nil
        )
        register(registration, into: node.container)
        node.markDone(key)
    }

    /// Makes the ledger's record of a registration.
    func makeRegistration(
        key: SoakKey,
        scope: Scope,
        node: SoakNode,
        container: DIContainer,
        layer: Int?
    ) -> SoakRegistration {
        let id: Int = state.withLock { state in
            defer { state.nextRegistration += 1 }
            return state.nextRegistration
        }
        return SoakRegistration(
            id: id,
            key: key,
            scope: scope,
            nodeID: node.id,
            container: container,
            overrideLayer: layer
        )
    }

    /// `container.register { r in ... }.scope(...)` for `registration`, and marks it complete.
    func register(_ registration: SoakRegistration, into container: DIContainer) {
        let key = registration.key
        switch key.kind {
        case .service:
            container.register(SoakService.self, name: key.name) { [self] r in
                SoakService(build: build(registration, home: r.container))
            }.scope(registration.scope)
        case .holder:
            let dependency = key.dependency
            container.register(SoakHolder.self, name: key.name) { [self] r in
                let service = try r.resolve(SoakService.self, name: dependency)
                return SoakHolder(build: build(registration, home: r.container), dependency: service)
            }.scope(registration.scope)
        }
        registration.markComplete()
    }

    /// What a factory records about the instance it is making.
    private func build(_ registration: SoakRegistration, home: DIContainer) -> SoakBuild {
        let serial: Int = serials.withLock {
            $0 += 1
            return $0
        }
        let made = SoakBuild(
            serial: serial,
            registration: registration,
            home: home,
            layer: SoakLayer.current,
            whileRegistering: registration.mayBeTorn(forAResolveThatBegan: SoakLayer.resolveBegan)
        )
        ledger.recordBuild(made, world: self)
        return made
    }
}
