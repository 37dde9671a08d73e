import Dispatch
import Foundation
import Inject
import InjectTestSupport
import InjectTesting
import Testing

/// Small deterministic reproducers of what the soak looks for, one guarantee each, to run and debug on their own.
struct SoakReproducerTests {
    final class Service: Sendable {
        weak let home: DIContainer?

        init(home: DIContainer? = nil) {
            self.home = home
        }
    }

    final class Clock: Sendable {}

    final class Session: Sendable {
        let clock: Clock

        init(clock: Clock) {
            self.clock = clock
        }
    }

    /// `register` publishes the registration before `.scope(.singleton)` sets its scope: a resolve in between must
    /// get a singleton (the root's, or the child's), never a one-off instance, and the child's factory must run at
    /// most once.
    @Test func aResolveBetweenRegisterAndScopeGetsASingletonNotAOneOffInstance() throws {
        let root = DIContainer()
        root.register { Service() }.scope(.singleton)
        let child = root.makeChild()
        let builds = Counter()
        let registration = child.register { () -> Service in
            builds.increment()
            return Service()
        }
        let early = Cell<Service>()
        let resolved = onThread(within: 10) {
            early.value = try? child.resolveThrowing(Service.self)
            return true
        }
        registration.scope(.singleton)
        let childSingleton = try child.resolveThrowing(Service.self)
        let rootSingleton = try root.resolveThrowing(Service.self)

        #expect(resolved == true, "the resolve on another thread did not finish")
        let earlyInstance = try #require(early.value, "the resolve between register and .scope failed")
        #expect(builds.value <= 1, "the child's singleton factory ran \(builds.value) times")
        #expect(
            earlyInstance === rootSingleton || earlyInstance === childSingleton,
            "the resolve between register and .scope got a one-off instance, neither the root's nor the child's singleton"
        )
    }

    /// A thread resolves through a grandchild while the child registers a singleton whose factory records
    /// `r.container`: the child's singleton must be built from the child, never kept from a build with another
    /// container's rules.
    /// Async, so that waiting for the racing threads suspends instead of holding one of the concurrency pool's two
    /// threads while the soak beside it keeps the cores busy.
    @Test func aSingletonRegisteredWhileAGrandchildResolvesResolvesFromItsChild() async {
        // Fewer under the thread sanitizer (INJECT_SOAK_SCALE=0.1 in CI), where a trial costs ten times as much.
        let trials = max(1_000, Int(5_000 * SoakConfiguration.fromEnvironment().scale))
        let wrongHome = Counter()
        let grandchildGotAnotherInstance = Counter()
        let overlapped = Counter()
        let oneOffInGrandchild = Counter()
        let race = RegistrationRace()
        var generator = SeededGenerator(seed: SoakConfiguration.defaultSeed)
        let spins = (0..<trials).map { _ in Int.random(in: 0..<400, using: &generator) }

        let finished = await finishesSuspending(within: 120, "\(trials) registrations racing a grandchild's resolves") {
            race.startResolver()
            for trial in 0..<trials {
                let root = DIContainer()
                root.register { r in Service(home: r.container) }.scope(.singleton)
                let child = root.makeChild()
                let grandchild = child.makeChild()
                guard race.begin(grandchild) else { return }
                var sink = 0
                for spin in 0..<spins[trial] {
                    sink &+= spin
                }
                race.phase(.registering)
                child.register { r in Service(home: r.container) }.scope(.singleton)
                race.phase(.registered)
                guard let seen = race.end() else { return }
                if seen.overlapped {
                    overlapped.increment()
                }
                if seen.homes.contains(where: { $0 === grandchild }) {
                    oneOffInGrandchild.increment()
                }
                guard let singleton = try? child.resolveThrowing(Service.self) else {
                    wrongHome.increment()
                    continue
                }
                if singleton.home !== child {
                    wrongHome.increment()
                }
                if (try? grandchild.resolveThrowing(Service.self)) !== singleton {
                    grandchildGotAnotherInstance.increment()
                }
                withExtendedLifetime(sink) {}
            }
            race.stopResolver()
        }
        print(
            "1b: \(trials) trials, \(overlapped.value) with a grandchild resolve during register/.scope, "
                + "\(oneOffInGrandchild.value) in which the grandchild got a one-off built from itself, "
                + "\(wrongHome.value) with the child's singleton's home not the child, "
                + "\(grandchildGotAnotherInstance.value) with the grandchild resolving another instance afterwards"
        )
        #expect(finished)
        #expect(overlapped.value > 0, "the resolves never overlapped a registration: the test tested nothing")
        #expect(wrongHome.value == 0, "\(wrongHome.value) of \(trials) trials: the child's singleton's home was wrong")
        #expect(
            oneOffInGrandchild.value == 0,
            "\(oneOffInGrandchild.value) of \(trials) trials: the grandchild saw the child's registration half-made"
        )
        #expect(grandchildGotAnotherInstance.value == 0, "\(grandchildGotAnotherInstance.value) of \(trials) trials")
    }

    /// A `.scoped` instance of a sibling built under an override of `a` belongs to the override; after it, the
    /// sibling builds its own, from the root's real singleton.
    @Test func aSiblingsScopedInstanceBuiltUnderAnOverrideIsNotKeptAfterIt() throws {
        let root = DIContainer()
        root.register { Clock() }.scope(.singleton)
        root.register { r in Session(clock: try r.resolve()) }.scope(.scoped)
        let a = root.makeChild()
        let b = root.makeChild()

        let inside = try withOverrides(in: a) { _ in
        } operation: {
            try b.resolveThrowing(Session.self)
        }
        let after = try b.resolveThrowing(Session.self)

        #expect(inside !== after, "the sibling kept the Session built under the override")
        #expect(after.clock === (try root.resolveThrowing(Clock.self)), "the sibling's Session holds another Clock")
    }
}

/// The resolver side of the registration race: a thread that resolves `Service` through the trial's grandchild in a
/// loop for as long as the trial's registration is under way, and records what it got.
final class RegistrationRace: @unchecked Sendable {
    // @unchecked: every stored property is a `let` of a lock-protected or semaphore type.
    enum Phase {
        case idle
        case before
        case registering
        case registered
        case stop
    }

    /// What the resolver saw in one trial: whether it resolved while the registration was under way, and the homes
    /// of the instances it got.
    struct Seen {
        var overlapped = false
        var homes: [DIContainer] = []
    }

    private let state = Guarded((phase: Phase.idle, grandchild: DIContainer?.none, resolves: 0, seen: Seen()))
    private let start = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    func startResolver() {
        Thread { [self] in
            while true {
                start.wait()
                guard let grandchild = state.withLock({ $0.phase == .stop ? nil : $0.grandchild }) else { return }
                var seen = Seen()
                while true {
                    let service = try? grandchild.resolveThrowing(SoakReproducerTests.Service.self)
                    let (phase, stop): (Phase, Bool) = state.withLock {
                        $0.resolves += 1
                        return ($0.phase, $0.phase == .registered)
                    }
                    if phase == .registering {
                        seen.overlapped = true
                    }
                    if let home = service?.home, phase != .before {
                        seen.homes.append(home)
                    }
                    if stop {
                        break
                    }
                }
                state.withLock { $0.seen = seen }
                finished.signal()
            }
        }.start()
    }

    /// Starts a trial through `grandchild`, once the resolver has resolved through it at least once.
    func begin(_ grandchild: DIContainer) -> Bool {
        state.withLock {
            $0.grandchild = grandchild
            $0.phase = .before
            $0.resolves = 0
        }
        start.signal()
        let deadline = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
        while state.withLock({ $0.resolves == 0 }) {
            if DispatchTime.now().uptimeNanoseconds > deadline {
                return false
            }
        }
        return true
    }

    func phase(_ phase: Phase) {
        state.withLock { $0.phase = phase }
    }

    /// Waits for the resolver to see the end of the trial; `nil` on a time-out.
    func end() -> Seen? {
        guard finished.wait(timeout: .now() + 10) == .success else { return nil }
        return state.withLock {
            $0.grandchild = nil
            return $0.seen
        }
    }

    func stopResolver() {
        state.withLock { $0.phase = .stop }
        start.signal()
    }
}

/// A reset racing resolves: a resolve that found a cache just before a reset took it out of its table must not
/// build into it, where the instance would be released (its `onRelease` run) before that very resolve returns.
extension SoakReproducerTests {
    /// A pool that remembers which thread closed it.
    final class ClosingPool: @unchecked Sendable {
        // @unchecked: `closer` is only touched under `lock`.
        private let lock = NSLock()
        private var closer: ObjectIdentifier?

        func close() {
            let thread = ObjectIdentifier(Thread.current)
            lock.withLock { closer = thread }
        }

        var closedBy: ObjectIdentifier? {
            lock.withLock { closer }
        }
    }

    enum ResetVariant: CaseIterable, Sendable {
        case scopedReset
        case scopedRegistrationReset
        case cachedArgumentRegistrationReset
    }

    @Test(arguments: ResetVariant.allCases)
    func aResolveRacingResetsNeverGetsAnInstanceItsOwnCallReleased(variant: ResetVariant) {
        let container = DIContainer()
        switch variant {
        case .scopedReset, .scopedRegistrationReset:
            container.register { ClosingPool() }.scope(.scoped).onRelease { $0.close() }
        case .cachedArgumentRegistrationReset:
            container.register { (_: DIResolver, _: Int) in ClosingPool() }.scope(.cached).onRelease { $0.close() }
        }
        // Fewer under the thread sanitizer (INJECT_SOAK_SCALE=0.1 in CI), where a resolve costs ten times as much.
        let iterations = max(20_000, Int(200_000 * SoakConfiguration.fromEnvironment().scale))
        let closedInside = Counter()
        let resets = Counter()
        let done = Cell<Bool>()

        let finished = finishes(within: 60, "a resolve loop against a reset loop") {
            onThreadsAtOnce(2) { worker in
                if worker == 0 {
                    while done.value != true {
                        switch variant {
                        case .scopedReset: container.reset(.scoped)
                        case .scopedRegistrationReset, .cachedArgumentRegistrationReset:
                            container.reset(ClosingPool.self)
                        }
                        _ = resets.increment()
                    }
                } else {
                    let me = ObjectIdentifier(Thread.current)
                    // At least `iterations`, and on until the resets have overlapped them a hundred times (the reset
                    // thread may start late on two busy cores), for at most 50 s: the check below fails then.
                    let deadline = DispatchTime.now().uptimeNanoseconds + 50_000_000_000
                    var iteration = 0
                    while iteration < iterations
                        || (resets.value <= 100 && DispatchTime.now().uptimeNanoseconds < deadline)
                    {
                        iteration += 1
                        let pool =
                            variant == .cachedArgumentRegistrationReset
                            ? container.resolve(ClosingPool.self, argument: 1) : container.resolve(ClosingPool.self)
                        // This thread never resets: a pool it closed was released inside its own resolve.
                        if pool.closedBy == me {
                            _ = closedInside.increment()
                        }
                    }
                    done.value = true
                }
            }
        }

        #expect(finished)
        #expect(closedInside.value == 0, "\(closedInside.value) of \(iterations) resolves returned a released pool")
        #expect(resets.value > 100, "the resets did not overlap the resolves")
    }
}

extension SoakReproducerTests {
    final class Versioned: Sendable {
        let version: Int

        init(_ version: Int) {
            self.version = version
        }
    }

    /// A `.scoped` (or `.scoped` argument) registration re-registered while other threads resolve it: a resolve that
    /// found the old registration gets the replacement, never an error, whatever it found retired on the way.
    @Test(arguments: [false, true])
    func aScopedRegistrationReplacedWhileThreadsResolveItNeverFailsTheirResolves(withArgument: Bool) {
        let container = DIContainer()
        @Sendable func register(_ version: Int) {
            if withArgument {
                container.register { (_: DIResolver, _: Int) in Versioned(version) }.scope(.scoped)
            } else {
                container.register { Versioned(version) }.scope(.scoped)
            }
        }
        register(0)
        // Fewer under the thread sanitizer (INJECT_SOAK_SCALE=0.1 in CI), where a resolve costs ten times as much.
        let registrations = max(2_000, Int(20_000 * SoakConfiguration.fromEnvironment().scale))
        let failures = Collector<String>()
        let resolves = Counter()
        let done = Cell<Bool>()

        let finished = finishes(within: 60, "\(registrations) re-registrations against two resolving threads") {
            onThreadsAtOnce(3) { worker in
                if worker == 0 {
                    // At least `registrations`, and on until the resolving threads have overlapped them a hundred
                    // times (on two cores, beside the soak and under the sanitizer, they may start late), for at
                    // most 50 s: the check below fails then.
                    let deadline = DispatchTime.now().uptimeNanoseconds + 50_000_000_000
                    var version = 0
                    while version < registrations
                        || (resolves.value < 100 && DispatchTime.now().uptimeNanoseconds < deadline)
                    {
                        version += 1
                        register(version)
                    }
                    done.value = true
                    return
                }
                while done.value != true {
                    do {
                        _ =
                            withArgument
                            ? try container.resolveThrowing(Versioned.self, argument: 1)
                            : try container.resolveThrowing(Versioned.self)
                        _ = resolves.increment()
                    } catch {
                        failures.append("\(error)")
                    }
                }
            }
        }

        #expect(finished)
        #expect(failures.values.isEmpty, "\(failures.values.count) resolves failed, e.g. \(failures.values.prefix(3))")
        #expect(resolves.value >= 100, "the resolves did not overlap the registrations")
    }
}
