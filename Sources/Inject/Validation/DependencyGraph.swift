/// The dependency edges `validate()` saw, ready to draw: one node per registration (and per missing service),
/// one edge per "this factory asked for that".
struct DependencyGraph: Sendable {
    struct Node: Sendable {
        /// The service, as in a path: `APIClient`, or `Store["live"]`.
        let service: String
        /// The scope, as written in code, or `nil` for a missing service.
        let scope: String?

        var isMissing: Bool { scope == nil }
    }

    struct Edge: Sendable {
        let from: Int
        let to: Int
        /// Asked for by a `@LazyInjected` or `@WeakInjected` property on first read, not while the holder was built.
        let isLazy: Bool
    }

    var nodes: [Node] = []
    var edges: [Edge] = []
}
