import Dispatch
import Foundation
import Inject
import InjectTestSupport
import Testing

/// A cycle closed only by `resolveProperties` works from every entry point, `validate()` says: also when two threads
/// (or a thread and a task) enter it at once, each at another member, so that each holds one member's build in its
/// `resolveProperties` while asking for the other. Every test forces that overlap, and fails by time-out rather
/// than hanging.
struct PropertiesCycleAcrossThreadsTests {
    final class Router: @unchecked Sendable {
        // @unchecked: set once by resolveProperties, before the instance is handed out.
        weak var coordinator: Coordinator?
    }

    final class Coordinator: @unchecked Sendable {
        // @unchecked: set once by resolveProperties, before the instance is handed out.
        var router: Router?
    }

    /// Router and Coordinator of `scope`, each of whose `resolveProperties` waits (at most 10 s) until both builds
    /// are in theirs before it asks for the other, when `bothInProperties` is given: the two entries overlap for sure.
    ///
    /// - Parameter patience: How long each waits for the other: long when one side is a task, which a test run that
    ///   keeps the concurrency pool's two threads busy may start late.
    private static func register(
        in container: DIContainer,
        _ scope: Scope,
        bothInProperties: Arrivals? = nil,
        overlapped: Counter = Counter(),
        patience: Double = 10
    ) {
        @Sendable func meet() {
            guard let bothInProperties else { return }
            bothInProperties.arrive()
            if bothInProperties.waitForEveryone(within: patience) {
                overlapped.increment()
            }
        }
        // After the meeting, each side links its instance only a moment after it got the other: a resolve that
        // returned before the other side's resolveProperties ended would see its pair unlinked.
        @Sendable func linger() {
            if bothInProperties != nil {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        container.register { Router() }.scope(scope)
            .resolveProperties { r, router in
                meet()
                let coordinator: Coordinator = try r.resolve()
                linger()
                router.coordinator = coordinator
            }
        container.register { Coordinator() }.scope(scope)
            .resolveProperties { r, coordinator in
                meet()
                let router: Router = try r.resolve()
                linger()
                coordinator.router = router
            }
    }

    @Test(arguments: [Scope.singleton, .scoped])
    func validationCallsThePropertiesCycleValid(scope: Scope) {
        let container = DIContainer()
        Self.register(in: container, scope)
        #expect(container.validationReport().isValid)
        #expect(container.makeChild().validationReport().isValid)
    }

    private struct Outcome: Sendable {
        let router: Result<Router, ResolutionError>
        let coordinator: Result<Coordinator, ResolutionError>
        /// Whether each thread found its pair linked as soon as its resolve returned.
        let linkedOnReturn: [Bool]
    }

    /// Resolves Router on one thread and Coordinator on another, at once, through `container`.
    private static func resolveBothAtOnce(through container: DIContainer) -> Outcome? {
        onThread(within: 30) {
            let router = Cell<Result<Router, ResolutionError>>()
            let coordinator = Cell<Result<Coordinator, ResolutionError>>()
            let linked = Collector<Bool>()
            onThreadsAtOnce(2) { index in
                if index == 0 {
                    router.value = Result { try container.resolveThrowing(Router.self) }.mapError {
                        $0 as! ResolutionError
                    }
                    let got = try? router.value?.get()
                    linked.append(got.map { $0.coordinator?.router === $0 } ?? false)
                } else {
                    coordinator.value = Result { try container.resolveThrowing(Coordinator.self) }
                        .mapError { $0 as! ResolutionError }
                    let got = try? coordinator.value?.get()
                    linked.append(got.map { $0.router?.coordinator === $0 } ?? false)
                }
            }
            return Outcome(router: router.value!, coordinator: coordinator.value!, linkedOnReturn: linked.values)
        }
    }

    /// Each scope, resolved through the container that holds its instances: a `.scoped` pair through a session child.
    @Test(arguments: [Scope.singleton, .cached, .custom("session"), .scoped])
    func twoThreadsEnteringAPropertiesCycleAtDifferentMembersBothGetTheLinkedInstances(scope: Scope) throws {
        let root = DIContainer()
        let bothInProperties = Arrivals(expected: 2)
        let overlapped = Counter()
        Self.register(in: root, scope, bothInProperties: bothInProperties, overlapped: overlapped)
        let container = scope == .scoped ? root.makeChild() : root

        let outcome = try #require(Self.resolveBothAtOnce(through: container), "the two resolves hung")
        #expect(overlapped.value == 2, "the two builds were in their resolveProperties at the same time")
        let router = try outcome.router.get()
        let coordinator = try outcome.coordinator.get()
        #expect(outcome.linkedOnReturn == [true, true], "each resolve returned the pair linked")
        #expect(router.coordinator === coordinator)
        #expect(coordinator.router === router)
        #expect(container.resolve(Router.self) === router)
        #expect(container.resolve(Coordinator.self) === coordinator)
    }

    @Test func aThreadAndATaskEnteringAPropertiesCycleAtDifferentMembersBothGetTheLinkedInstances() async throws {
        let container = DIContainer()
        let bothInProperties = Arrivals(expected: 2)
        let overlapped = Counter()
        Self.register(
            in: container,
            .singleton,
            bothInProperties: bothInProperties,
            overlapped: overlapped,
            patience: hangLimit
        )

        // The thread's resolve blocks only its own thread; the task's inline build blocks one of the pool's, so
        // the other keeps this test's time-out running.
        let fromThread = Cell<Result<Router, ResolutionError>>()
        let linked = Collector<Bool>()
        let thread = Thread {
            fromThread.value = Result { try container.resolveThrowing(Router.self) }.mapError { $0 as! ResolutionError }
            let got = try? fromThread.value?.get()
            linked.append(got.map { $0.coordinator?.router === $0 } ?? false)
        }
        thread.start()
        let fromTask = await completes(within: hangLimit, "resolveAsync of Coordinator while a thread resolves Router")
        {
            let coordinator = try await container.resolveAsync(Coordinator.self)
            linked.append(coordinator.router?.coordinator === coordinator)
            return coordinator
        }
        let threadFinished = await eventually(within: hangLimit) { fromThread.value != nil }
        #expect(threadFinished, "the thread's resolve of Router hung")
        #expect(overlapped.value == 2, "the two builds were in their resolveProperties at the same time")
        let coordinator = try #require(try fromTask?.get())
        let router = try #require(try fromThread.value?.get())
        #expect(linked.values == [true, true], "each resolve returned the pair linked")
        #expect(router.coordinator === coordinator)
        #expect(coordinator.router === router)
    }

    final class Source: Sendable {
        init(sink: Sink) {}
    }

    final class Sink: @unchecked Sendable {
        // @unchecked: set once by resolveProperties, before the instance is handed out.
        var source: Source?
    }

    @Test func aCycleThroughAFactoryOnTwoThreadsIsStillACycleError() throws {
        // Source's factory needs Sink; Sink's resolveProperties needs Source: entering at Source fails on one
        // thread (validate() says so), and two threads entering at once must not turn that into a half-built Source.
        let container = DIContainer()
        let bothStarted = Arrivals(expected: 2)
        let overlapped = Counter()
        let meeting = Cell<Bool>(false)
        @Sendable func meet() {
            guard meeting.value == true else { return }
            bothStarted.arrive()
            if bothStarted.waitForEveryone(within: 10) {
                overlapped.increment()
            }
        }
        container.register { r -> Source in
            meet()
            return Source(sink: try r.resolve())
        }.scope(.singleton)
        container.register { Sink() }.scope(.singleton)
            .resolveProperties { r, sink in
                meet()
                sink.source = try r.resolve()
            }
        #expect(!container.validationReport().isValid)
        meeting.value = true

        let sources = Collector<Source>()
        let sinks = Collector<Sink>()
        let failures = Collector<ResolutionError>()
        let finished = onThread(within: 30) { () -> Bool in
            onThreadsAtOnce(2) { index in
                do {
                    if index == 0 {
                        sources.append(try container.resolveThrowing(Source.self))
                    } else {
                        sinks.append(try container.resolveThrowing(Sink.self))
                    }
                } catch {
                    failures.append(error as! ResolutionError)
                }
            }
            return true
        }
        #expect(finished != nil, "the two resolves hung")
        #expect(overlapped.value >= 2, "the two builds were under way at the same time")
        // Which thread finds the wait-for cycle decides. The one waiting for Sink, in its resolveProperties, may take
        // it, as a resolve entered at Sink would on one thread: then both builds finish, linked. The one waiting for
        // Source, whose factory is still running, has no instance to take: then both fail with the cycle. Never a
        // mix, and never a Source handed out before its factory returned.
        if let source = sources.values.first {
            let sink = try #require(sinks.values.first, "Source was built, so Sink's build finished too")
            #expect(sink.source === source)
            #expect(failures.values.isEmpty)
        } else {
            #expect(sinks.values.isEmpty)
            #expect(failures.values.count == 2)
            #expect(failures.values.allSatisfy { $0.kind == .cycle }, "\(failures.values)")
        }
    }
}
