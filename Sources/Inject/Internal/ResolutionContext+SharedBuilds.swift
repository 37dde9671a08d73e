extension ResolutionContext {
    /// The error of a build of `entry` that another resolve ran while this one waited for it, for this resolve: the
    /// same error (its path is the failing build's), with a line that says who waited and why nothing was retried.
    func sharedBuildFailed(_ error: any Error, building entry: EntryBase) -> any Error {
        guard let error = error as? ResolutionError else { return error }
        let waiting = (frames.map(\.entry.label) + [entry.label]).joined(separator: " -> ")
        return ResolutionError(
            kind: error.kind,
            service: error.service,
            path: error.path,
            registration: error.registration,
            underlying: error.underlying,
            headline: error.headline,
            details: error.details + [
                """
                waited for by: \(waiting). Another resolve was building \(entry.label) and its build threw: every \
                resolve that waited for that build gets its error, and the next resolve builds again.
                """
            ],
            fix: error.fix
        )
    }
}
