/// One instance built: what ``DIContainer/onBuild(_:)`` observers and ``StartupReport`` see. A cached read is never
/// an event.
public struct BuildEvent: Sendable, CustomStringConvertible {
    /// The service built, with its name, as errors print it: `APIClient`, or `Store["live"]`.
    public let service: String
    /// The scope it was built in.
    public let scope: Scope
    /// How long its factory and `resolveProperties` took on their own, in seconds: the services it asked for, and
    /// the time it waited for other threads or tasks to build them, are not counted.
    public let seconds: Double
    /// The resolution path that asked for it, outermost first, ending with ``service``.
    public let path: [String]

    /// An event of these figures. `package` access: builds make the events, and tests make their own.
    package init(service: String, scope: Scope, seconds: Double, path: [String]) {
        self.service = service
        self.scope = scope
        self.seconds = seconds
        self.path = path
    }

    /// `Database (.singleton) 12.3 ms`, with the path when something asked for it.
    public var description: String {
        let via = path.count > 1 ? " via \(path.dropLast().joined(separator: " -> "))" : ""
        return "\(service) (\(scope)) \(Describe.milliseconds(seconds))\(via)"
    }
}
