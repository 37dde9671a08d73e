/// How types, names and registrations are written in messages, paths and graphs.
enum Describe {
    /// A type as it is written in code, without its module: `APIClient`, `Box<Int>`.
    static func type(_ type: Any.Type) -> String {
        String(describing: type)
    }

    /// A service: `APIClient`, or `Store["live"]` for a named one.
    static func service(_ type: Any.Type, _ name: DIContainer.Name?) -> String {
        guard let name else { return Self.type(type) }
        return "\(Self.type(type))[\"\(name.rawValue)\"]"
    }

    /// A service with its name spelled out, for sentences: `Store named "live"`.
    static func request(_ type: Any.Type, _ name: DIContainer.Name?) -> String {
        guard let name else { return Self.type(type) }
        return "\(Self.type(type)) named \"\(name.rawValue)\""
    }
}
