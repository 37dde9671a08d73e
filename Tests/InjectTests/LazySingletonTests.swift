import Dispatch
import Inject
import InjectTestSupport
import Testing

struct LazySingletonTests {
    @Test func buildsOnFirstUseOnlyOnce() throws {
        let made = Counter()
        let lazy = LazySingleton { Widget(serial: made.increment()) }
        #expect(made.value == 0)
        #expect(!lazy.isBuilt)

        let first = lazy.value
        let second = try lazy.get()

        #expect(lazy.isBuilt)
        #expect(first === second)
        #expect(made.value == 1)
    }

    @Test func aThrowingMakeLeavesItUnbuiltAndALaterGetRetries() throws {
        let attempts = Counter()
        let lazy = LazySingleton<Widget> {
            let attempt = attempts.increment()
            if attempt == 1 {
                throw FixtureError(text: "first attempt fails")
            }
            return Widget(serial: attempt)
        }

        #expect(throws: FixtureError(text: "first attempt fails")) {
            try lazy.get()
        }
        #expect(!lazy.isBuilt)

        let widget = try lazy.get()

        #expect(widget.serial == 2)
        #expect(lazy.isBuilt)
        #expect(try lazy.get() === widget)
        #expect(attempts.value == 2)
    }

    @Test func resetDropsTheValueAndTheNextUseRebuilds() {
        let made = Counter()
        let lazy = LazySingleton { Widget(serial: made.increment()) }
        let first = lazy.value

        lazy.reset()

        #expect(!lazy.isBuilt)
        let second = lazy.value
        #expect(second !== first)
        #expect(second.serial == 2)
        #expect(lazy.isBuilt)
    }

    @Test func holdsValueTypes() {
        let lazy = LazySingleton { Point(x: 3, y: 4) }

        #expect(lazy.value == Point(x: 3, y: 4))
    }

    @Test func buildsExactlyOnceWhen64ThreadsAskAtOnce() {
        let threads = 64
        let made = Counter()
        let asking = Arrivals(expected: threads)
        let overlapped = Cell<Bool>()
        let lazy = LazySingleton<Widget> {
            // Hold the build until every thread is asking, so that they really contend.
            overlapped.value = asking.waitForEveryone()
            return Widget(serial: made.increment())
        }
        let seen = Collector<ObjectIdentifier>()

        let finished = finishes(within: 60, "64 threads asking a LazySingleton at once") {
            onThreadsAtOnce(threads) { _ in
                asking.arrive()
                seen.append(ObjectIdentifier(lazy.value))
            }
        }

        guard finished else { return }
        #expect(overlapped.value == true)
        #expect(made.value == 1)
        #expect(seen.values.count == threads)
        #expect(Set(seen.values).count == 1)
    }
}
