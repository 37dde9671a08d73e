/// Interns registration names and custom scope names to small integers, so keys compare and hash as two machine
/// words and a scope fits in one atomic cell.
///
/// A name is interned once, when its ``DIContainer/Name`` (or ``Scope``) is made; `static let` names cost nothing per
/// resolve.
enum NameTable {
    private struct State {
        var ids: [String: Int] = [:]
        var strings: [String] = []
    }

    private static let state = Locked(State())

    /// The id of `rawValue`, assigning the next one the first time a string is seen. Ids start at 1; 0 is "no name".
    static func intern(_ rawValue: String) -> Int {
        state.withLock { state in
            if let id = state.ids[rawValue] {
                return id
            }
            let id = state.ids.count + 1
            state.ids[rawValue] = id
            state.strings.append(rawValue)
            return id
        }
    }

    /// The string interned as `id`.
    static func string(for id: Int) -> String {
        state.withLock { $0.strings[id - 1] }
    }
}
