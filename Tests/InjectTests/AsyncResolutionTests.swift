import Foundation
import Inject
import InjectTestSupport
import InjectTesting
import Testing

// Async factories and resolveAsync: one resolution path with an async edge.

private final class Database: Sendable {
    let serial: Int

    init(serial: Int = 0) {
        self.serial = serial
    }

    static func open(serial: Int = 0) async throws -> Database {
        await Task.yield()
        return Database(serial: serial)
    }
}

private final class Keychain: Sendable {}

private final class SyncEngine: Sendable {
    let database: Database
    let keychain: Keychain

    init(database: Database, keychain: Keychain) {
        self.database = database
        self.keychain = keychain
    }
}

/// Holds a `Database` through `@Injected`: a synchronous resolve of an async registration.
private final class DatabaseHolder: @unchecked Sendable {
    // @unchecked: set once, in init.
    @Injected var database: Database
}

private final class AsyncA: Sendable {}
private final class AsyncB: Sendable {}

/// A graph-scope service two branches of one resolution share.
private final class Journal: Sendable {}

private final class Pair: Sendable {
    let first: Journal
    let second: Journal

    init(first: Journal, second: Journal) {
        self.first = first
        self.second = second
    }
}

private protocol Store: Sendable {}
private final class SQLStore: Store {}

private protocol ScreenModelProviding: AnyObject, Sendable {}

@MainActor
private final class ScreenModel: ScreenModelProviding {
    /// Whether the model was made on the main actor's executor (a trap in `assertIsolated` otherwise).
    let madeOnTheMainActor: Bool

    init() {
        MainActor.assertIsolated("a mainActorFactory ran off the main actor")
        madeOnTheMainActor = true
    }
}

struct AsyncResolutionTests {
    // MARK: 1. Registering

    @Test func anAwaitingClosurePicksTheAsyncOverloadAndSynchronousCodeCompilesUnchanged() async throws {
        let container = DIContainer()
        container.register(Database.self) { _ in try await Database.open(serial: 1) }.scope(.singleton)
        container.register(Keychain.self) { Keychain() }.scope(.singleton)
        // Synchronous registrations and resolves in an async function, as before.
        container.register { r in Widget(serial: try r.resolve(Keychain.self) === Keychain() ? 0 : 2) }
        let widget = container.resolve(Widget.self)
        #expect(widget.serial == 2)

        let database = try await container.resolveAsync(Database.self)

        #expect(database.serial == 1)
        #expect(try await container.resolveAsync(Keychain.self) === container.resolve(Keychain.self))
    }

    // MARK: 2. resolveAsync resolves every registration, as resolve does

    @Test func anAsyncFactoryResolvesSynchronousAndAsyncDependenciesThroughItsResolver() async throws {
        let container = DIContainer()
        container.register(Database.self) { _ in try await Database.open() }.scope(.singleton)
        container.register(Keychain.self) { Keychain() }
        container.register { r in try await SyncEngine(database: r.resolveAsync(), keychain: r.resolve()) }

        let engine = try await container.resolveAsync(SyncEngine.self)

        #expect(engine.database === (try await container.resolveAsync(Database.self)))
    }

    @Test func namesImplementsArgumentsAndResolvePropertiesWorkAsynchronously() async throws {
        let container = DIContainer()
        container.register(Database.self, name: .live) { _ in try await Database.open(serial: 7) }.scope(.cached)
        container.register(SQLStore.self) { _ in SQLStore() }.scope(.singleton).implements(Store.self)
        container.register(Widget.self) { (_: DIResolver, serial: Int) in Widget(serial: serial) }
        let properties = Counter()
        container.register(Keychain.self) { _ in Keychain() }.resolveProperties { _, _ in properties.increment() }

        #expect(try await container.resolveAsync(Database.self, name: .live).serial == 7)
        #expect(
            try await container.resolveAsync(Store.self) as AnyObject
                === (try await container.resolveAsync(SQLStore.self))
        )
        #expect(try await container.resolveAsync(Widget.self, argument: 5).serial == 5)
        _ = try await container.resolveAsync(Keychain.self)
        #expect(properties.value == 1)
    }

    @Test(arguments: [Scope.singleton, .cached, .transient])
    func anAsyncRegistrationResolvedAsyncThroughItsImplementsForwardIsAwaited(scope: Scope) async throws {
        let container = DIContainer()
        container.register(SQLStore.self) { _ in
            await Task.yield()
            return SQLStore()
        }
        .scope(scope)
        .implements(Store.self)
        // An eager service that awaits the protocol: warmUp() builds it.
        container.register(Journal.self) { r in
            _ = try await r.resolveAsync(Store.self)
            return Journal()
        }
        .scope(.singleton).eager()

        let report = await container.validationReportAsync()
        #expect(report.isValid, "\(report)")
        let store = try await container.resolveAsync(Store.self)
        if scope != .transient {
            #expect(store as AnyObject === (try await container.resolveAsync(SQLStore.self)))
        }
        try await container.warmUp()
    }

    @Test func aMainActorRegistrationResolvedAsyncThroughItsImplementsForwardHopsToTheMainActor() async throws {
        let container = DIContainer()
        container.register(mainActorFactory: { _ in ScreenModel() }).implements(ScreenModelProviding.self)

        let report = await Task.detached { await container.validationReportAsync() }.value
        #expect(report.isValid, "\(report)")
        let model = try await Task.detached { try await container.resolveAsync(ScreenModelProviding.self) }.value
        #expect(model is ScreenModel)
    }

    @Test func aChildsRegistrationWinsAndASingletonResolvesFromItsOwner() async throws {
        let root = DIContainer()
        root.register(Keychain.self) { Keychain() }
        root.register { r in try await SyncEngine(database: r.resolveAsync(), keychain: r.resolve()) }
        root.register(Database.self) { _ in try await Database.open(serial: 1) }
        let child = root.makeChild()
        child.register(Database.self) { _ in try await Database.open(serial: 2) }

        #expect(try await child.resolveAsync(SyncEngine.self).database.serial == 2)
        #expect(try await root.resolveAsync(SyncEngine.self).database.serial == 1)
    }

    @Test func overridesApplyToResolveAsync() async throws {
        let container = DIContainer()
        container.register(Database.self) { _ in try await Database.open(serial: 1) }.scope(.singleton)

        let inside = try await withOverrides(in: container) {
            $0.register(Database.self) { _ in try await Database.open(serial: 9) }
        } operation: {
            try await container.resolveAsync(Database.self).serial
        }

        #expect(inside == 9)
        #expect(try await container.resolveAsync(Database.self).serial == 1)
    }

    @Test func aMissingRegistrationIsTheSameErrorWithItsPath() async throws {
        let container = DIContainer()
        container.register { r in try await SyncEngine(database: r.resolveAsync(), keychain: r.resolve()) }

        await #expect {
            try await container.resolveAsync(SyncEngine.self)
        } throws: { error in
            guard let error = error as? ResolutionError else { return false }
            return error.kind == .notRegistered && error.path == ["SyncEngine", "Database"]
                && error.description.contains("asked by: SyncEngine's factory, registered at")
        }
    }

    // MARK: 3. Exactly once, without blocking

    @Test func aThousandTasksGetOneInstanceFromOneBuildAndBlockNoThread() async throws {
        let container = DIContainer()
        let gate = AsyncGate()
        let builds = Counter()
        let asking = Counter()
        container.register(Database.self) { _ in
            builds.increment()
            await gate.wait()
            return Database(serial: 42)
        }
        .scope(.singleton)

        let outcome = await completes("1,000 tasks resolving one async singleton") {
            try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
                for _ in 0..<1_000 {
                    group.addTask {
                        asking.increment()
                        return ObjectIdentifier(try await container.resolveAsync(Database.self))
                    }
                }
                // Every task has started and is waiting: had they blocked their threads, the two-thread pool would
                // be exhausted long before, and this work could not run either.
                let everyoneAsked = await eventually { asking.value == 1_000 }
                let otherWork = await Task.detached { (1...1_000).reduce(0, +) }.value
                #expect(everyoneAsked)
                #expect(otherWork == 500_500)
                #expect(builds.value == 1)
                gate.openGate()
                var identities: Set<ObjectIdentifier> = []
                for try await identity in group {
                    identities.insert(identity)
                }
                return identities
            }
        }

        #expect(try outcome?.get().count == 1)
        #expect(builds.value == 1)
        #expect(container.resolve(Database.self).serial == 42, "built once, then read synchronously")
    }

    @Test func aThrowingFactoryLeavesItUnbuiltAndTheNextAskBuildsAgain() async throws {
        let container = DIContainer()
        let attempts = Counter()
        container.register(Database.self) { _ in
            await Task.yield()
            if attempts.increment() == 1 {
                throw FixtureError(text: "the disk is not mounted yet")
            }
            return Database(serial: 2)
        }
        .scope(.singleton)

        await #expect(throws: ResolutionError.self) { try await container.resolveAsync(Database.self) }
        #expect(throws: ResolutionError.self) { try container.resolveThrowing(Database.self) }
        #expect(try await container.resolveAsync(Database.self).serial == 2)
        #expect(attempts.value == 2)
    }

    @Test func aCancelledWaiterStopsWaitingAndTheBuildGoesOnForTheOthers() async throws {
        let container = DIContainer()
        let gate = AsyncGate()
        let started = AsyncGate()
        container.register(Database.self) { _ in
            started.openGate()
            await gate.wait()
            return Database(serial: 3)
        }
        .scope(.singleton)

        let outcome = await completes("a cancelled waiter and a patient one") {
            let builder = Task { try await container.resolveAsync(Database.self) }
            await started.wait()
            let cancelled = Task { try await container.resolveAsync(Database.self) }
            try await Task.sleep(nanoseconds: 20_000_000)
            cancelled.cancel()
            let cancellation = await cancelled.result
            gate.openGate()
            let built = try await builder.value
            return (cancellation, built)
        }

        let (cancellation, built) = try #require(try outcome?.get())
        #expect(throws: CancellationError.self) { try cancellation.get() }
        #expect(built.serial == 3)
    }

    // MARK: 4. Sync meets async

    @Test func aBuiltAsyncSingletonIsReadSynchronouslyAndThroughWrappers() async throws {
        let container = DIContainer()
        container.register(Database.self) { _ in try await Database.open(serial: 5) }.scope(.singleton)
        container.register(DatabaseHolder.self) { DatabaseHolder() }

        let error = try #require(throws: ResolutionError.self) { try container.resolveThrowing(Database.self) }
        #expect(error.kind == .notBuiltYet)
        #expect(error.description.contains("Database"))
        #expect(error.description.contains("resolveAsync"))
        #expect(error.description.contains(".eager()") && error.description.contains("warmUp()"))

        let database = try await container.resolveAsync(Database.self)

        #expect(container.resolve(Database.self) === database)
        #expect(try container.resolveThrowing(DatabaseHolder.self).database === database)
    }

    @Test func aMainActorFactoryResolvedOffTheMainActorHopsToIt() async throws {
        let container = DIContainer()
        container.register(mainActorFactory: { _ in ScreenModel() })

        let onMain = try await Task.detached {
            let model = try await container.resolveAsync(ScreenModel.self)
            return await MainActor.run { model.madeOnTheMainActor }
        }.value

        #expect(onMain)
    }

    // MARK: 5. Graph scope and cycles across suspension points

    @Test func oneTopLevelResolveAsyncIsOneResolutionAcrossSuspensionPointsAndChildTasks() async throws {
        let container = DIContainer()
        container.register(Journal.self) { _ in
            await Task.yield()
            return Journal()
        }
        container.register { r in
            async let first: Journal = r.resolveAsync()
            async let second: Journal = r.resolveAsync()
            return try await Pair(first: first, second: second)
        }

        let pair = try await container.resolveAsync(Pair.self)
        let other = try await container.resolveAsync(Pair.self)

        #expect(pair.first === pair.second, "one graph instance per resolution, whatever task asks")
        #expect(pair.first !== other.first, "a new top-level resolveAsync is a new resolution")
    }

    @Test func concurrentResolutionsNeverShareAGraphInstanceOrSeeAFalseCycle() async throws {
        let container = DIContainer()
        container.register(Journal.self) { _ in
            try await Task.sleep(nanoseconds: 1_000_000)
            return Journal()
        }
        container.register { r in try await Pair(first: r.resolveAsync(), second: r.resolveAsync()) }

        let pairs = try await withThrowingTaskGroup(of: Pair.self) { group in
            for _ in 0..<32 {
                group.addTask { try await container.resolveAsync(Pair.self) }
            }
            return try await group.reduce(into: [Pair]()) { $0.append($1) }
        }

        #expect(Set(pairs.map { ObjectIdentifier($0.first) }).count == 32)
        #expect(pairs.allSatisfy { $0.first === $0.second })
    }

    @Test func anAsyncCycleIsAnErrorNamingBothStepsNotAHang() async throws {
        let container = DIContainer()
        container.register(AsyncA.self) { r in
            _ = try await r.resolveAsync(AsyncB.self)
            return AsyncA()
        }
        container.register(AsyncB.self) { r in
            _ = try await r.resolveAsync(AsyncA.self)
            return AsyncB()
        }

        let outcome = await completes("an async cycle") { try await container.resolveAsync(AsyncA.self) }

        let result = try #require(outcome)
        #expect(throws: ResolutionError.self) { try result.get() }
        if case .failure(let error as ResolutionError) = result {
            #expect(error.kind == .cycle)
            #expect(error.description.contains("AsyncA -> AsyncB -> AsyncA"), "\(error)")
            // resolveProperties runs synchronously and cannot build either: the fix does not offer it.
            #expect(
                error.description.contains("resolveProperties cannot close this one: it runs synchronously"),
                "\(error)"
            )
            #expect(!error.description.contains("get the other in resolveProperties"), "\(error)")
        }
    }

    @Test func twoAsyncSingletonsThatNeedEachOtherInTwoTasksEndInErrorsNotAHang() async throws {
        let container = DIContainer()
        let bothStarted = Arrivals(expected: 2)
        container.register(AsyncA.self) { r in
            bothStarted.arrive()
            while !bothStarted.waitForEveryone(within: 0) { await Task.yield() }
            _ = try await r.resolveAsync(AsyncB.self)
            return AsyncA()
        }
        .scope(.singleton)
        container.register(AsyncB.self) { r in
            bothStarted.arrive()
            while !bothStarted.waitForEveryone(within: 0) { await Task.yield() }
            _ = try await r.resolveAsync(AsyncA.self)
            return AsyncB()
        }
        .scope(.singleton)

        let outcome = await completes("two async singletons waiting for each other") {
            async let a = Result<Void, any Error> { _ = try await container.resolveAsync(AsyncA.self) }
            async let b = Result<Void, any Error> { _ = try await container.resolveAsync(AsyncB.self) }
            return await (a, b)
        }

        let (a, b) = try #require(try outcome?.get())
        for result in [a, b] {
            #expect(throws: ResolutionError.self) { try result.get() }
            if case .failure(let error as ResolutionError) = result {
                #expect(error.kind == .cycle, "\(error)")
                #expect(error.description.contains("AsyncA") && error.description.contains("AsyncB"), "\(error)")
            }
        }
    }
}

extension Result where Failure == any Error {
    /// The result of an async throwing body.
    fileprivate init(_ body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}

/// A factory that throws `CancellationError` itself, no task being cancelled: a failure like any other.
struct FactoryCancellationErrorTests {
    @Test func aFactoryThatThrowsCancellationErrorItselfFailsOnceForEveryoneWithItsRegistration() async throws {
        let container = DIContainer()
        let runs = Counter()
        let line = #line + 1
        container.register(Keychain.self) { (_: DIResolver) async throws -> Keychain in
            _ = runs.increment()
            try await Task.sleep(nanoseconds: 20_000_000)  // long enough for the others to wait for this build
            throw CancellationError()
        }
        .scope(.singleton)

        let results = await withTaskGroup(of: Result<Keychain, any Error>.self) { group in
            for _ in 0..<5 {
                group.addTask { await Result { try await container.resolveAsync(Keychain.self) } }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }

        let errors = results.compactMap { result -> (any Error)? in
            if case .failure(let error) = result { return error }
            return nil
        }
        #expect(errors.count == 5)
        let first = try #require(errors.first as? ResolutionError, "\(errors)")
        #expect(first.kind == .factoryThrew)
        #expect(first.underlying is CancellationError)
        #expect(first.registration == "\(#fileID):\(line)", "\(first)")
        #expect(errors.allSatisfy { $0 is ResolutionError }, "a bare CancellationError: \(errors)")
        #expect(runs.value < 5, "the factory ran again for each waiter: \(runs.value)")
    }
}
