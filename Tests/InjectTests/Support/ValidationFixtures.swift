import Foundation
import Inject
import Testing

// Helpers for the validation tests: picking problems out of a report, the `file:line` a registration is reported
// at, a weak side channel, and readers for the two graph renderings, so that tests check nodes and edges rather
// than exact text.

extension ValidationReport {
    /// The problems of one kind, in report order.
    func problems(ofKind kind: ValidationProblem.Kind) -> [ValidationProblem] {
        problems.filter { $0.kind == kind }
    }
}

/// The one problem of `kind` in `report`; records an issue that shows the whole report when there are none or
/// several.
func onlyProblem(
    ofKind kind: ValidationProblem.Kind,
    in report: ValidationReport,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> ValidationProblem {
    let problems = report.problems(ofKind: kind)
    #expect(problems.count == 1, "\(report)", sourceLocation: sourceLocation)
    return try #require(problems.first, "\(report)", sourceLocation: sourceLocation)
}

/// The `file:line` a registration made at `line` of the calling file is reported at.
func registeredAt(_ line: Int, fileID: String = #fileID) -> String {
    "\(fileID):\(line)"
}

/// Sleeps well above validation's 50 ms threshold for a slow factory, so that the check cannot flake.
func sleepLikeASlowFactory() {
    Thread.sleep(forTimeInterval: 0.08)
}

/// Weak references many threads can add to, to see whether instances outlive something.
final class WeakReferences: @unchecked Sendable {
    // @unchecked: `references` is only touched under `lock`.
    private struct Reference {
        weak var object: AnyObject?
    }

    private let lock = NSLock()
    private var references: [Reference] = []

    func append(_ object: AnyObject) {
        lock.withLock { references.append(Reference(object: object)) }
    }

    /// How many references were added.
    var count: Int {
        lock.withLock { references.count }
    }

    /// How many of the referenced objects are still alive.
    var alive: Int {
        lock.withLock { references.filter { $0.object != nil }.count }
    }
}

/// A graph as `dot()` or `mermaid()` drew it, read back: nodes with their labels unescaped (a line break in a label
/// is "\n"), and edges between node identifiers.
struct DrawnGraph {
    struct Node: Equatable {
        let id: String
        let label: String
        /// Drawn as a service nothing is registered for.
        let isMissing: Bool
    }

    struct Edge: Equatable {
        let from: String
        let to: String
        /// Drawn dashed: `[style=dashed]` in DOT, `-.->` in Mermaid.
        let isDashed: Bool
    }

    var header = ""
    var nodes: [Node] = []
    var edges: [Edge] = []
    /// Lines that are neither a node nor an edge nor the frame.
    var otherLines: [String] = []

    /// The one node whose label contains every part, or `nil` when none or several do.
    func node(_ parts: String...) -> Node? {
        let matching = nodes.filter { node in parts.allSatisfy { node.label.contains($0) } }
        return matching.count == 1 ? matching[0] : nil
    }

    /// The label of the node with this identifier.
    func label(of id: String) -> String? {
        nodes.first { $0.id == id }?.label
    }

    /// The edge from one node to another, if it is drawn.
    func edge(from: Node?, to: Node?) -> Edge? {
        guard let from, let to else { return nil }
        return edges.first { $0.from == from.id && $0.to == to.id }
    }

    /// Every edge as "from label -> to label", to compare two drawings of one graph.
    var labelledEdges: Set<String> {
        Set(edges.map { "\(label(of: $0.from) ?? "?\($0.from)") -> \(label(of: $0.to) ?? "?\($0.to)")" })
    }

    /// Whether both ends of every edge are drawn nodes.
    var edgesBetweenKnownNodes: Bool {
        edges.allSatisfy { label(of: $0.from) != nil && label(of: $0.to) != nil }
    }

    /// Reads what ``ValidationReport/dot()`` wrote.
    init(dot text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        header = lines.first ?? ""
        for line in lines.dropFirst() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let range = trimmed.range(of: " -> ") {
                let from = String(trimmed[..<range.lowerBound])
                let rest = trimmed[range.upperBound...]
                let to = String(rest.prefix { $0 != ";" && $0 != " " })
                edges.append(Edge(from: from, to: to, isDashed: rest.contains("style=dashed")))
            } else if let range = trimmed.range(of: " [label=\"") {
                let id = String(trimmed[..<range.lowerBound])
                let (label, attributes) = Self.dotString(trimmed[range.upperBound...])
                nodes.append(Node(id: id, label: label, isMissing: attributes.contains("style=dashed")))
            } else if trimmed != "}" {
                otherLines.append(trimmed)
            }
        }
    }

    /// Reads what ``ValidationReport/mermaid()`` wrote.
    init(mermaid text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        header = lines.first ?? ""
        for line in lines.dropFirst() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let range = trimmed.range(of: " --> ") ?? trimmed.range(of: " -.-> ") {
                let from = String(trimmed[..<range.lowerBound])
                let to = String(trimmed[range.upperBound...])
                edges.append(Edge(from: from, to: to, isDashed: trimmed[range].contains(".")))
            } else if let open = trimmed.range(of: "[\""), let close = trimmed.range(of: "\"]", options: .backwards) {
                let id = String(trimmed[..<open.lowerBound])
                let label = Self.mermaidUnescaped(String(trimmed[open.upperBound..<close.lowerBound]))
                let isMissing = trimmed[close.upperBound...] == ":::missing"
                nodes.append(Node(id: id, label: label, isMissing: isMissing))
            } else {
                otherLines.append(trimmed)
            }
        }
    }

    /// A DOT string body up to its closing quote, unescaped, and what follows the quote.
    private static func dotString(_ text: Substring) -> (String, String) {
        var label = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "\"" {
                return (label, String(text[text.index(after: index)...]))
            }
            if character == "\\", text.index(after: index) < text.endIndex {
                index = text.index(after: index)
                let escaped = text[index]
                label.append(escaped == "n" ? "\n" : escaped)
            } else {
                label.append(character)
            }
            index = text.index(after: index)
        }
        return (label, "")
    }

    private static func mermaidUnescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "<br/>", with: "\n")
            .replacingOccurrences(of: "#quot;", with: "\"")
            .replacingOccurrences(of: "#lt;", with: "<")
            .replacingOccurrences(of: "#gt;", with: ">")
    }
}
