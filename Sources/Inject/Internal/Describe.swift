import CInjectShims

/// How types, names and registrations are written in messages, paths and graphs.
enum Describe {
    /// How a lazy wrapper breaks a cycle, as a cycle's fix says it: both sides caching, so that the lazy read, a
    /// resolution of its own, finds the instances of the cycle; and how to declare it in a `Sendable` class.
    static let lazyCycleFix = """
        let one side hold the other with @LazyInjected, read after both are built, and give both sides a caching \
        scope such as .singleton (a lazy read is a resolution of its own, which would build another of a .graph \
        service; in a Sendable class, declare it let other = LazyInjected<Other>() and read other.wrappedValue)
        """

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

    /// The element types of `tuple`, the type `(repeat each Parameter)` of a parameter pack of `count` types: the
    /// pack's one type when `count` is 1 (a one-element tuple is its element), else the elements read from the
    /// tuple's metadata, whose layout is part of Swift's stable ABI (kind 0x301, the count, the labels, then a type
    /// and an offset for each element). Empty when the metadata is not what that says.
    static func elements(of tuple: Any.Type, count: Int) -> [Any.Type] {
        guard count != 1 else { return [tuple] }
        let words = unsafeBitCast(tuple, to: UnsafePointer<UInt>.self)
        guard words[0] == 0x301, words[1] == UInt(count) else { return [] }
        return (0..<count).map { index in
            unsafeBitCast(words[3 + 2 * index], to: Any.Type.self)
        }
    }

    /// Whether `type` conforms to the protocol `existential` (`any NoteStore`), for a hint that names the registered
    /// types that could be forwarded with `implements`: `nil` when that cannot be told, for `Any` and `AnyObject`
    /// (everything, or every class, conforms) and for a constrained existential (`any Bag<Int>`), whose metatype the
    /// runtime casts no type to.
    ///
    /// A dynamic cast of `type` to the existential's metatype, `any NoteStore.Type`, which the runtime makes: Swift
    /// code cannot spell it for a protocol it has as a metatype value. The same cast as `type is any NoteStore.Type`,
    /// so it holds for classes, their subclasses, structs and enums.
    static func conforms(_ type: Any.Type, to existential: Any.Type) -> Bool? {
        let kind = unsafeBitCast(existential, to: UnsafePointer<UInt>.self).pointee
        guard kind == 0x303, existential != Any.self, existential != AnyObject.self else { return nil }
        let metatype = unsafeBitCast(
            c_inject_existential_metatype(unsafeBitCast(existential, to: UnsafeRawPointer.self)),
            to: Any.Type.self
        )
        func isInstance<Metatype>(of _: Metatype.Type) -> Bool { (type as Any) is Metatype }
        return _openExistential(metatype, do: isInstance)
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
    /// fewer than three letters, the generic arguments, and the `any` of a constrained existential, are left out.
    static func words(_ name: String) -> Set<String> {
        var words: Set<String> = []
        var current = ""
        let characters = Array((name.hasPrefix("any ") ? name.dropFirst(4) : Substring(name)).prefix { $0 != "<" })
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
