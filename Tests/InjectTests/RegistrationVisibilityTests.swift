import Foundation
import Inject
import InjectTestSupport
import Testing

// What other threads see of a registration chain that is still open: the registration it replaces, never a
// half-configured one. The thread that registers sees its registration at once.

private final class Service: Sendable {
    let tag: String

    init(tag: String) {
        self.tag = tag
    }
}

struct RegistrationVisibilityTests {
    @Test func theRegisteringThreadSeesItsRegistrationAtOnceAndOtherThreadsWhenTheChainEnds() throws {
        let container = DIContainer()
        var registration: Registration<Service>? = container.register(Service.self) { Service(tag: "new") }

        #expect(try container.resolveThrowing(Service.self).tag == "new", "this thread sees it at once")
        let elsewhere = onThread { () -> String in
            do {
                return try container.resolveThrowing(Service.self).tag
            } catch {
                return "\(error)"
            }
        }
        #expect(elsewhere?.contains("registration chain has not ended") == true, "\(elsewhere ?? "time-out")")
        #expect(elsewhere?.contains("the Registration that register returned is still alive there") == true)

        registration?.scope(.singleton)
        registration = nil

        let afterwards = onThread { try? container.resolveThrowing(Service.self).tag }
        #expect(afterwards == "new")
    }

    @Test func anotherTaskDoesNotSeeAnOpenChainEvenOnTheRegisteringTasksThread() async throws {
        // A detached task often runs on the pool thread the registering task was on: it must still be kept out.
        for trial in 0..<200 {
            let container = DIContainer()
            container.register(Service.self) { Service(tag: "old") }.scope(.singleton)
            var registration: Registration<Service>? = container.register(Service.self) { Service(tag: "new") }

            let seen = await Task.detached { (try? container.resolveThrowing(Service.self).tag) ?? "error" }.value

            #expect(seen == "old", "trial \(trial): another task saw the open chain")
            registration?.scope(.singleton)
            registration = nil
            if seen != "old" { break }
        }
    }

    @Test func theRegisteringTaskSeesItsOpenChainAfterSuspendingOnAnotherThread() async throws {
        for trial in 0..<200 {
            let container = DIContainer()
            var registration: Registration<Service>? = container.register(Service.self) { Service(tag: "new") }

            await Task.yield()  // the task may resume on the other pool thread
            let seen = (try? container.resolveThrowing(Service.self).tag) ?? "error"

            #expect(seen == "new", "trial \(trial): the task that registers lost its own open registration")
            registration?.scope(.singleton)
            registration = nil
            if seen != "new" { break }
        }
    }

    @Test func anotherThreadResolvesTheReplacedRegistrationUntilTheNewChainEnds() throws {
        let container = DIContainer()
        container.register(Service.self) { Service(tag: "old") }.scope(.cached)
        let old = try container.resolveThrowing(Service.self)
        var registration: Registration<Service>? = container.register(Service.self) { Service(tag: "new") }

        let elsewhere = onThread { try? container.resolveThrowing(Service.self) }
        #expect(elsewhere.flatMap { $0 } === old, "the old registration, and its cached instance, until the chain ends")

        registration?.scope(.cached)
        registration = nil

        #expect(onThread { try? container.resolveThrowing(Service.self).tag } == "new")
    }

    @Test func aChildsOpenChainLeavesOtherThreadsWithTheParentsRegistration() {
        let root = DIContainer()
        root.register(Service.self) { Service(tag: "root") }.scope(.singleton)
        let child = root.makeChild()
        var registration: Registration<Service>? = child.register(Service.self) { Service(tag: "child") }

        #expect(onThread { try? child.resolveThrowing(Service.self).tag } == "root")

        registration?.scope(.singleton)
        registration = nil

        #expect(onThread { try? child.resolveThrowing(Service.self).tag } == "child")
    }

    @Test func aSynchronousResolveNeverWaitsForAnAsyncBuildUnderWay() async throws {
        let container = DIContainer()
        let gate = AsyncGate()
        let building = AsyncGate()
        container.register(Service.self) { _ in
            building.openGate()
            await gate.wait()
            return Service(tag: "async")
        }
        .scope(.singleton)

        let build = Task { try await container.resolveAsync(Service.self) }
        await building.wait()
        let sync = onThread(within: 5) { () -> ResolutionError.Kind? in
            do {
                _ = try container.resolveThrowing(Service.self)
                return nil
            } catch let error as ResolutionError {
                return error.kind
            } catch {
                return nil
            }
        }
        gate.openGate()

        #expect(sync == .notBuiltYet, "a synchronous resolve during the async build fails at once, never waits")
        #expect(try await build.value.tag == "async")
        #expect(container.resolve(Service.self).tag == "async")
    }
}
