extension DIContainer {
    /// A name that tells apart several registrations of the same type.
    ///
    /// Declare names once, as static members, and use them at registration and resolution:
    ///
    /// ```swift
    /// extension DIContainer.Name {
    ///     static let live: Self = "live"
    /// }
    /// container.register(Store.self, name: .live) { LiveStore() }
    /// let store = container.resolve(Store.self, name: .live)
    /// ```
    ///
    /// Names are interned: two names are equal exactly when their raw values are equal, and comparing or hashing
    /// one costs an integer comparison. An interned name is kept for the life of the process, so make names from a
    /// known set (`"plugin-\(index)"` for a handful of plugins); for values without bound, such as user IDs, register
    /// one factory that takes the value as its argument instead.
    public struct Name: Hashable, Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
        /// The string the name was made from.
        public let rawValue: String
        /// The interned id: equal raw values have equal ids.
        let id: Int

        /// Makes a name from a string.
        ///
        /// - Parameter rawValue: The name's text. Names are compared by this text.
        public init(_ rawValue: String) {
            self.rawValue = rawValue
            self.id = NameTable.intern(rawValue)
        }

        /// Makes a name from a string literal, so that `"live"` can stand where a name is expected.
        public init(stringLiteral value: String) {
            self.init(value)
        }

        /// Makes a name from an interpolated string literal: `"plugin-\(index)"`.
        public init(stringInterpolation: DefaultStringInterpolation) {
            self.init(String(stringInterpolation: stringInterpolation))
        }

        /// Whether two names have the same raw value.
        public static func == (lhs: Name, rhs: Name) -> Bool {
            lhs.id == rhs.id
        }

        /// Hashes the name's interned id, which equal raw values share.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(id)
        }

        /// The raw value.
        public var description: String { rawValue }
    }
}
