import Inject

/// A guarantee the soak checks, with what a violation of it means.
enum SoakRule: String, CaseIterable, Sendable {
    case singletonBuiltTwice = "a .singleton factory ran more than once outside overrides"
    case singletonNotTheOne = "a .singleton resolve returned another instance than the one its factory built"
    case wrongHome = "an instance resolved its dependencies from the wrong container"
    case sharedInstanceChanged = "a .cached, .scoped, .weak or custom instance changed with no reset under way"
    case leakedFromOverride = "an instance built under an override or validate() was seen outside it"
    case notFreshInsideOverride = "inside an override, a resolve returned an instance not built in that override"
    case overrideMisapplied = "an override was not seen inside its target's subtree, or was seen outside it"
    case unexpectedError = "a resolve failed although its registration was complete before the resolve began"
    case invalidReport = "validationReport() reported an error for a valid tree"
    case notSealed = "isSealed was false after seal()"
}

/// Where in the soak something was seen: the worker, its operation's index, and what the operation did.
struct SoakSite: Sendable, CustomStringConvertible {
    let worker: Int
    let operation: Int
    let what: String

    var description: String { "worker \(worker), operation \(operation) (\(what))" }
}

/// One broken guarantee, with enough detail to find it again.
struct SoakViolation: Sendable, CustomStringConvertible {
    let rule: SoakRule
    let detail: String
    /// Whether an instance involved was built for a resolve that began before its registration's `.scope(...)`
    /// returned.
    let whileRegistering: Bool

    var description: String {
        "[\(rule)] \(detail)\(whileRegistering ? " [racing register/.scope]" : "")"
    }
}

/// What one resolve is remembered by, to check that a shared instance stays the same between two resets.
struct StableKey: Hashable, Sendable {
    let registration: Int
    /// The resolving container's node for `.scoped`; 0 for the scopes that keep instances in the registration.
    let node: Int
    /// Resets of the scope started in the container that keeps the instance, before the resolve.
    let epoch: Int
}

/// The soak's ledger: every violation, the first build of each singleton, the instance seen for each shared
/// registration between resets, and counters for the summary. Lock-protected; every worker writes to it.
final class SoakLedger: Sendable {
    /// How many violations are kept in full, per rule.
    static let examplesPerRule = 6

    private struct State {
        var counts: [SoakRule: Int] = [:]
        var examples: [SoakViolation] = []
        var whileRegistering = 0
        /// Per singleton registration: builds outside layers, and the first of them.
        var singletons: [Int: (builds: Int, first: SoakBuild)] = [:]
        /// The instance first seen under each key.
        var stable: [StableKey: SoakBuild] = [:]
        var stats: [String: Int] = [:]
    }

    private let state = Guarded(State())

    /// Records a violation.
    func record(_ rule: SoakRule, _ detail: String, whileRegistering: Bool = false) {
        state.withLock { state in
            state.counts[rule, default: 0] += 1
            if whileRegistering {
                state.whileRegistering += 1
            }
            if state.examples.lazy.filter({ $0.rule == rule }).count < Self.examplesPerRule {
                state.examples.append(SoakViolation(rule: rule, detail: detail, whileRegistering: whileRegistering))
            }
        }
    }

    /// Bumps a counter of the summary.
    func count(_ stat: String, by amount: Int = 1) {
        state.withLock { $0.stats[stat, default: 0] += amount }
    }

    /// Called by every factory: counts the builds of each singleton outside layers.
    func recordBuild(_ build: SoakBuild, world: SoakWorld) {
        count(build.layer == nil ? "instances built" : "instances built in layers")
        if build.whileRegistering {
            count("instances built for a resolve racing register/.scope")
        }
        guard build.registration.scope == .singleton, build.layer == nil else { return }
        let (builds, first): (Int, SoakBuild) = state.withLock { state in
            var entry = state.singletons[build.registration.id] ?? (0, build)
            entry.builds += 1
            state.singletons[build.registration.id] = entry
            return entry
        }
        if builds > 1 {
            record(
                .singletonBuiltTwice,
                "\(build) (home \(world.nodeName(of: build.home))) is build \(builds) of that singleton; the first "
                    + "was instance #\(first.serial)",
                whileRegistering: build.whileRegistering || first.whileRegistering
            )
        }
    }

    /// The first build of a singleton registration outside layers.
    func firstSingleton(_ registration: Int) -> SoakBuild? {
        state.withLock { $0.singletons[registration]?.first }
    }

    /// Checks that the instance seen under `key` is the one seen before under it; records the first.
    func checkStable(_ key: StableKey, _ build: SoakBuild, through: String, site: SoakSite) {
        let earlier: SoakBuild = state.withLock { state in
            if let seen = state.stable[key] {
                return seen
            }
            state.stable[key] = build
            return build
        }
        if earlier !== build {
            record(
                .sharedInstanceChanged,
                "\(site): resolved through \(through), got \(build), but \(earlier) was resolved before with no "
                    + "reset of \(build.registration.scope) in between (reset epoch \(key.epoch))",
                whileRegistering: build.whileRegistering || earlier.whileRegistering
            )
        }
    }

    /// The violations, per rule, and the examples kept.
    var violations: (counts: [SoakRule: Int], examples: [SoakViolation], whileRegistering: Int) {
        state.withLock { ($0.counts, $0.examples, $0.whileRegistering) }
    }

    var total: Int { state.withLock { $0.counts.values.reduce(0, +) } }

    var stats: [String: Int] { state.snapshot.stats }

    /// The run in words: the configuration, the counters, every rule broken and the first few violations of each.
    func report(_ configuration: SoakConfiguration, seconds: Double) -> String {
        let (counts, examples, whileRegistering) = violations
        var lines = ["soak: \(configuration), \(String(format: "%.1f", seconds)) s"]
        lines.append(stats.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
        if counts.isEmpty {
            lines.append("no violations")
        } else {
            lines.append(
                "\(counts.values.reduce(0, +)) violations (\(whileRegistering) involve an instance built for a "
                    + "resolve that began before its registration's .scope returned); replay with INJECT_SOAK_SEED=\(configuration.seedText) (the operations "
                    + "each worker picks are the same, the interleaving is not):"
            )
            for rule in SoakRule.allCases {
                if let count = counts[rule] {
                    lines.append("  \(count) x \(rule.rawValue)")
                }
            }
            lines.append("first violations:")
            lines += examples.map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}

/// The checks on one resolved instance, by the operation that resolved it.
struct SoakChecks {
    let world: SoakWorld
    let site: SoakSite

    var ledger: SoakLedger { world.ledger }

    /// Checks an instance resolved through `container` outside any layer, and the dependency a holder holds: no
    /// layer's mark, dependencies from the right container, a singleton's one instance.
    func outside(_ build: SoakBuild, dependency: SoakBuild?, through container: DIContainer) {
        outside(build, through: container)
        if let dependency, let home = build.home {
            outside(dependency, through: home)
        }
    }

    private func outside(_ build: SoakBuild, through container: DIContainer) {
        if let layer = build.layer {
            ledger.record(
                .leakedFromOverride,
                "\(site): resolved through \(world.nodeName(of: container)) outside any override, got \(build) "
                    + "from layer \(layer)",
                whileRegistering: build.whileRegistering
            )
        }
        home(build, through: container)
        if build.registration.scope == .singleton, build.layer == nil {
            let first = ledger.firstSingleton(build.registration.id)
            if first !== build {
                ledger.record(
                    .singletonNotTheOne,
                    "\(site): resolved through \(world.nodeName(of: container)), got \(build), but the singleton's "
                        + "factory first built \(first.map(\.description) ?? "nothing outside overrides")",
                    whileRegistering: build.whileRegistering || first?.whileRegistering == true
                )
            }
        }
    }

    /// Checks an instance resolved through `container` inside the override or validation `layer`: built in the
    /// layer (caches are fresh inside), dependencies from the right container, and the override's registration
    /// seen exactly in its target's subtree.
    func inside(
        layer: Int,
        _ build: SoakBuild,
        dependency: SoakBuild?,
        through container: DIContainer,
        override: SoakRegistration?
    ) {
        inside(layer: layer, build, through: container, override: override)
        if let dependency, let home = build.home {
            inside(layer: layer, dependency, through: home, override: override)
        }
    }

    private func inside(layer: Int, _ build: SoakBuild, through container: DIContainer, override: SoakRegistration?) {
        if build.layer != layer {
            ledger.record(
                .notFreshInsideOverride,
                "\(site): inside override layer \(layer), resolved through \(world.nodeName(of: container)), got "
                    + "\(build)",
                whileRegistering: build.whileRegistering
            )
        }
        home(build, through: container)
        guard let override, let target = override.container, override.key.kind == .service,
            build.registration.key.kind == .service, build.registration.key.name == override.key.name
        else { return }
        let applies = sequence(first: container, next: \.parent).contains { $0 === target }
        let gotOverride = build.registration === override
        if applies != gotOverride {
            ledger.record(
                .overrideMisapplied,
                "\(site): inside override layer \(layer) of \(world.nodeName(of: target)), which overrides "
                    + "\(override.key.name.rawValue), a resolve through \(world.nodeName(of: container)) "
                    + "(\(applies ? "in" : "outside") its subtree) got \(build)",
                whileRegistering: build.whileRegistering
            )
        }
    }

    /// A shared instance's home must be its registering container; the others', the container resolved through.
    private func home(_ build: SoakBuild, through container: DIContainer) {
        let registration = build.registration
        let expected = SoakScopes.resolvesFromOwner(registration.scope) ? registration.container : container
        guard let expected, build.home !== expected else { return }
        ledger.record(
            .wrongHome,
            "\(site): resolved through \(world.nodeName(of: container)), got \(build), whose factory resolved "
                + "from \(world.nodeName(of: build.home)), not \(world.nodeName(of: expected))",
            whileRegistering: build.whileRegistering
        )
    }
}
