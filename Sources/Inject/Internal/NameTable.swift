/// Interns registration names to small integers, so keys compare and hash as two machine words.
///
/// A name is interned once, when its ``DIContainer/Name`` is made; `static let` names cost nothing per resolve.
enum NameTable {
    private struct State {
        var ids: [String: Int] = [:]
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
            return id
        }
    }
}
