extension ResolutionContext {
    /// Runs `body` on the calling thread's context, seeded from an async resolution: the frames of `frame`'s chain
    /// (outermost first) on the stack, the resolution's overlay, and the resolution itself for graph-scope instances
    /// and build records. Everything the synchronous engine does inside (a synchronous factory run inline, a
    /// `resolve` inside an async factory, a wrapper initialised there, building an error's text) then sees the async
    /// resolution's path, cycle detection and caches. The context is put back at rest afterwards.
    ///
    /// A synchronous resolution never spans an `await`, so a thread that runs part of an async resolution has no
    /// synchronous resolution under way: the context is at rest when seeded.
    static func seeded<Result>(
        from frame: AsyncFrame?,
        in resolution: AsyncResolution,
        _ body: (ResolutionContext) throws -> Result
    ) rethrows -> Result {
        try withCurrent { context in
            precondition(
                !context.isResolving,
                "Inject: an async resolution was seeded onto a thread with a synchronous resolution under way"
            )
            return try context.seed(from: frame, in: resolution, body)
        }
    }

    /// ``seeded(from:in:_:)`` on this context, which is at rest.
    func seed<Result>(
        from frame: AsyncFrame?,
        in resolution: AsyncResolution,
        _ body: (ResolutionContext) throws -> Result
    ) rethrows -> Result {
        let chain = frame?.chain ?? []
        guard chain.count < Self.maximumDepth else {
            preconditionFailure("Inject: an async resolution went \(Self.maximumDepth) registrations deep")
        }
        for ancestor in chain {
            push(ancestor.entry, ancestor.container, ancestor.argument)
            if let box = ancestor.instanceInProgress {
                setInProgress(box)
            }
        }
        overlay = resolution.overlay
        asyncResolution = resolution
        defer {
            if lentCount > 0 {
                // The frames that lent are the async resolution's: they settle what was built on them.
                handOverLending(to: chain)
            }
            // The synchronous builds this part of the async ones asked for: not their own time either. They ran one
            // after another on this thread, just now: one span that ends now.
            for (depth, ancestor) in chain.enumerated() where frames[depth].nestedNanoseconds > 0 {
                let now = monotonicNanoseconds()
                ancestor.addNested(from: now &- frames[depth].nestedNanoseconds, to: now)
            }
            for _ in chain {
                pop()
            }
            overlay = nil
            asyncResolution = nil
            if !asyncReads.isEmpty {
                asyncReads.removeAll()
            }
            handOverDrops(to: resolution)
            if !borrowed.isEmpty {
                // The async resolution waits for them when its top-level request ends.
                resolution.addBorrowed(borrowed)
                borrowed.removeAll()
            }
        }
        return try body(self)
    }
}
