extension ProblemCollector {
    /// Lazy wrappers read inside builds that `warmUp()` runs, which reach, through synchronous requests, an async
    /// service that `warmUp()` builds at the same time: the read may come first, and a lazy read can neither wait for
    /// it nor fail the build for `warmUp()` to try it again, as `r.resolve` does. It traps.
    mutating func addLazyReadsDuringWarmUp(in seen: ValidationRecorder.State) {
        guard !seen.lazyReadsInBuilds.isEmpty else { return }
        let warmUp = seen.warmUpBuilds(validated: recorder?.validated)
        let entriesByID = seen.entriesByID
        for read in seen.lazyReadsInBuilds where warmUp.run.contains(ObjectIdentifier(read.reader)) {
            guard let (service, path) = Self.asyncServiceReadSynchronously(from: read, warmUp, seen, entriesByID)
            else { continue }
            let reader = read.reader
            let spelled =
                "\(Describe.type(service.serviceType)).self"
                + (service.name.map { ", name: \($0.rawValue.debugDescription)" } ?? "")
            add(
                ValidationProblem(
                    severity: .error,
                    kind: .invalidRegistration,
                    service: service.label,
                    location: reader.location,
                    message: """
                        \(service.label), registered at \(service.location), has an async factory, and \(read.site), \
                        read inside \(reader.label)'s \(read.closure), reaches it: warmUp() runs that \(read.closure) \
                        and builds \(service.label) at the same time, so the read may come first, and a lazy read can \
                        neither wait for an async build nor fail the build to be tried again: it traps.
                        """,
                    details: [
                        "path: \(([reader.label] + path).joined(separator: " -> "))",
                        "the read: \(read.site), in \(reader.label)'s \(read.closure), registered at \(reader.location)",
                        """
                        fix: in that \(read.closure), first get \(service.label) with try r.resolve(\(spelled)) \
                        (warmUp() builds a synchronous factory again once it is built) or with try await \
                        r.resolveAsync(\(spelled)) in an async factory, or read the property only after warmUp().
                        """,
                    ]
                )
            )
        }
    }

    /// The first async service, built by `warmUp()`, that `read` or a build it makes reads synchronously (the read
    /// itself, or a request that was not awaited), with the path to it; `nil` when there is none, or when the same
    /// resolve had read it before.
    private static func asyncServiceReadSynchronously(
        from read: ValidationRecorder.LazyReadInBuild,
        _ warmUp: WarmUpBuilds,
        _ seen: ValidationRecorder.State,
        _ entriesByID: [ObjectIdentifier: EntryBase]
    ) -> (EntryBase, path: [String])? {
        func isRacing(_ node: ValidationRecorder.Node, _ entry: EntryBase) -> Bool {
            entry.isAsync && warmUp.keeps(node) && !read.readBefore.contains(node.entry)
        }
        guard let first = entriesByID[read.read.entry] else { return nil }
        if isRacing(read.read, first) {
            return (first, [first.label])
        }
        // Breadth first through synchronous requests: what the read builds, and what those builds read.
        var pending: [(node: ValidationRecorder.Node, path: [String])] = [(read.read, [first.label])]
        var visited: Set<ValidationRecorder.Node> = [read.read]
        var next = 0
        while next < pending.count {
            let (node, path) = pending[next]
            next += 1
            guard entriesByID[node.entry]?.isAsync == false else { continue }
            for edge in seen.dependencies[.node(node)] ?? [] where !edge.kind.isOnFirstRead {
                guard case .node(let target) = edge.to, let entry = entriesByID[target.entry],
                    visited.insert(target).inserted
                else { continue }
                if isRacing(target, entry) {
                    return (entry, path + [entry.label])
                }
                pending.append((target, path + [entry.label]))
            }
        }
        return nil
    }
}
