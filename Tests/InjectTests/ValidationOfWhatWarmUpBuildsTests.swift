import Inject
import InjectTestSupport
import InjectTesting
import Testing

// What validateAsync() says of synchronous and lazy reads of async services, against what warmUp() really builds
// before them: a graph it passes does not fail during or after warmUp(), and one that works is not an error.

private final class Store: Sendable {}
private final class Index: Sendable {
    let store: Store
    init(store: Store) { self.store = store }
}
private final class Warm: Sendable {}
/// Holds something lazily, to be read later or by whoever builds it.
private final class Holder<Held>: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in init, and synchronises its own first read.
    @LazyInjected var held: Held
}
private final class WeakHolder: @unchecked Sendable {
    // @unchecked: the wrapper is set once, in init, and synchronises its own first read.
    @WeakInjected var store: Store?
}
/// Reads a lazy Store while it is built.
private final class LazyReader: Sendable {
    init() {
        _ = Holder<Store>().held
    }
}
private protocol Storing: Sendable {}
extension Store: Storing {}
private final class Config: Sendable {}
private final class Feed: Sendable {}
private final class InjectedStore: @unchecked Sendable {
    // @unchecked: set once, in init.
    @Injected var store: Store
}

struct ValidationOfWhatWarmUpBuildsTests {
    @Test(arguments: [false, true])
    func anEagerSynchronousReadOfAnAsyncServiceNothingAwaitsIsAnError(throughAWrapper: Bool) async throws {
        // The read itself builds nothing: warmUp() fails it, whatever else is eager.
        let container = DIContainer()
        container.register { () async -> Store in Store() }.scope(.singleton)
        if throughAWrapper {
            container.register { InjectedStore() }.scope(.singleton).eager()
        } else {
            container.register { r in Index(store: try r.resolve()) }.scope(.singleton).eager()
        }

        let report = await container.validationReportAsync()

        #expect(!report.isValid, "\(report)")
        await #expect(throws: StartupError.self) { try await container.warmUp() }
    }

    @Test func aLazyReadInsideAnEagerBuildOfWhatReadsAnAsyncServiceIsAnError() async throws {
        // Warm's factory reads Holder<Index>.held lazily; building Index reads Store, which warmUp() builds meanwhile.
        let container = DIContainer()
        container.register { () async -> Store in Store() }.scope(.singleton).eager()
        container.register { r in Index(store: try r.resolve()) }.scope(.singleton)
        container.register { () -> Warm in
            _ = Holder<Index>().held
            return Warm()
        }
        .scope(.singleton).eager()

        let report = await container.validationReportAsync()

        let error = try #require(report.errors.first, "\(report)")
        #expect(error.message.contains("read inside Warm's factory, reaches it"), "\(error)")
        #expect(error.description.contains("path: Warm -> Index -> Store"), "\(error)")
    }

    @Test func aLazyReadIsNotExcusedByAnotherBuildsReadOfTheService() async throws {
        // Validation builds LazyReader inside Warm's resolve, after Warm read Store; warmUp() builds it on its own.
        let container = DIContainer()
        container.register { () async -> Store in Store() }.scope(.singleton).eager()
        container.register { r -> Warm in
            _ = try r.resolve(Store.self)
            _ = try r.resolve(LazyReader.self)
            return Warm()
        }
        .scope(.singleton).eager()
        container.register { LazyReader() }.scope(.singleton).eager()

        let report = await container.validationReportAsync()

        let error = try #require(report.errors.first, "\(report)")
        #expect(error.message.contains("read inside LazyReader's factory, reaches it"), "\(error)")
    }

    @Test(arguments: [false, true])
    func aLazyOrWeakReadInAnAsyncFactoryIsValidOnlyAfterItAwaitedTheService(awaitsFirst: Bool) async throws {
        let container = DIContainer()
        container.register { () async -> Store in Store() }.scope(.singleton).eager()
        container.register { r async throws -> Warm in
            if awaitsFirst {
                _ = try await r.resolveAsync(Store.self)
            }
            _ = WeakHolder().store
            _ = Holder<Store>().held
            return Warm()
        }
        .scope(.singleton).eager()

        let report = await container.validationReportAsync()

        #expect(report.isValid == awaitsFirst, "\(report)")
        if awaitsFirst {
            try await container.warmUp()
        }
    }

    @Test(arguments: [false, true])
    func anAsyncServiceAwaitedOnlyAfterASynchronousReadOfItIsNotBuiltForThatRead(awaitsFirst: Bool) async throws {
        // Index reads Store synchronously: Warm must await Store before it awaits Index, or no wave ever builds it.
        let container = DIContainer()
        container.register { () async -> Store in Store() }.scope(.singleton)
        container.register { r in Index(store: try r.resolve()) }.scope(.singleton)
        container.register { r async throws -> Warm in
            if awaitsFirst {
                _ = try await r.resolveAsync(Store.self)
            }
            _ = try await r.resolveAsync(Index.self)
            _ = try await r.resolveAsync(Store.self)
            return Warm()
        }
        .scope(.singleton).eager()

        let report = await container.validationReportAsync()

        #expect(report.isValid == awaitsFirst, "\(report)")
        if awaitsFirst {
            try await container.warmUp()
        } else {
            await #expect(throws: StartupError.self) { try await container.warmUp() }
        }
    }

    @Test(arguments: [0, 1, 2])
    func aLazyReadAfterAReadThatThrowsInTheSameBuildIsValid(through: Int) async throws {
        // Through a nested build's r.resolve (0), a forward (1), or an awaited build that awaited it (2): if Store is
        // not built yet, that read fails the build before the lazy read, and warmUp() builds it again later.
        let container = DIContainer()
        container.register { () async -> Store in Store() }.scope(.singleton).eager().implements(Storing.self)
        container.register { r in Index(store: try r.resolve()) }
        container.register { r async throws -> Config in
            _ = try await r.resolveAsync(Store.self)
            return Config()
        }
        container.register { r async throws -> Warm in
            switch through {
            case 0: _ = try r.resolve(Index.self)
            case 1: _ = try r.resolve(Storing.self)
            default: _ = try await r.resolveAsync(Config.self)
            }
            _ = Holder<Store>().held
            return Warm()
        }
        .scope(.singleton).eager()

        let report = await container.validationReportAsync()

        #expect(report.isValid, "\(report)")
        try await container.warmUp()
    }

    @Test(arguments: [false, true])
    func aLazyReadAfterASingletonValidationBuiltBeforeReadTheServiceIsValid(builtBefore: Bool) async throws {
        // Index, a singleton, reads Store with r.resolve; Warm gets Index, then reads Store lazily. Whether validation
        // built Index on its own first (its registration comes first) or inside Warm's build.
        let container = DIContainer()
        container.register { () async -> Store in Store() }.scope(.singleton).eager()
        if builtBefore {
            container.register { r in Index(store: try r.resolve()) }.scope(.singleton)
        }
        container.register { r -> Warm in
            _ = try r.resolve(Index.self)
            _ = Holder<Store>().held
            return Warm()
        }
        .scope(.singleton).eager()
        if !builtBefore {
            container.register { r in Index(store: try r.resolve()) }.scope(.singleton)
        }

        let report = await container.validationReportAsync()

        #expect(report.isValid, "\(report)")
        try await container.warmUp()
    }

    @Test func aLazyReadAfterAPropertyWrappersReadIsStillAnError() async throws {
        // The @Injected read keeps its failure until the factory returns: the lazy read after it runs, and traps.
        let container = DIContainer()
        container.register { () async -> Store in Store() }.scope(.singleton).eager()
        container.register { () -> Warm in
            _ = InjectedStore()
            _ = Holder<Store>().held
            return Warm()
        }
        .scope(.singleton).eager()

        let report = await container.validationReportAsync()

        let error = try #require(report.errors.first, "\(report)")
        #expect(error.message.contains("read inside Warm's factory, reaches it"), "\(error)")
    }

    @Test func aSynchronousReadBeforeTheAwaitOfTheSameServiceIsAnError() async throws {
        // Store is registered first, so validation has built it when Feed reads it: the read still comes first.
        let container = DIContainer()
        container.register { () async -> Store in Store() }.scope(.singleton)
        container.register { r async throws -> Feed in
            _ = try r.resolve(Store.self)
            _ = try await r.resolveAsync(Store.self)
            return Feed()
        }
        .scope(.singleton).eager()

        let report = await container.validationReportAsync()

        #expect(!report.isValid, "\(report)")
        await #expect(throws: StartupError.self) { try await container.warmUp() }
    }

    @Test func warmUpGoesOnWhileAWaveBuildsSomethingThatStaysEvenIfItsBuildsFail() async throws {
        // Wave 1: Warm awaits Config; Feed and Index fail their first reads. Wave 2: Feed awaits Store, then fails
        // on Ledger, and Index fails on Store read beside it: no fewer failures, but Store stays. Wave 3 settles.
        final class Ledger: Sendable {}
        final class Reader: Sendable {}
        let container = DIContainer()
        container.register { () async throws -> Config in
            try await Task.sleep(nanoseconds: 10_000_000)
            return Config()
        }
        .scope(.singleton)
        container.register { () async throws -> Store in
            try await Task.sleep(nanoseconds: 30_000_000)
            return Store()
        }
        .scope(.singleton)
        container.register { () async throws -> Ledger in
            try await Task.sleep(nanoseconds: 5_000_000)
            return Ledger()
        }
        .scope(.singleton)
        container.register { r async throws -> Warm in
            _ = try await r.resolveAsync(Config.self)
            return Warm()
        }
        .scope(.singleton).eager()
        container.register { r async throws -> Feed in
            _ = try r.resolve(Config.self)
            _ = try await r.resolveAsync(Store.self)
            _ = try r.resolve(Ledger.self)
            return Feed()
        }
        .scope(.singleton).eager()
        container.register { r async throws -> Reader in
            _ = try r.resolve(Store.self)
            _ = try await r.resolveAsync(Ledger.self)
            return Reader()
        }
        .scope(.singleton).eager()

        let report = await container.validationReportAsync()

        #expect(report.isValid, "\(report)")
        let outcome = await completes("a warm-up whose waves each build something") { try await container.warmUp() }
        #expect(throws: Never.self) { try #require(outcome).get() }
    }

    @Test func aLazyReadAfterTheBuildReadStheServiceWithResolveIsValid() async throws {
        // As the fix says: the factory's own r.resolve fails first while Store is unbuilt, and warmUp() builds it again.
        let container = DIContainer()
        container.register { () async -> Store in Store() }.scope(.singleton).eager()
        container.register { r -> Warm in
            _ = try r.resolve(Store.self)
            _ = Holder<Store>().held
            return Warm()
        }
        .scope(.singleton).eager()

        let report = await container.validationReportAsync()

        #expect(report.isValid, "\(report)")
        try await container.warmUp()
    }

    @Test func whatAScopedEagerServiceAwaitsIsNotBuiltByTheRootsWarmUp() async throws {
        // A root's warmUp() leaves .scoped eager services to its children: nothing builds Store for Index.
        let container = DIContainer()
        container.register { () async -> Store in Store() }.scope(.singleton)
        container.register { r async throws -> Warm in
            _ = try await r.resolveAsync(Store.self)
            return Warm()
        }
        .scope(.scoped).eager()
        container.register { r in Index(store: try r.resolve()) }.scope(.singleton)

        let report = await container.validationReportAsync()

        #expect(!report.isValid, "\(report)")
        try await container.warmUp()
        #expect(throws: ResolutionError.self) { try container.resolveThrowing(Index.self) }
    }

    @Test func aScopedAsyncServiceTheRootsWarmUpBuildsIsNotAChildsOwn() async throws {
        // The root's eager singleton builds the root's .scoped Store; a child's Index reads the child's own.
        let app = DIContainer()
        app.register { () async -> Store in Store() }.scope(.scoped)
        app.register { r async throws -> Warm in
            _ = try await r.resolveAsync(Store.self)
            return Warm()
        }
        .scope(.singleton).eager()
        app.register { r in Index(store: try r.resolve()) }.scope(.transient)
        let session = app.makeChild()

        let report = await session.validationReportAsync()

        #expect(!report.isValid, "\(report)")
        try await app.warmUp()
        try await session.warmUp()
        #expect(throws: ResolutionError.self) { try session.resolveThrowing(Index.self) }
    }

    @Test func aWeakAsyncServiceAnEagerBuildAwaitsIsNotCountedOnForLaterReads() async throws {
        // Kept only while something holds it: the fix does not say to mark a .weak registration .eager().
        let container = DIContainer()
        container.register { () async -> Store in Store() }.scope(.weak)
        container.register { r async throws -> Warm in
            _ = try await r.resolveAsync(Store.self)
            return Warm()
        }
        .scope(.singleton).eager()
        container.register { r in Index(store: try r.resolve()) }

        let report = await container.validationReportAsync()

        let error = try #require(report.errors.first, "\(report)")
        #expect(error.message.contains("has an async factory and is .weak"), "\(error)")
        #expect(error.description.contains("give it a scope that keeps it (.singleton or .cached)"), "\(error)")
    }

    @Test func aWeakAsyncServiceAwaitedAndDroppedThenReadSaysToKeepWhatWasAwaited() async throws {
        let container = DIContainer()
        container.register { () async -> Store in Store() }.scope(.weak)
        container.register { r async throws -> Index in
            _ = try await r.resolveAsync(Store.self)  // dropped at once: nothing holds a .weak instance
            return Index(store: try r.resolve())
        }
        .scope(.singleton).eager()

        let report = await container.validationReportAsync()

        let error = try #require(report.errors.first, "\(report)")
        #expect(error.message.contains("is .weak, and no instance of it is alive"), "\(error)")
        #expect(error.description.contains("keep the instance you await and pass it on"), "\(error)")
        await #expect(throws: StartupError.self) { try await container.warmUp() }
    }

    @Test(arguments: [false, true])
    func aMainActorSingletonWarmUpBuildsIsReadFromAnyThreadAfterIt(isEager: Bool) async throws {
        // Store, built on the main actor, is eager (or not, and nothing builds it first): Index reads it off it.
        let container = DIContainer()
        if isEager {
            container.register(Store.self, mainActorFactory: { _ in Store() }).scope(.singleton).eager()
        } else {
            container.register(Store.self, mainActorFactory: { _ in Store() }).scope(.singleton)
        }
        container.register { r in Index(store: try r.resolve()) }

        let report = await container.validationReportAsync()

        #expect(report.untimedProblems.isEmpty == isEager, "\(report)")
        if isEager {
            try await container.warmUp()
            let index = await Task.detached { try container.resolveThrowing(Index.self) }.result
            #expect(try index.get().store === container.resolve(Store.self))
        }
    }

    @Test func aScopedMainActorServiceASessionsWarmUpBuildsIsReadFromAnyThreadAfterItButNotInTheRoot() async throws {
        // Store is .scoped and eager: the session's warmUp() builds the session's own, which Index then reads.
        let app = DIContainer()
        app.register(Store.self, mainActorFactory: { _ in Store() }).scope(.scoped).eager()
        let session = app.makeChild()
        session.register { r in Index(store: try r.resolve()) }
        app.register { r in Index(store: try r.resolve()) }

        let sessionReport = await session.validationReportAsync()
        let appReport = await app.validationReportAsync()

        #expect(sessionReport.untimedProblems.isEmpty, "\(sessionReport)")
        // The root's warmUp() leaves its .scoped registrations to its children: the root's Index still needs it.
        #expect(appReport.warnings.contains { $0.message.contains("registered with mainActorFactory") }, "\(appReport)")
        try await session.warmUp()
        let index = await Task.detached { try session.resolveThrowing(Index.self) }.result
        #expect(try index.get().store === session.resolve(Store.self))
    }

    @Test func warmUpEndsWhenItsWavesOnlyBuildAgainWhatAFactoryResets() async throws {
        // Feed resets Config and reads an async Store nothing builds: each wave builds Config again, and no more.
        let container = DIContainer()
        container.register { Config() }.scope(.cached)
        container.register { () async -> Store in Store() }.scope(.singleton)
        container.register { r -> Feed in
            _ = try r.resolve(Config.self)
            container.reset(Config.self)
            _ = try r.resolve(Store.self)
            return Feed()
        }
        .scope(.singleton).eager()

        let outcome = await completes("a warm-up whose waves build nothing new") { try await container.warmUp() }

        #expect(throws: StartupError.self) { try #require(outcome).get() }
    }

    @Test func aParentsEagerRegistrationAChildReplacesIsStillBuiltByTheChildsWarmUpAndJudged() async throws {
        struct Offline: Error {}
        let app = DIContainer()
        app.register(Store.self) { () async throws -> Store in throw Offline() }.scope(.singleton).eager()
        let preview = app.makeChild()
        preview.register(Store.self) { Store() }.scope(.singleton).eager()

        let report = await preview.validationReportAsync()

        #expect(report.problems(ofKind: .factoryThrew).count == 1, "\(report)")
        await #expect(throws: StartupError.self) { try await preview.warmUp() }
    }
}
