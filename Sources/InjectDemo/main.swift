import Inject

// inject-demo: the composition root of a small notes app, validated, resolved and printed.
// `inject-demo --graph dot|mermaid` prints the dependency graph validation saw instead.

let app = makeAppContainer(NotesApp.container)
app.seal()

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--graph" {
    // Screens resolve from a session, so validate a session: it builds the session's registrations and the app's,
    // async factories included.
    let report = await makeSession(for: "validation", in: app).validationReportAsync()
    switch arguments.dropFirst().first {
    case "dot": print(report.dot(), terminator: "")
    case "mermaid": print(report.mermaid(), terminator: "")
    default: print("usage: inject-demo [--graph dot|mermaid]")
    }
} else {
    try await runStartup(app: app)
    try runDemo(app: app)
}
