import Dispatch
import Foundation
import InjectTestSupport
import InjectTesting
import Testing

/// Overrides made with `withOverrides` are bound to the task that makes them: concurrent tasks overriding the same
/// service of the same container each see only their own.
struct TaskLocalIsolationTests {
    @Test func sixtyFourTasksEachSeeOnlyTheirOwnOverride() async {
        let taskCount = 64
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: -1) }
        container.register(Gadget.self) { r in Gadget(widget: try r.resolve()) }
        let inside = Counter()
        let timedOut = Counter()

        let mismatches = await withTaskGroup(of: [String].self) { group in
            for index in 0..<taskCount {
                group.addTask {
                    await withOverrides(in: container) {
                        $0.register(Widget.self) { Widget(serial: index) }.scope(.singleton)
                    } operation: {
                        var mismatches: [String] = []
                        func check(_ step: String) {
                            let widget = container.resolve(Widget.self).serial
                            let gadget = container.resolve(Gadget.self).widget.serial
                            let child = container.makeChild().resolve(Widget.self).serial
                            if [widget, gadget, child] != [index, index, index] {
                                mismatches.append("task \(index) \(step): saw \([widget, gadget, child])")
                            }
                        }
                        check("on entry")
                        inside.increment()
                        // Every task stays inside its scope until all 64 are inside theirs.
                        if !(await eventually { inside.value >= taskCount }) {
                            timedOut.increment()
                        }
                        for round in 0..<3 {
                            check("round \(round)")
                            await Task.yield()
                            try? await Task.sleep(nanoseconds: 1_000_000)
                        }
                        return mismatches
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0 += $1 }
        }

        #expect(timedOut.value == 0, "the 64 tasks were never all inside their scopes at once")
        let mismatchCount = mismatches.count
        #expect(mismatchCount == 0, "tasks saw overrides not their own: \(mismatches.prefix(10))")
        #expect(container.resolve(Widget.self).serial == -1)
    }

    @Test func tasksOverridingDifferentContainersDoNotSeeEachOther() async {
        let first = DIContainer()
        let second = DIContainer()
        for container in [first, second] {
            container.register(Widget.self) { Widget(serial: 0) }
        }
        let started = Counter()

        async let fromFirst = withOverrides(in: first) {
            $0.register(Widget.self) { Widget(serial: 1) }
        } operation: {
            started.increment()
            #expect(await eventually { started.value >= 2 }, "the two overriding tasks never overlapped")
            return [first.resolve(Widget.self).serial, second.resolve(Widget.self).serial]
        }
        async let fromSecond = withOverrides(in: second) {
            $0.register(Widget.self) { Widget(serial: 2) }
        } operation: {
            started.increment()
            #expect(await eventually { started.value >= 2 }, "the two overriding tasks never overlapped")
            return [first.resolve(Widget.self).serial, second.resolve(Widget.self).serial]
        }

        #expect(await fromFirst == [1, 0])
        #expect(await fromSecond == [0, 2])
    }

    @Test func aTaskWithoutOverridesSeesTheContainerWhileAnotherTaskOverridesIt() async {
        let container = DIContainer()
        container.register(Widget.self) { Widget(serial: 0) }
        let overriding = Counter()
        let observed = Counter()

        async let inside: Int = withOverrides(in: container) {
            $0.register(Widget.self) { Widget(serial: 1) }
        } operation: {
            overriding.increment()
            // Stay inside until the other task has looked.
            #expect(await eventually { observed.value >= 1 }, "the other task never looked while this one overrode")
            return container.resolve(Widget.self).serial
        }
        let enteredInTime = await eventually { overriding.value >= 1 }
        let outside = container.resolve(Widget.self).serial
        observed.increment()

        #expect(enteredInTime, "the overriding task never entered its scope")
        #expect(outside == 0, "a task without overrides saw another task's override")
        #expect(await inside == 1)
    }
    @Test func aTaskStartedInsideAnOverrideAndRunAfterItEndsGetsTheRealServiceWhateverElseIsOverridden() async throws {
        let app = DIContainer()
        app.register(Widget.self) { Widget(serial: 0) }
        let started = AsyncGate()
        let escaped = withOverrides(in: app) {
            $0.register(Widget.self) { Widget(serial: 1) }
        } operation: {
            // Not awaited here: it outlives the override, carrying the override's task-local with it.
            Task {
                await started.wait()
                return app.resolve(Widget.self).serial
            }
        }
        // Another test's override, active somewhere in the process while the escaped task resolves.
        let outcome = await completes("an escaped task resolving under another test's override") {
            await withOverrides(in: DIContainer()) { _ in
            } operation: {
                started.openGate()
                return await escaped.value
            }
        }
        let serial = try #require(try outcome?.get())

        #expect(serial == 0, "an override that has ended applied again because another one was active")
    }
    @Test func aTaskStartedInsideAnAsyncFactoryAndRunAfterItGetsTheRealServiceWhileAnotherBuildRuns() async throws {
        let app = DIContainer()
        app.register(Widget.self) { Widget(serial: 0) }
        let started = AsyncGate()
        let escaped = Cell<Task<Int, Never>>()
        app.register(Gadget.self) { (r: DIResolver) async throws -> Gadget in
            // Not awaited: it outlives the factory, carrying the factory's frame with it.
            escaped.value = Task {
                await started.wait()
                return app.resolve(Widget.self).serial
            }
            return Gadget(widget: try r.resolve())
        }
        let gadget = try await withOverrides(in: app) {
            $0.register(Widget.self) { Widget(serial: 1) }
        } operation: {
            try await app.resolveAsync(Gadget.self)
        }
        #expect(gadget.widget.serial == 1)
        // An async build in flight elsewhere in the process while the escaped task resolves.
        let other = DIContainer()
        let building = AsyncGate()
        let finish = AsyncGate()
        other.register(Widget.self) { (_: DIResolver) async -> Widget in
            building.openGate()
            await finish.wait()
            return Widget(serial: 2)
        }
        let outcome = await completes("an escaped task resolving while another async build runs") {
            let otherBuild = Task { try await other.resolveAsync(Widget.self) }
            await building.wait()
            started.openGate()
            let serial = await escaped.value?.value
            finish.openGate()
            _ = try await otherBuild.value
            return serial
        }
        let serial = try #require(try outcome?.get())

        #expect(serial == 0, "the escaped task joined the ended resolution, and its ended override")
    }
}
