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

    /// Whether `type` is a protocol (an existential such as `any APIClient`), read from its metadata's kind: the
    /// runtime gives existential type metadata the kinds 0x303 and, for constrained ones, 0x307.
    static func isProtocol(_ type: Any.Type) -> Bool {
        let kind = unsafeBitCast(type, to: UnsafePointer<UInt>.self).pointee
        return kind == 0x303 || kind == 0x307
    }

    /// `12.3 ms`, without Foundation's formatting.
    static func milliseconds(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10_000).rounded())
        return "\(tenths / 10).\(tenths % 10) ms"
    }
}
