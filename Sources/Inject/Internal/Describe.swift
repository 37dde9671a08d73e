/// How types, names and registrations are written in messages, paths and graphs.
enum Describe {
    /// A type as it is written in code, without its module: `APIClient`, `Box<Int>`.
    ///
    /// The text `String(describing:)` gives for a type, asked of the runtime directly: `String(describing:)` first
    /// looks for `CustomStringConvertible` and two other conformances of the metatype, and each failed lookup
    /// scans every conformance in the process (34,000 instructions per call in an app of 1,000 services).
    static func type(_ type: Any.Type) -> String {
        _typeName(type, qualified: false)
    }

    /// A service: `APIClient`, or `Store["live"]` for a named one. The name is written as a Swift string literal, so
    /// that a quote or a line break in it cannot be taken for the end of the name or of the line.
    static func service(_ type: Any.Type, _ name: DIContainer.Name?) -> String {
        guard let name else { return Self.type(type) }
        return "\(Self.type(type))[\(name.rawValue.debugDescription)]"
    }

    /// A service with its name spelled out, for sentences: `Store named "live"`.
    static func request(_ type: Any.Type, _ name: DIContainer.Name?) -> String {
        guard let name else { return Self.type(type) }
        return "\(Self.type(type)) named \(name.rawValue.debugDescription)"
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

    /// Whether two names differ by one or two letters (added, removed or changed), and are long enough for that to
    /// look like a slip: `paypall` for `paypal`, `ProductCatalogue` for `ProductCatalog`.
    static func isNearMiss(_ typed: String, _ meant: String) -> Bool {
        let a = Array(typed)
        let b = Array(meant)
        guard a != b, min(a.count, b.count) >= 4, abs(a.count - b.count) <= 2 else { return false }
        // Levenshtein distance, one row at a time.
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                let change = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, change)
            }
            previous = current
        }
        return previous[b.count] <= 2
    }

    /// Words so common in service names that sharing one says nothing about two types being related.
    static let commonWords: Set<String> = [
        "Service", "Manager", "Client", "Provider", "Protocol", "Impl", "Live", "Default", "Real", "Mock", "Fake",
        "Stub", "Type", "Interface", "Handler", "Controller", "Repository", "Store", "Factory", "Coordinator",
        "Model", "View",
    ]

    /// The words of a type's name, for matching names: `LiveAPIClient` gives `Live`, `API`, `Client`. Words of
    /// fewer than three letters, and the generic arguments, are left out.
    static func words(_ name: String) -> Set<String> {
        var words: Set<String> = []
        var current = ""
        let characters = Array(name.prefix { $0 != "<" })
        for (index, character) in characters.enumerated() {
            let startsWord =
                character.isUppercase
                && (current.last?.isLowercase == true
                    || (index + 1 < characters.count && characters[index + 1].isLowercase && current.count > 1))
            if !character.isLetter || startsWord {
                if current.count >= 3 { words.insert(current) }
                current = character.isLetter ? String(character) : ""
            } else {
                current.append(character)
            }
        }
        if current.count >= 3 { words.insert(current) }
        return words
    }
}
