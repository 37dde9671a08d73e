import Foundation
import Inject
import InjectTestSupport
import InjectTesting
import Testing

/// Many threads on one container at once, through InjectTesting's `stressTest`: each body checks what it got and
/// throws when it is wrong. CI runs these under the thread sanitizer too, where a data race fails the run.
struct StressTests {
    struct Wrong: Error, CustomStringConvertible {
        let description: String
    }

    final class Service: Sendable {
        let value: Int

        init(_ value: Int) {
            self.value = value
        }
    }

    final class Holder: Sendable {
        let service: Service

        init(service: Service) {
            self.service = service
        }
    }

    @Test func sharedScopesHandOutOneInstanceAcrossChildScopes() {
        let container = DIContainer()
        container.register(Service.self, name: "singleton") { Service(1) }.scope(.singleton)
        container.register(Service.self, name: "cached") { Service(2) }.scope(.cached)
        container.register(Service.self, name: "scoped") { Service(3) }.scope(.scoped)
        container.register { r in Holder(service: try r.resolve(name: "singleton")) }.scope(.transient)
        let singleton = container.resolve(Service.self, name: "singleton")
        let cached = container.resolve(Service.self, name: "cached")

        let report = Cell<StressReport>()
        finishes(within: 120, "the stress test") {
            report.value = stressTest(container, threads: 8, iterations: 2_000) { container in
                let child = container.makeChild()
                guard try child.resolveThrowing(Service.self, name: "singleton") === singleton,
                    try child.resolveThrowing(Service.self, name: "cached") === cached,
                    try child.resolveThrowing(Holder.self).service === singleton
                else { throw Wrong(description: "a shared instance was built twice") }
                let scoped = try child.resolveThrowing(Service.self, name: "scoped")
                guard try child.resolveThrowing(Service.self, name: "scoped") === scoped, scoped.value == 3 else {
                    throw Wrong(description: "a child scope got two .scoped instances")
                }
            }
        }
        #expect(report.value?.succeeded == true, "\(report.value.map(String.init(describing:)) ?? "no report")")
        #expect(report.value?.totalIterations == 16_000)
    }

    @Test func registrationsAndResolvesInterleave() {
        let container = DIContainer()
        container.register { Service(0) }.scope(.singleton)
        let counter = Counter()

        let report = Cell<StressReport>()
        finishes(within: 120, "the stress test") {
            report.value = stressTest(container, threads: 8, iterations: 500) { container in
                let index = counter.increment()
                let name = DIContainer.Name("stress-\(index)")
                container.register(Service.self, name: name) { Service(index) }.scope(.singleton)
                guard try container.resolveThrowing(Service.self, name: name).value == index,
                    try container.resolveThrowing(Service.self).value == 0
                else { throw Wrong(description: "a resolve saw the wrong registration") }
            }
        }
        #expect(report.value?.succeeded == true, "\(report.value.map(String.init(describing:)) ?? "no report")")
    }

    @Test func overridesOnEachThreadStayOnThatThread() {
        let container = DIContainer()
        container.register { Service(-1) }.scope(.singleton)
        let counter = Counter()

        let report = Cell<StressReport>()
        finishes(within: 120, "the stress test") {
            report.value = stressTest(container, threads: 8, iterations: 500) { container in
                let mine = counter.increment()
                try withOverrides(in: container, { $0.register { Service(mine) }.scope(.singleton) }) {
                    let first = try container.resolveThrowing(Service.self)
                    guard first.value == mine, try container.makeChild().resolveThrowing(Service.self) === first else {
                        throw Wrong(description: "an override leaked between threads, or its singleton was rebuilt")
                    }
                }
                guard try container.resolveThrowing(Service.self).value == -1 else {
                    throw Wrong(description: "an override outlived its scope")
                }
            }
        }
        #expect(report.value?.succeeded == true, "\(report.value.map(String.init(describing:)) ?? "no report")")
    }

    @Test func resetsRacingResolvesNeverHandOutABrokenInstance() {
        let container = DIContainer()
        container.register { Service(7) }.scope(.custom("session"))
        container.register { r in Holder(service: try r.resolve()) }.scope(.cached)
        let counter = Counter()

        let report = Cell<StressReport>()
        finishes(within: 120, "the stress test") {
            report.value = stressTest(container, threads: 8, iterations: 2_000) { container in
                if counter.increment().isMultiple(of: 50) {
                    container.reset(.custom("session"))
                    container.reset(.cached)
                }
                guard try container.resolveThrowing(Holder.self).service.value == 7 else {
                    throw Wrong(description: "a resolve got a broken instance")
                }
            }
        }
        #expect(report.value?.succeeded == true, "\(report.value.map(String.init(describing:)) ?? "no report")")
    }

    @Test func stressTestReportsWhatTheBodyThrew() {
        let container = DIContainer()
        let report = stressTest(container, threads: 2, iterations: 10) { container in
            _ = try container.resolveThrowing(Service.self)  // nothing is registered
        }
        #expect(!report.succeeded)
        #expect(report.failures.count == 20)
        #expect(report.failures.allSatisfy { $0.contains("nothing is registered for Service") })
    }
}
