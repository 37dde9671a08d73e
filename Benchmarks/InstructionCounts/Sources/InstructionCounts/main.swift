// Runs one workload `count` times: `InstructionCounts <workload> <count>`. Scripts/instructions.sh runs each
// workload twice under callgrind (0 times and n times) and divides the difference by n, so that set-up and
// process start cancel out. Build with `-Xswiftc -DONLY_CORE` to measure a commit from before
// `register(autowired:)` and per-argument caching.
import Inject

final class Leaf: Sendable {}
final class Chain0: Sendable {}
final class Chain1: Sendable {
    let c0: Chain0
    init(c0: Chain0) { self.c0 = c0 }
}
final class Chain2: Sendable {
    let c1: Chain1
    init(c1: Chain1) { self.c1 = c1 }
}
final class Chain3: Sendable {
    let c2: Chain2
    init(c2: Chain2) { self.c2 = c2 }
}
final class PerValue: Sendable {
    let value: Int
    init(value: Int) { self.value = value }
}
final class ServiceA: Sendable {}
final class ServiceB: Sendable {}
final class ServiceC: Sendable {}

@inline(never) func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

let names = (0..<1000).map { DIContainer.Name("service\($0)") }

/// W3: a built singleton.
func singletons() -> DIContainer {
    let container = DIContainer()
    container.register(Leaf.self) { _ in Leaf() }.scope(.singleton)
    blackHole(container.resolve(Leaf.self))
    return container
}

/// W4: a transient 3-deep chain, with closure factories.
func chain() -> DIContainer {
    let container = DIContainer()
    container.register(Chain0.self) { _ in Chain0() }.scope(.transient)
    container.register(Chain1.self) { r in try Chain1(c0: r.resolve()) }.scope(.transient)
    container.register(Chain2.self) { r in try Chain2(c1: r.resolve()) }.scope(.transient)
    container.register(Chain3.self) { r in try Chain3(c2: r.resolve()) }.scope(.transient)
    return container
}

/// W7: three singletons for a view model.
let viewModelServices: DIContainer = {
    let container = DIContainer()
    container.register(ServiceA.self) { _ in ServiceA() }.scope(.singleton)
    container.register(ServiceB.self) { _ in ServiceB() }.scope(.singleton)
    container.register(ServiceC.self) { _ in ServiceC() }.scope(.singleton)
    return container
}()

final class InjectedViewModel {
    @Injected(container: viewModelServices) var a: ServiceA
    @Injected(container: viewModelServices) var b: ServiceB
    @Injected(container: viewModelServices) var c: ServiceC
}

final class ViewModel {
    let a: ServiceA
    let b: ServiceB
    let c: ServiceC
    init(a: ServiceA, b: ServiceB, c: ServiceC) {
        self.a = a
        self.b = b
        self.c = c
    }
}

/// W6-like: 1,000 transient services, each asking for up to five earlier ones (a fixed pseudo-random graph).
func randomGraph() -> DIContainer {
    var seed: UInt64 = 42
    func next() -> UInt64 {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return seed >> 33
    }
    let container = DIContainer()
    for index in 0..<1000 {
        let dependencies = index == 0 ? [] : (0..<Int(next() % 6)).map { _ in names[Int(next() % UInt64(index))] }
        container.register(Leaf.self, name: names[index]) { r in
            for name in dependencies { blackHole(try r.resolve(Leaf.self, name: name)) }
            return Leaf()
        }
        .scope(.transient)
    }
    return container
}

/// A server's request scope: app-wide singletons in the root, per-request `.scoped` services, a child per request.
final class RequestContext: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}
final class Transaction: Sendable {
    let pool: Leaf
    let context: RequestContext
    init(pool: Leaf, context: RequestContext) {
        self.pool = pool
        self.context = context
    }
}
final class Handler: Sendable {
    let transaction: Transaction
    let context: RequestContext
    init(transaction: Transaction, context: RequestContext) {
        self.transaction = transaction
        self.context = context
    }
}

let server: DIContainer = {
    let container = DIContainer()
    container.register(Leaf.self) { _ in Leaf() }.scope(.singleton)
    container.register(Transaction.self) { r in try Transaction(pool: r.resolve(), context: r.resolve()) }
        .scope(.scoped)
    container.register(Handler.self) { r in try Handler(transaction: r.resolve(), context: r.resolve()) }
    return container
}()

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]) else {
    fatalError("usage: InstructionCounts <workload> <count>")
}

@inline(never) func run(_ workload: String, _ count: Int) {
    switch workload {
    case "register":  // W1: 1,000 registrations into a fresh container, per count
        for _ in 0..<count {
            let container = DIContainer()
            for name in names { container.register(Leaf.self, name: name) { _ in Leaf() }.scope(.transient) }
            blackHole(container)
        }
    case "singleton":
        let container = singletons()
        for _ in 0..<count { blackHole(container.resolve(Leaf.self)) }
    case "chain":
        let container = chain()
        for _ in 0..<count { blackHole(container.resolve(Chain3.self)) }
    case "injected":
        blackHole(InjectedViewModel())
        for _ in 0..<count { blackHole(InjectedViewModel()) }
    case "resolves":
        for _ in 0..<count {
            let services = viewModelServices
            blackHole(ViewModel(a: services.resolve(), b: services.resolve(), c: services.resolve()))
        }
    case "scoped":  // a built .scoped instance, read through the child that holds it
        let request = server.makeChild()
        request.register(RequestContext.self) { _ in RequestContext(id: 0) }
        blackHole(request.resolve(Transaction.self))
        for _ in 0..<count { blackHole(request.resolve(Transaction.self)) }
    case "request":  // one request: a child, its context registered, a handler over a .scoped service, released
        blackHole(server.resolve(Leaf.self))
        for index in 0..<count {
            let request = server.makeChild()
            request.register(RequestContext.self) { _ in RequestContext(id: index) }
            blackHole(request.resolve(Handler.self))
        }
    case "validate":
        let container = randomGraph()
        try! container.validate()  // the first validation warms the runtime's caches
        for _ in 0..<count { try! container.validate() }
    #if !ONLY_CORE
    case "argument":
        let container = DIContainer()
        container.register(PerValue.self) { (_: DIResolver, value: Int) in PerValue(value: value) }.scope(.singleton)
        for value in 0..<100 { blackHole(container.resolve(PerValue.self, argument: value)) }
        for _ in 0..<count { blackHole(container.resolve(PerValue.self, argument: 42)) }
    case "chain-autowired":
        let container = DIContainer()
        container.register(autowired: Chain0.init).scope(.transient)
        container.register(autowired: Chain1.init(c0:)).scope(.transient)
        container.register(autowired: Chain2.init(c1:)).scope(.transient)
        container.register(autowired: Chain3.init(c2:)).scope(.transient)
        for _ in 0..<count { blackHole(container.resolve(Chain3.self)) }
    #endif
    default:
        fatalError("unknown workload \(workload)")
    }
}

run(arguments[1], count)
