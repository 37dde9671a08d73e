/// What `validate()` sees while it builds: the registrations built and their own build times, the dependency edges
/// between them, and the services asked for but not registered.
///
/// The resolution engine reports to it only under the validation overlay, so ordinary resolves pay nothing. Factories
/// may hand a resolver to other threads, so it locks.
final class ValidationRecorder: @unchecked Sendable {
    // @unchecked: `state` is only touched through its lock.

    /// Where an edge leads: a registration, or a service nothing is registered for.
    enum Target: Hashable {
        case entry(ObjectIdentifier)
        case missing(String)
    }

    struct State {
        /// Every registration seen, in the order first seen.
        var entries: [EntryBase] = []
        var seen: Set<ObjectIdentifier> = []
        /// Dependencies by the registration whose factory asked, in the order first asked.
        var dependencies: [ObjectIdentifier: [Target]] = [:]
        var edges: Set<Edge> = []
        /// The longest time each registration's own factory took, in nanoseconds.
        var buildNanoseconds: [ObjectIdentifier: UInt64] = [:]
        /// Services asked for but not registered, in the order first asked.
        var missing: [String] = []
    }

    struct Edge: Hashable {
        let from: ObjectIdentifier
        let to: Target
    }

    private let state = Locked(State())

    /// `from` (or a top-level request, when `nil`) asked for `to`.
    func record(from: EntryBase?, to: EntryBase) {
        state.withLock { state in
            state.see(to)
            if let from {
                state.see(from)
                state.add(Edge(from: ObjectIdentifier(from), to: .entry(ObjectIdentifier(to))))
            }
        }
    }

    /// `from` asked for `service`, which is not registered.
    func recordMissing(from: EntryBase?, service: String) {
        state.withLock { state in
            if !state.missing.contains(service) {
                state.missing.append(service)
            }
            if let from {
                state.see(from)
                state.add(Edge(from: ObjectIdentifier(from), to: .missing(service)))
            }
        }
    }

    /// `entry`'s own factory took `nanoseconds`, not counting the registrations it asked for.
    func recordBuild(of entry: EntryBase, nanoseconds: UInt64) {
        state.withLock { state in
            state.see(entry)
            let key = ObjectIdentifier(entry)
            state.buildNanoseconds[key] = max(state.buildNanoseconds[key] ?? 0, nanoseconds)
        }
    }

    /// Everything recorded so far.
    var snapshot: State {
        state.withLock { $0 }
    }
}

extension ValidationRecorder.State {
    fileprivate mutating func see(_ entry: EntryBase) {
        if seen.insert(ObjectIdentifier(entry)).inserted {
            entries.append(entry)
        }
    }

    fileprivate mutating func add(_ edge: ValidationRecorder.Edge) {
        if edges.insert(edge).inserted {
            dependencies[edge.from, default: []].append(edge.to)
        }
    }
}
