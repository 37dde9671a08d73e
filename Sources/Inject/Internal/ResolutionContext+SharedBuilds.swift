extension ResolutionContext {
    /// Whether a build that another resolve ran, and this one waited for, failed because an async service it read
    /// synchronously was not built, and that service is built now. The resolve then builds again rather than take
    /// the failure: the build it waited for began before the service was built (a thread that resolves beside
    /// `warmUp()` while the async singleton it reads is still being built). It waits at most for the builds that
    /// began before then, so this ends.
    static func isNoLongerTrue(_ error: any Error) -> Bool {
        (error as? ResolutionError)?.isNoLongerTrue == true
    }

    /// The error of a build of `entry` that another resolve ran while this one waited for it, for this resolve: the
    /// same error (its path is the failing build's), with a line that says who waited and why nothing was retried.
    func sharedBuildFailed(_ error: any Error, building entry: EntryBase) -> any Error {
        guard let error = error as? ResolutionError else { return error }
        let own = frames.map(\.entry.label) + [entry.label]
        let waiting = own.joined(separator: " -> ")
        // This resolve's own path to what failed: its frames, then the failed build's path below `entry`. The path
        // of the resolve that built it is in the details, so that each waiter's failure names where it came from.
        let below = error.path.lastIndex(of: entry.label).map { Array(error.path[($0 + 1)...]) } ?? []
        let builtBy = error.path.count > 1 ? " (\(error.path.joined(separator: " -> ")))" : ""
        return ResolutionError(
            kind: error.kind,
            service: error.service,
            path: own + below,
            registration: error.registration,
            underlying: error.underlying,
            headline: error.headline,
            details: error.details + [
                """
                waited for by: \(waiting). Another resolve\(builtBy) was building \(entry.label) and its build threw: every \
                resolve that waited for that build gets its error, and the next resolve builds again.
                """
            ],
            fix: error.fix,
            builtSince: error.builtSince
        )
    }
}
