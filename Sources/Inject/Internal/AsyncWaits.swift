/// Which async builds wait for which builds, across tasks: so that two async builds that need each other end in an
/// error naming both, instead of suspending forever.
///
/// The async counterpart of ``Parking``'s wait-for table. A waiting task registers its build's chain (the frame
/// that asks and every frame above it, all of which are blocked until it gets its answer) as waiting for a gate;
/// before it suspends, it follows the gate's builder through the table: if that leads back to one of its own
/// frames, the wait could never end. A synchronous build (a thread) never waits for an async one, so a chain that
/// reaches a thread ends there.
final class AsyncWaits: @unchecked Sendable {
    // @unchecked: `waits` is only touched under its lock.
    static let shared = AsyncWaits()

    /// A waiting build: its frame's identity, then its ancestors'.
    struct Waiter {
        let chain: [ObjectIdentifier]
    }

    private let waits = Locked<[ObjectIdentifier: [any Gate]]>([:])

    /// Registers `waiter` as waiting for `gate`.
    ///
    /// - Throws: ``Parking/Deadlock`` when the build `gate` waits for needs, through any number of other waits, one
    ///   of the waiter's own builds.
    func begin(_ waiter: Waiter, waitingFor gate: any Gate) throws {
        try waits.withLock { waits in
            if let chain = Self.cycle(from: gate, backTo: Set(waiter.chain), in: waits) {
                throw Parking.Deadlock(chain: chain)
            }
            for frame in waiter.chain {
                waits[frame, default: []].append(gate)
            }
        }
    }

    /// Ends a wait that ``begin(_:waitingFor:)`` registered.
    func end(_ waiter: Waiter, waitingFor gate: any Gate) {
        waits.withLock { waits in
            for frame in waiter.chain {
                guard var gates = waits[frame], let index = gates.firstIndex(where: { $0 === gate }) else { continue }
                gates.remove(at: index)
                waits[frame] = gates.isEmpty ? nil : gates
            }
        }
    }

    /// The services on a wait-for path from `gate`'s builder back to one of `targets`, or `nil`.
    private static func cycle(
        from gate: any Gate,
        backTo targets: Set<ObjectIdentifier>,
        in waits: [ObjectIdentifier: [any Gate]]
    ) -> [String]? {
        var pending: [(gate: any Gate, chain: [String])] = [(gate, [gate.label])]
        var visited: Set<ObjectIdentifier> = []
        while let (current, chain) = pending.popLast() {
            guard let builder = current.builder, chain.count <= 64 else { continue }
            if targets.contains(builder) {
                return chain
            }
            guard visited.insert(builder).inserted else { continue }
            for next in waits[builder] ?? [] {
                pending.append((next, chain + [next.label]))
            }
        }
        return nil
    }
}
