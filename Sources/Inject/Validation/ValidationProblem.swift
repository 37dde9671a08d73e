/// One thing ``DIContainer/validate()`` found wrong, with the `file:line` of the registration concerned.
///
/// Its ``description`` reads like a compiler diagnostic, `file:line: severity: message`, where the location is the
/// registration's `#fileID` and line (`Module/File.swift:14`):
///
/// ```text
/// App/Composition.swift:14: error: nothing is registered for Logger.
///   path: Reporter -> Logger
///   asked by: Reporter's factory, registered at App/Composition.swift:14
///   fix: register Logger in this container or one of its parents.
/// ```
public struct ValidationProblem: CustomStringConvertible, Sendable {
    /// How bad a problem is: an error fails ``DIContainer/validate()``; a warning does not.
    public enum Severity: Sendable {
        case warning
        case error
    }

    /// What kind of problem it is.
    public enum Kind: Hashable, Sendable {
        /// A factory asked for a service nothing is registered for.
        case missingRegistration
        /// Registrations whose factories need each other.
        case cycle
        /// A factory or `resolveProperties` closure threw.
        case factoryThrew
        /// A registration that cannot work as written: a sample argument of the wrong type, an `implements` type
        /// the instance does not conform to, runaway recursion, a synchronous read of an async registration that
        /// nothing builds first (under `validateAsync()`) (errors); or that works otherwise than it says: a `.weak`
        /// registration of a value type, which acts as `.transient` (a warning).
        case invalidRegistration
        /// A registration validation could not build: an argument registration without a sample argument, or a
        /// `mainActorFactory` registration when `validate()` runs off the main actor.
        case notBuilt
        /// A long-lived service holds a service whose lifetime ends explicitly (by `reset`, or with a child scope),
        /// so it would keep a stale instance.
        case captiveDependency
        /// A factory took longer than 50 ms on its own.
        case slowFactory
    }

    /// Whether the problem fails validation.
    public let severity: Severity
    /// What kind of problem it is.
    public let kind: Kind
    /// The service the problem is about, as in a ``ResolutionError``'s path: `APIClient`, or `Store["live"]`.
    public let service: String
    /// The `file:line` of the registration concerned.
    public let location: String
    /// The problem in one line, without the location.
    public let message: String
    /// The whole diagnostic: `file:line: severity: message`, then the path, details and a fix, indented.
    public let description: String

    init(severity: Severity, kind: Kind, service: String, location: String, message: String, details: [String]) {
        self.severity = severity
        self.kind = kind
        self.service = service
        self.location = location
        self.message = message
        let label = severity == .error ? "error" : "warning"
        self.description = (["\(location): \(label): \(message)"] + details.map { "  \($0)" }).joined(separator: "\n")
    }
}
