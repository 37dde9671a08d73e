import Foundation
import Inject

// inject-demo: the composition root of a small notes app, validated, resolved and printed.
// `inject-demo --graph dot|mermaid` prints the dependency graph validation saw instead.

let app = makeAppContainer(NotesApp.container)
app.seal()

let usage = "usage: inject-demo [--graph dot|mermaid]"
let arguments = Array(CommandLine.arguments.dropFirst())
switch (arguments.first, arguments.count) {
case (nil, _):
    try await runStartup(app: app)
    try runDemo(app: app)
case ("--graph", 2) where ["dot", "mermaid"].contains(arguments[1]):
    // Screens resolve from a session, so validate a session: it builds the session's registrations and the app's,
    // async factories included.
    let report = await makeSession(for: "validation", in: app).validationReportAsync()
    print(arguments[1] == "dot" ? report.dot() : report.mermaid(), terminator: "")
case ("--help", 1), ("-h", 1):
    print(usage)
default:
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
}
