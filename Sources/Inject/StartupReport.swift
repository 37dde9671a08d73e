/// What ``DIContainer/warmUp()`` built and what start-up cost: each build's own time, the wall time, what the same
/// builds would take one after another, and the chain of dependent builds that bounded the wall time.
///
/// Its ``description`` is what a developer reads at launch:
///
/// ```text
/// warm-up: 4 builds in 12.4 ms; one by one they take 31.0 ms: 2.5x faster
/// critical path, 12.4 ms: Keychain, then Database
/// slowest builds:
///   RemoteConfig (.singleton)  10.2 ms
///   Database (.singleton)      7.3 ms
///   HTTPClient (.singleton)    1.2 ms  via RemoteConfig
///   ...
/// ```
public struct StartupReport: CustomStringConvertible, Sendable {
    /// Every instance `warmUp()` built, eager registrations and what they asked for, slowest first.
    public let builds: [BuildEvent]
    /// From `warmUp()`'s start until it had every build it set out to make: its own last build's end, or later when
    /// it waited for one that another `warmUp()` or a resolve was making.
    public let wallSeconds: Double
    /// The sum of all build times: what a one-by-one start-up costs.
    public let serialSeconds: Double
    /// The chain of dependent builds that bounded ``wallSeconds``, outermost dependency first.
    public let criticalPath: [String]
    /// The builds that failed, each with its whole error.
    public let failures: [ResolutionError]
    /// What ``description`` says about the critical path: a build on it that waited for every other eager build.
    let notes: [String]
    /// The time of the builds on the critical path, each counted once (a service built several times, such as a
    /// `.graph` one several eager services ask for, is on the path once); `nil` in a report made without it, which
    /// then adds the builds of the path's services.
    let criticalPathSeconds: Double?
    /// The builds of `.eager()` registrations, which ``description`` does not show as built "via" another: they are
    /// built for their own sake, and which request reached one first is a race between the builds.
    let eagerServices: Set<String>
    /// How many eager services `warmUp()` found unbuilt and then waited for while another warm-up (or a resolve)
    /// built them, when it built none itself.
    let builtElsewhere: Int
    /// What ``description`` says of eager builds that went on past a failed read of an async service not built yet,
    /// and were kept without it.
    let builtWithout: [String]
    /// The times of the builds made on the main actor (`mainActorFactory`), which run one at a time.
    let mainActorBuilds: [Double]
    /// The wall time the eager builds that failed ran for: part of ``wallSeconds``, though no build remains of them.
    let failedSeconds: Double
    /// The services whose builds, made by another warm-up or a resolve, builds here waited for, and the wall time
    /// those waits covered.
    let waitedElsewhere: (services: [String], seconds: Double)

    /// A report of these builds and times. `package` access: `warmUp()` makes the reports, and tests make their own
    /// to check what ``description`` says of given figures.
    package init(
        builds: [BuildEvent],
        wallSeconds: Double,
        serialSeconds: Double,
        criticalPath: [String],
        failures: [ResolutionError],
        notes: [String] = [],
        eagerServices: Set<String> = [],
        builtElsewhere: Int = 0,
        criticalPathSeconds: Double? = nil,
        builtWithout: [String] = [],
        failedSeconds: Double = 0,
        mainActorBuilds: [Double] = [],
        waitedElsewhere: (services: [String], seconds: Double) = ([], 0)
    ) {
        self.builds = builds
        self.wallSeconds = wallSeconds
        self.serialSeconds = serialSeconds
        self.criticalPath = criticalPath
        self.failures = failures
        self.notes = notes
        self.eagerServices = eagerServices
        self.builtElsewhere = builtElsewhere
        self.criticalPathSeconds = criticalPathSeconds
        self.builtWithout = builtWithout
        self.failedSeconds = failedSeconds
        self.mainActorBuilds = mainActorBuilds
        self.waitedElsewhere = waitedElsewhere
    }

    /// How many times faster than a one-by-one start-up: ``serialSeconds`` / ``wallSeconds``; 1 when it built
    /// nothing, which has no one-by-one start-up to compare with.
    public var speedUp: Double {
        wallSeconds > 0 && !builds.isEmpty ? serialSeconds / wallSeconds : 1
    }

    /// How many builds ``description`` lists.
    static let slowestListed = 10

    /// The summary line, the critical path, the slowest builds, then every failure.
    public var description: String {
        if builds.isEmpty && failures.isEmpty && builtElsewhere > 0 {
            let which =
                builtElsewhere == 1
                ? "the eager service it found unbuilt was"
                : "the \(builtElsewhere) eager services it found unbuilt were"
            return """
                warm-up: nothing left to build: \(which) built meanwhile by another warmUp() (or resolve), which it \
                waited for, \(Describe.milliseconds(wallSeconds))
                """
        }
        if builds.isEmpty && failures.isEmpty {
            return """
                warm-up: nothing to build: no .eager() registration in this container or its parents is left unbuilt \
                (mark the services to build at start-up with .eager())
                """
        }
        let pathSeconds =
            criticalPathSeconds ?? builds.filter { criticalPath.contains($0.service) }.reduce(0) { $0 + $1.seconds }
        // The one-by-one time counts only the builds that succeeded.
        let counting = failures.isEmpty ? "" : ", counting only the builds that succeeded"
        let gain = speedUp >= 1.05 ? "\(format1(speedUp))x faster\(counting)" : noGain(pathSeconds: pathSeconds)
        var lines: [String]
        switch builds.count {
        case 0: lines = ["warm-up: no build succeeded, in \(Describe.milliseconds(wallSeconds))"]
        // One build has nothing to be built beside: no one-by-one time to compare with.
        case 1:
            let outside =
                !wentOutsideTheBuilds
                ? ""
                : failuresTookTheTime
                    ? ", counting only the build that succeeded: the failed ones (below) took time too"
                    : ": most of the wall time went outside this build (\(Self.outside))"
            lines = ["warm-up: 1 build in \(Describe.milliseconds(wallSeconds))\(outside)"]
        default:
            lines = [
                """
                warm-up: \(ValidationReport.count(builds.count, "build")) in \(Describe.milliseconds(wallSeconds)); \
                one by one they take \(Describe.milliseconds(serialSeconds)): \(gain)
                """
            ]
        }
        // A path that rounds to 0.0 ms bounds nothing worth reading, as the slowest builds below.
        if !criticalPath.isEmpty, pathSeconds >= 0.000_05 {
            lines.append(
                "critical path, \(Describe.milliseconds(pathSeconds)): \(criticalPath.joined(separator: ", then "))"
            )
            lines += notes.map { "  note: \($0)" }
            let elsewhere = waitElsewhereNote()
            if let elsewhere {
                lines.append("  note: \(elsewhere)")
            }
            let mainActor = mainActorNote(pathSeconds: pathSeconds, summary: lines[0])
            if let mainActor {
                lines.append("  note: \(mainActor)")
            }
            // What the waits for builds made elsewhere, the main actor's builds one at a time and the failed builds
            // explain is not left to builds waiting for a thread.
            let explained = max(
                pathSeconds + (elsewhere == nil ? 0 : waitedElsewhere.seconds),
                mainActorBuilds.reduce(0, +),
                failedSeconds
            )
            if let threads = waitForThreads(pathSeconds: pathSeconds, explained: explained) {
                lines.append("  note: \(threads)")
            }
        }
        lines += builtWithout.map { "note: \($0)" }
        // At most ten rows, and none that rounds to 0.0 ms, which says nothing about start-up: counted, not listed.
        let slowest = builds.prefix(Self.slowestListed).filter { $0.seconds >= 0.000_05 }
        if !slowest.isEmpty {
            lines.append("slowest builds:")
            let names = slowest.map { "\($0.service) (\($0.scope))" }
            let width = names.map(\.count).max() ?? 0
            for (name, build) in zip(names, slowest) {
                let padded = name + String(repeating: " ", count: width - name.count)
                let via =
                    build.path.count > 1 && !eagerServices.contains(build.service)
                    ? "  via \(build.path.dropLast().joined(separator: " -> "))" : ""
                lines.append("  \(padded)  \(Describe.milliseconds(build.seconds))\(via)")
            }
        }
        if slowest.isEmpty, !builds.isEmpty {
            lines.append(builds.count == 1 ? "it took under 0.05 ms" : "every build took under 0.05 ms")
        } else if builds.count > slowest.count {
            let rest = builds.count - slowest.count
            lines.append("  and \(ValidationReport.count(rest, "faster build"))")
        }
        if !failures.isEmpty {
            lines.append("\(ValidationReport.count(failures.count, "failure")):")
            lines += failures.map { $0.description.split(separator: "\n").map { "  \($0)" }.joined(separator: "\n") }
        }
        return lines.joined(separator: "\n")
    }

    /// The wall time builds here spent waiting for builds another warm-up or a resolve was making, which the
    /// critical path, made of this warm-up's builds, does not show; when it is 5 ms or more.
    private func waitElsewhereNote() -> String? {
        let (services, seconds) = waitedElsewhere
        guard !services.isEmpty, seconds >= 0.005 else { return nil }
        let listed = services.count <= 3 ? services : Array(services.prefix(3)) + ["\(services.count - 3) more"]
        return """
            \(Describe.milliseconds(seconds)) of the \(Describe.milliseconds(wallSeconds)) went to waiting for \
            \(listed.joined(separator: ", ")), which another warmUp() or a resolve was building: the critical path \
            above counts only this warm-up's own builds
            """
    }

    /// The time the builds on the main actor took, one at a time, when it bounds more of the wall time than the
    /// critical path and the summary line does not say so already.
    private func mainActorNote(pathSeconds: Double, summary: String) -> String? {
        let seconds = mainActorBuilds.reduce(0, +)
        guard mainActorBuilds.count > 1, seconds >= 0.005, seconds > pathSeconds, !summary.contains("main actor")
        else { return nil }
        return """
            \(Describe.milliseconds(seconds)) of the \(Describe.milliseconds(wallSeconds)) went to the \
            \(mainActorBuilds.count) builds on the main actor (mainActorFactory), which run one at a time, beside \
            the others
            """
    }

    /// Why a warm-up that was faster than its builds one by one still took well over its critical path: builds
    /// that could run at once waited for a free thread.
    ///
    /// - Parameter explained: The wall time the critical path and the notes above it account for.
    private func waitForThreads(pathSeconds: Double, explained: Double) -> String? {
        guard speedUp >= 1.05, wallSeconds >= explained * 1.5, wallSeconds - explained >= 0.005 else {
            return nil
        }
        let threads = ProcessorCount.current
        return """
            the critical path explains \(Describe.milliseconds(pathSeconds)) of the \(Describe.milliseconds(wallSeconds)); \
            the rest went to builds waiting for one of the \(threads) thread\(threads == 1 ? "" : "s") that run them at \
            once here: a synchronous factory holds its thread while it works or waits (sleep, I/O), and an async \
            factory gives it back at each await
            """
    }

    /// Why a warm-up was no faster than its builds one by one, from what the report knows.
    private func noGain(pathSeconds: Double) -> String {
        // Only when the critical path is listed below (it rounds to more than 0.0 ms).
        let chain: String? =
            pathSeconds >= 0.000_05 && pathSeconds >= serialSeconds * 0.9
            ? (criticalPath.count == 1
                ? "no faster: one build, \(criticalPath[0]), took nearly all of the time"
                : "no faster: each build waited for the one before it (the critical path below)")
            : nil
        guard wentOutsideTheBuilds else {
            // Main-actor builds run one at a time, however long each is.
            if chain == nil, mainActorBuilds.count > 1, mainActorBuilds.reduce(0, +) >= serialSeconds / 2 {
                return
                    "no faster: most of the time went to builds on the main actor (mainActorFactory), which run one at a time"
            }
            // Builds too short to gain from running in parallel take about as long either way: no speed-up to claim.
            return chain ?? "no faster, too little to build in parallel"
        }
        // The one-by-one time counts only the builds that succeeded.
        if failuresTookTheTime {
            return "no faster, counting only the builds that succeeded: the failed ones (below) took time too"
        }
        let outside = "most of the wall time went outside these builds (\(Self.outside))"
        // A chain of a few milliseconds explains little beside that: only a longer one is named with it.
        if let chain, pathSeconds >= 0.005 {
            return "\(chain); and \(outside)"
        }
        return "no faster: \(outside)"
    }

    /// Whether the wall time is well over every build's time put together: something besides the builds took the
    /// rest.
    private var wentOutsideTheBuilds: Bool {
        wallSeconds > serialSeconds * 1.5 && wallSeconds - serialSeconds >= 0.005
    }

    /// Whether the failed builds ran for much of the time the builds that succeeded do not account for.
    private var failuresTookTheTime: Bool {
        !failures.isEmpty && failedSeconds >= 0.005 && failedSeconds >= (wallSeconds - serialSeconds) / 2
    }

    /// Where the wall time goes that no build of the report counts.
    private static let outside = """
        waiting for a build that another warmUp() or a resolve was making, which this report does not count, onBuild \
        observers, hops to the main actor, or a busy machine
        """

    /// `2.5`, one decimal, without Foundation.
    private func format1(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// Thrown by ``DIContainer/warmUp()`` when at least one eager build failed; all the others were built.
public struct StartupError: Error, CustomStringConvertible {
    /// The whole report, ``StartupReport/failures`` included.
    public let report: StartupReport

    /// The failures, then the rest of the report.
    public var description: String {
        "Inject: warm-up failed: " + report.description
    }
}
