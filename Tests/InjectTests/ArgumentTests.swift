import Inject
import InjectTestSupport
import Testing

private struct NoteID: Hashable, Sendable {
    let raw: Int
}

private struct UserID: Hashable, Sendable {
    let raw: String
}

/// A service built from a runtime argument.
private final class NoteEditor: Sendable {
    let noteID: NoteID
    let widget: Widget

    init(noteID: NoteID, widget: Widget) {
        self.noteID = noteID
        self.widget = widget
    }
}

/// A service built from several runtime arguments, passed as a tuple.
private final class Conversation: Sendable {
    let noteID: NoteID
    let user: UserID
    let title: String

    init(noteID: NoteID, user: UserID, title: String) {
        self.noteID = noteID
        self.user = user
        self.title = title
    }
}

/// A service whose factory resolves an argument registration.
private final class NoteScreen: Sendable {
    let editor: NoteEditor

    init(editor: NoteEditor) {
        self.editor = editor
    }
}

private func makeContainer() -> DIContainer {
    let container = DIContainer()
    container.register(Widget.self) { Widget(serial: 31) }
    container.register(NoteEditor.self) { (r: DIResolver, noteID: NoteID) in
        NoteEditor(noteID: noteID, widget: try r.resolve())
    }
    return container
}

struct ArgumentTests {
    @Test func oneRuntimeArgumentReachesTheFactory() throws {
        let container = makeContainer()

        let editor = container.resolve(NoteEditor.self, argument: NoteID(raw: 7))
        let throwing = try container.resolveThrowing(NoteEditor.self, argument: NoteID(raw: 8))

        #expect(editor.noteID == NoteID(raw: 7))
        #expect(editor.widget.serial == 31)
        #expect(throwing.noteID == NoteID(raw: 8))
    }

    @Test func aTupleCarriesSeveralArguments() {
        let container = DIContainer()
        container.register(Conversation.self) { (_: DIResolver, arguments: (NoteID, UserID, String)) in
            Conversation(noteID: arguments.0, user: arguments.1, title: arguments.2)
        }

        let conversation = container.resolve(
            Conversation.self,
            argument: (NoteID(raw: 1), UserID(raw: "ada"), "Hello")
        )

        #expect(conversation.noteID == NoteID(raw: 1))
        #expect(conversation.user == UserID(raw: "ada"))
        #expect(conversation.title == "Hello")
    }

    @Test func namedArgumentRegistrationsAreToldApart() {
        let container = DIContainer()
        container.register(UserID.self, name: .live) { (_: DIResolver, raw: String) in UserID(raw: "live " + raw) }
        container.register(UserID.self, name: .mock) { (_: DIResolver, raw: String) in UserID(raw: "mock " + raw) }

        #expect(container.resolve(UserID.self, name: .live, argument: "x") == UserID(raw: "live x"))
        #expect(container.resolve(UserID.self, name: .mock, argument: "y") == UserID(raw: "mock y"))
    }

    @Test func anArgumentOfTheWrongTypeNamesTheExpectedAndGivenTypes() throws {
        let container = makeContainer()

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(NoteEditor.self, argument: UserID(raw: "wrong"))
        }

        #expect(error.kind == .argumentMismatch)
        #expect(error.description.contains("NoteEditor"))
        #expect(error.description.contains("NoteID"))
        #expect(error.description.contains("UserID"))
    }

    @Test func anArgumentOfTheWrongTypeInsideAFactoryIsReportedToo() throws {
        let container = makeContainer()
        let line = #line + 1
        container.register(NoteScreen.self) { r in
            NoteScreen(editor: try r.resolve(argument: "not a note id"))
        }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(NoteScreen.self)
        }

        #expect(error.kind == .argumentMismatch)
        #expect(error.description.contains("NoteID"))
        #expect(error.description.contains("String"))
        #expect(error.description.contains("asked by: NoteScreen's factory"))
        #expect(error.registration == "\(#fileID):\(line)", "the registration whose factory passed the argument")
    }

    @Test func resolvingAnArgumentRegistrationWithoutAnArgumentIsAnError() throws {
        let container = makeContainer()

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(NoteEditor.self)
        }

        #expect(error.kind == .argumentMismatch)
        #expect(error.description.contains("NoteEditor"))
        #expect(error.description.contains("NoteID"))
    }

    @Test func theFixForANamedArgumentRegistrationResolvedWithoutAnArgumentKeepsTheName() throws {
        let container = DIContainer()
        container.register(NoteEditor.self, name: "draft") { (_: DIResolver, id: NoteID) in
            NoteEditor(noteID: id, widget: Widget())
        }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(NoteEditor.self, name: "draft")
        }

        #expect(
            error.description.contains("fix: resolve it with resolve(NoteEditor.self, name: \"draft\", argument:)"),
            "\(error)"
        )
    }

    @Test func resolvingARegistrationWithoutArgumentsWithAnArgumentIsAnError() throws {
        let container = makeContainer()

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(Widget.self, argument: UserID(raw: "unexpected"))
        }

        #expect(error.kind == .argumentMismatch)
        #expect(error.description.contains("Widget"))
        #expect(error.description.contains("UserID"))
    }

    @Test func aFactoryPassesAnArgumentThroughTheResolver() {
        let container = makeContainer()
        container.register(NoteScreen.self) { r in
            NoteScreen(editor: try r.resolve(NoteEditor.self, argument: NoteID(raw: 99)))
        }

        #expect(container.resolve(NoteScreen.self).editor.noteID == NoteID(raw: 99))
    }

    @Test func argumentRegistrationsAreTransient() {
        let container = makeContainer()

        let first = container.resolve(NoteEditor.self, argument: NoteID(raw: 1))
        let second = container.resolve(NoteEditor.self, argument: NoteID(raw: 1))

        #expect(first !== second)
    }

    @Test func anArgumentRegistrationMayBeSetToTransientExplicitly() {
        let container = DIContainer()
        container.register(UserID.self) { (_: DIResolver, raw: String) in UserID(raw: raw) }.scope(.transient)

        #expect(container.resolve(UserID.self, argument: "ok") == UserID(raw: "ok"))
    }
}

/// What a ``TreeNode`` is forwarded as.
private protocol Branch: Sendable {}

/// A tree node that resolves its child with the next depth: recursion over argument values, not a cycle.
private final class TreeNode: Branch {
    let depth: Int
    let child: TreeNode?

    init(depth: Int, child: TreeNode?) {
        self.depth = depth
        self.child = child
    }
}

/// A document that takes its appendix, another document of the same registration, in `resolveProperties`.
private final class Document: @unchecked Sendable {
    // @unchecked: `appendix` is set once, by resolveProperties, before the document is handed out.
    let title: String
    var appendix: Document?

    init(title: String) {
        self.title = title
    }
}

/// The same registration asked for again with another argument value, inside its own build: another build, never
/// the instance in progress and never a cycle.
struct ArgumentRecursionTests {
    @Test(arguments: [Scope.transient, .graph, .cached])
    func aFactoryThatResolvesItsOwnRegistrationWithAnotherValueGetsANewInstance(scope: Scope) throws {
        let container = DIContainer()
        container.register(TreeNode.self) { (r: DIResolver, depth: Int) in
            TreeNode(depth: depth, child: depth == 0 ? nil : try r.resolve(argument: depth - 1))
        }
        .scope(scope)
        .validationArgument(3)

        let root = try container.resolveThrowing(TreeNode.self, argument: 3)

        let depths = sequence(first: root, next: \.child).map(\.depth)
        #expect(depths == [3, 2, 1, 0])
        #expect(container.validationReport().untimedProblems.isEmpty, "\(container.validationReport())")
    }

    @Test(arguments: [Scope.transient, .graph, .cached])
    func resolvePropertiesThatAsksForTheSameRegistrationWithAnotherValueGetsThatOne(scope: Scope) throws {
        let container = DIContainer()
        container.register(Document.self) { (_: DIResolver, title: String) in Document(title: title) }
            .scope(scope)
            .resolveProperties { r, document in
                if document.title == "main" {
                    document.appendix = try r.resolve(argument: "appendix")
                }
            }
            .validationArgument("main")

        let main = try container.resolveThrowing(Document.self, argument: "main")

        #expect(main.appendix?.title == "appendix")
        #expect(main.appendix !== main)
        #expect(container.validationReport().untimedProblems.isEmpty, "\(container.validationReport())")
    }

    @Test func theSameValueInsideItsOwnBuildIsStillACycle() throws {
        let container = DIContainer()
        container.register(TreeNode.self) { (r: DIResolver, depth: Int) in
            TreeNode(depth: depth, child: try r.resolve(argument: depth))
        }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(TreeNode.self, argument: 1)
        }

        #expect(error.kind == .cycle, "\(error)")
    }

    @Test func aRecursionOverArgumentValuesThroughAnImplementsForwardIsNotACycle() throws {
        let container = DIContainer()
        container.register(TreeNode.self) { (r: DIResolver, depth: Int) in
            let child: TreeNode? = depth == 0 ? nil : try r.resolve(Branch.self, argument: depth - 1) as? TreeNode
            return TreeNode(depth: depth, child: child)
        }
        .implements(Branch.self)

        let root = try #require(try container.resolveThrowing(Branch.self, argument: 2) as? TreeNode)

        #expect(sequence(first: root, next: \.child).map(\.depth) == [2, 1, 0])
    }

    @Test func anAsyncResolveOfARecursiveArgumentRegistrationGetsEveryLevel() async throws {
        let container = DIContainer()
        container.register(TreeNode.self) { (r: DIResolver, depth: Int) in
            TreeNode(depth: depth, child: depth == 0 ? nil : try r.resolve(argument: depth - 1))
        }
        .scope(.cached)

        let root = try await container.resolveAsync(TreeNode.self, argument: 2)

        #expect(sequence(first: root, next: \.child).map(\.depth) == [2, 1, 0])
    }
}
