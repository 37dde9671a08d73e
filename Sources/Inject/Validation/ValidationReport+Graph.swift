extension ValidationReport {
    /// The dependency graph validation saw, as a Graphviz digraph.
    ///
    /// Each registration is a box labelled with its type, name and scope; an edge goes from a registration to each
    /// service its factory (or `resolveProperties`, or an `@Injected` property initialised during the build) asked
    /// for, dotted when a `@LazyInjected` or `@WeakInjected` property asks on first read. An object built by
    /// `validate(building:)` is a box labelled with its type. A service nothing is registered for is a dashed red box.
    /// Render it with `dot -Tsvg graph.dot > graph.svg`.
    public func dot() -> String {
        var lines = [
            "digraph Inject {",
            "  rankdir=LR;",
            "  node [shape=box, fontname=\"Helvetica\"];",
        ]
        for (index, node) in graph.nodes.enumerated() {
            if let scope = node.scope {
                lines.append("  n\(index) [label=\"\(Self.dotEscaped(node.service))\\n\(Self.dotEscaped(scope))\"];")
            } else {
                lines.append(
                    "  n\(index) [label=\"missing: \(Self.dotEscaped(node.service))\", style=dashed, color=red];"
                )
            }
        }
        for edge in graph.edges {
            let style =
                graph.nodes[edge.to].isMissing ? " [style=dashed, color=red]" : edge.isLazy ? " [style=dotted]" : ""
            lines.append("  n\(edge.from) -> n\(edge.to)\(style);")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The dependency graph validation saw, as a Mermaid flowchart (GitHub renders it in Markdown).
    ///
    /// The same nodes and edges as ``dot()``; a missing service, the edges to it and lazy edges are drawn dashed.
    public func mermaid() -> String {
        var lines = ["flowchart LR"]
        for (index, node) in graph.nodes.enumerated() {
            if let scope = node.scope {
                lines.append("  n\(index)[\"\(Self.mermaidEscaped(node.service))<br/>\(Self.mermaidEscaped(scope))\"]")
            } else {
                lines.append("  n\(index)[\"missing: \(Self.mermaidEscaped(node.service))\"]:::missing")
            }
        }
        for edge in graph.edges {
            let arrow = graph.nodes[edge.to].isMissing || edge.isLazy ? "-.->" : "-->"
            lines.append("  n\(edge.from) \(arrow) n\(edge.to)")
        }
        if graph.nodes.contains(where: \.isMissing) {
            lines.append("  classDef missing stroke:#d33,stroke-dasharray:5 5")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func dotEscaped(_ text: String) -> String {
        escaped(text, ["\\": "\\\\", "\"": "\\\"", "\n": "\\n"])
    }

    private static func mermaidEscaped(_ text: String) -> String {
        escaped(text, ["#": "#35;", "\"": "#quot;", "<": "#lt;", ">": "#gt;", "\n": "<br/>"])
    }

    /// `text` with each character that has a replacement in `replacements` replaced.
    private static func escaped(_ text: String, _ replacements: [Character: String]) -> String {
        var escaped = ""
        for character in text {
            if let replacement = replacements[character] {
                escaped += replacement
            } else {
                escaped.append(character)
            }
        }
        return escaped
    }
}
