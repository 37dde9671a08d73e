import Foundation
import Inject
import InjectTestSupport
import Testing

// One instance per argument value: an argument registration with a caching scope and a Hashable argument.

/// An editor for one note, told apart by identity.
private final class NoteEditor: Sendable {
    let noteID: Int

    init(noteID: Int) {
        self.noteID = noteID
    }
}

/// A `Hashable` argument made of several values: what a tuple argument becomes when it must be cached.
private struct Page: Hashable, Sendable {
    let book: String
    let number: Int
}

/// An argument whose values all hash alike: they can be told apart only by equality.
private struct Colliding: Hashable, Sendable {
    let id: Int

    func hash(into hasher: inout Hasher) {
        hasher.combine(0)
    }
}

private final class PageView: Sendable {
    let page: Page

    init(page: Page) {
        self.page = page
    }
}

/// A `Hashable` class argument, with a subclass: a subclass instance is the base class's value.
private class Document: Hashable, @unchecked Sendable {
    // @unchecked: `id` is a `let`; the subclass adds nothing.
    let id: String

    init(id: String) {
        self.id = id
    }

    static func == (lhs: Document, rhs: Document) -> Bool {
        lhs.id == rhs.id
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(id)
    }
}

private final class TextDocument: Document, @unchecked Sendable {}

private final class DocumentView: Sendable {
    let document: Document

    init(document: Document) {
        self.document = document
    }
}

struct ArgumentCachingTests {
    @Test(arguments: [Scope.singleton, .cached, .session, .weak])
    func aCachingScopeGivesOneInstancePerArgumentValue(scope: Scope) {
        let container = DIContainer()
        container.register(NoteEditor.self) { (_: DIResolver, id: Int) in NoteEditor(noteID: id) }.scope(scope)

        let first = container.resolve(NoteEditor.self, argument: 42)
        let again = container.resolve(NoteEditor.self, argument: 42)
        let other = container.resolve(NoteEditor.self, argument: 7)

        #expect(first === again)
        #expect(first !== other)
        #expect(first.noteID == 42)
        #expect(other.noteID == 7)
    }

    @Test func aStructArgumentIsKeyedByItsValue() {
        let container = DIContainer()
        container.register(PageView.self) { (_: DIResolver, page: Page) in PageView(page: page) }.scope(.singleton)

        let first = container.resolve(PageView.self, argument: Page(book: "Emma", number: 3))
        let again = container.resolve(PageView.self, argument: Page(book: "Emma", number: 3))
        let other = container.resolve(PageView.self, argument: Page(book: "Emma", number: 4))

        #expect(first === again)
        #expect(first !== other)
    }

    @Test func aThousandValuesKeepTheirOwnSingletonWhileThePublishedTableGrows() {
        let container = DIContainer()
        container.register(NoteEditor.self) { (_: DIResolver, id: Int) in NoteEditor(noteID: id) }.scope(.singleton)

        let first = (0..<1000).map { container.resolve(NoteEditor.self, argument: $0) }
        let again = (0..<1000).reversed().map { container.resolve(NoteEditor.self, argument: $0) }.reversed()

        #expect(zip(first, again).allSatisfy { $0 === $1 })
        #expect(first.map(\.noteID) == Array(0..<1000))
        #expect(Set(first.map(ObjectIdentifier.init)).count == 1000)
    }

    @Test func valuesWhoseHashesCollideAreToldApartByEquality() {
        let container = DIContainer()
        container.register(NoteEditor.self) { (_: DIResolver, value: Colliding) in NoteEditor(noteID: value.id) }
            .scope(.singleton)

        let first = (0..<50).map { container.resolve(NoteEditor.self, argument: Colliding(id: $0)) }
        let again = (0..<50).map { container.resolve(NoteEditor.self, argument: Colliding(id: $0)) }

        #expect(zip(first, again).allSatisfy { $0 === $1 })
        #expect(first.map(\.noteID) == Array(0..<50))
    }

    @Test func readersSeeOneInstancePerValueWhileOtherThreadsPublishNewValues() {
        let container = DIContainer()
        let builds = Collector<Int>()
        container.register(NoteEditor.self) { (_: DIResolver, id: Int) in
            builds.append(id)
            return NoteEditor(noteID: id)
        }
        .scope(.singleton)
        let instances = Collector<(Int, ObjectIdentifier)>()

        finishes("8 threads resolving 400 values each, in different orders, while the table grows") {
            onThreadsAtOnce(8) { index in
                // Each thread walks the values from its own starting point, so that some publish while others read.
                for step in 0..<400 {
                    let id = (step + index * 50) % 400
                    let editor = container.resolve(NoteEditor.self, argument: id)
                    instances.append((id, ObjectIdentifier(editor)))
                }
            }
        }

        #expect(builds.values.sorted() == Array(0..<400), "one build per value")
        let byValue = Dictionary(grouping: instances.values, by: \.0).mapValues { Set($0.map(\.1)) }
        #expect(byValue.count == 400)
        #expect(byValue.values.allSatisfy { $0.count == 1 }, "every reader got the one instance of each value")
    }

    @Test func transientStillBuildsOnEveryResolve() {
        let container = DIContainer()
        container.register(NoteEditor.self) { (_: DIResolver, id: Int) in NoteEditor(noteID: id) }

        #expect(container.resolve(NoteEditor.self, argument: 1) !== container.resolve(NoteEditor.self, argument: 1))
    }

    @Test func scopedKeepsOneInstancePerContainerAndValue() {
        let root = DIContainer()
        root.register(NoteEditor.self) { (_: DIResolver, id: Int) in NoteEditor(noteID: id) }.scope(.scoped)
        let a = root.makeChild()
        let b = root.makeChild()

        #expect(a.resolve(NoteEditor.self, argument: 1) === a.resolve(NoteEditor.self, argument: 1))
        #expect(a.resolve(NoteEditor.self, argument: 1) !== b.resolve(NoteEditor.self, argument: 1))
    }

    @Test func graphSharesOneInstancePerValueWithinOneResolve() {
        let container = DIContainer()
        container.register(NoteEditor.self) { (_: DIResolver, id: Int) in NoteEditor(noteID: id) }.scope(.graph)
        container.register([NoteEditor].self) { r in
            [try r.resolve(argument: 1), try r.resolve(argument: 1), try r.resolve(argument: 2)]
        }

        let editors = container.resolve([NoteEditor].self)
        let later = container.resolve([NoteEditor].self)

        #expect(editors[0] === editors[1])
        #expect(editors[0] !== editors[2])
        #expect(editors[0] !== later[0], "a new top-level resolve builds anew")
    }

    @Test func resetDropsEveryValuesInstance() {
        let container = DIContainer()
        let released = Collector<Int>()
        container.register(NoteEditor.self) { (_: DIResolver, id: Int) in NoteEditor(noteID: id) }
            .scope(.cached)
            .onRelease { released.append($0.noteID) }
        let first = container.resolve(NoteEditor.self, argument: 1)
        _ = container.resolve(NoteEditor.self, argument: 2)

        container.reset(.cached)

        #expect(container.resolve(NoteEditor.self, argument: 1) !== first)
        #expect(released.values.sorted() == [1, 2])
        container.reset(NoteEditor.self)
        #expect(released.values.sorted() == [1, 1, 2])
    }

    @Test func eachValueIsBuiltExactlyOnceUnderContention() {
        let container = DIContainer()
        let builds = Collector<Int>()
        let everyoneAsking = Arrivals(expected: 16)
        container.register(NoteEditor.self) { (_: DIResolver, id: Int) in
            builds.append(id)
            _ = everyoneAsking.waitForEveryone(within: 0.2)  // hold the build while the others ask
            return NoteEditor(noteID: id)
        }
        .scope(.singleton)
        let instances = Collector<(Int, ObjectIdentifier)>()

        finishes("16 threads asking for two argument values at once") {
            onThreadsAtOnce(16) { index in
                let id = index % 2
                everyoneAsking.arrive()
                instances.append((id, ObjectIdentifier(container.resolve(NoteEditor.self, argument: id))))
            }
        }

        #expect(builds.values.sorted() == [0, 1], "one build per value: \(builds.values)")
        for id in [0, 1] {
            #expect(Set(instances.values.filter { $0.0 == id }.map(\.1)).count == 1, "value \(id): one instance")
        }
    }

    @Test func validationBuildsItWithItsSample() throws {
        let container = DIContainer()
        let built = Collector<Int>()
        container.register(NoteEditor.self) { (_: DIResolver, id: Int) in
            built.append(id)
            return NoteEditor(noteID: id)
        }
        .scope(.singleton)
        .validationArgument(99)

        let report = container.validationReport()

        #expect(report.untimedProblems.isEmpty, "\(report)")
        #expect(built.values == [99])
        _ = container.resolve(NoteEditor.self, argument: 99)
        #expect(built.values == [99, 99], "the instance validation built did not survive it")
    }

    @Test func aWrongArgumentTypeIsStillAnErrorNamingBothTypes() throws {
        let container = DIContainer()
        container.register(NoteEditor.self) { (_: DIResolver, id: Int) in NoteEditor(noteID: id) }.scope(.singleton)

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(NoteEditor.self, argument: "42")
        }

        #expect(error.kind == .argumentMismatch)
        #expect(error.description.contains("Int"))
        #expect(error.description.contains("String"))
    }

    @Test(arguments: [Scope.singleton, .cached, .session, .weak, .scoped, .graph])
    func aWrongArgumentTypeThroughResolveAsyncIsAnErrorAfterAValueWasCached(scope: Scope) async throws {
        let container = DIContainer()
        container.register(NoteEditor.self) { (_: DIResolver, id: Int) in NoteEditor(noteID: id) }.scope(scope)
        let child = container.makeChild()
        let cached = child.resolve(NoteEditor.self, argument: 42)

        for wrong in ["42", PageView(page: Page(book: "x", number: 1)), 42.0] as [any Sendable] {
            let error = try await #require(throws: ResolutionError.self) {
                try await child.resolveAsync(NoteEditor.self, argument: wrong)
            }
            #expect(error.kind == .argumentMismatch, "\(error)")
            #expect(error.description.contains("Int"), "\(error)")
        }
        let again = try await child.resolveAsync(NoteEditor.self, argument: 42)
        #expect(again.noteID == 42)
        if scope != .graph {
            #expect(again === cached)
        }
    }

    @Test(arguments: [Scope.singleton, .cached, .session, .weak, .scoped])
    func anArgumentThatConvertsToTheRegisteredTypeIsCachedUnderTheValueItConvertsTo(scope: Scope) async throws {
        let container = DIContainer()
        let built = Collector<Int>()
        container.register(NoteEditor.self) { (_: DIResolver, id: Int) in
            built.append(id)
            return NoteEditor(noteID: id)
        }
        .scope(scope)
        let optional: Int? = 3

        let plain = container.resolve(NoteEditor.self, argument: 3)
        let wrapped = container.resolve(NoteEditor.self, argument: optional)
        let wrappedAgain = container.resolve(NoteEditor.self, argument: optional)
        let wrappedAsync = try await container.resolveAsync(NoteEditor.self, argument: optional)

        #expect(wrapped === plain, "an Int? holding 3 is the value 3")
        #expect(wrappedAgain === plain)
        #expect(wrappedAsync === plain)
        #expect(built.values == [3], "built once, for the value 3")
    }

    @Test func aSubclassArgumentSharesTheInstanceOfTheValueItIs() {
        let container = DIContainer()
        let built = Counter()
        container.register(DocumentView.self) { (_: DIResolver, document: Document) in
            built.increment()
            return DocumentView(document: document)
        }
        .scope(.singleton)
        let text = TextDocument(id: "n1")

        let first = container.resolve(DocumentView.self, argument: text)
        let again = container.resolve(DocumentView.self, argument: text)
        let asBase = container.resolve(DocumentView.self, argument: text as Document)

        #expect(first === again)
        #expect(first === asBase)
        #expect(built.value == 1)
    }

    @Test func anAnyHashableParameterKeysByTheValuePassed() {
        let container = DIContainer()
        let built = Counter()
        container.register(Widget.self) { (_: DIResolver, key: AnyHashable) in
            built.increment()
            return Widget(serial: key.hashValue)
        }
        .scope(.cached)

        let first = container.resolve(Widget.self, argument: "k")
        let again = container.resolve(Widget.self, argument: "k")
        let other = container.resolve(Widget.self, argument: 7)

        #expect(first === again)
        #expect(first !== other)
        #expect(built.value == 2)
    }

    @Test func anOptionalHoldingNilIsStillAWrongArgument() throws {
        let container = DIContainer()
        container.register(NoteEditor.self) { (_: DIResolver, id: Int) in NoteEditor(noteID: id) }.scope(.singleton)
        let missing: Int? = nil

        let error = try #require(throws: ResolutionError.self) {
            try container.resolveThrowing(NoteEditor.self, argument: missing)
        }

        #expect(error.kind == .argumentMismatch)
        #expect(error.description.contains("Optional<Int>"), "\(error)")
    }

    @Test func validateAsyncReportsAWrongArgumentTypeThatAnAsyncFactoryPasses() async {
        let container = DIContainer()
        container.register(NoteEditor.self) { (_: DIResolver, id: Int) in NoteEditor(noteID: id) }
            .scope(.singleton)
            .validationArgument(1)
        container.register(PageView.self) { (r: DIResolver) async throws in
            let editor = try await r.resolveAsync(NoteEditor.self, argument: "one")
            return PageView(page: Page(book: "\(editor.noteID)", number: 1))
        }

        let report = await container.validationReportAsync()

        #expect(report.errors.count == 1, "\(report)")
        #expect(report.errors.first?.message.contains("String") == true, "\(report)")
    }

    @Test func aTupleArgumentCannotBeCachedAndSaysWhy() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = DIContainer()
            container.register(Widget.self) { (_: DIResolver, pair: (Int, Int)) in Widget(serial: pair.0) }
                .scope(.singleton)
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("which is not Hashable"), "\(stderr)")
        #expect(stderr.contains("make (Int, Int) Hashable (a struct instead of the tuple"), "\(stderr)")
    }

    @Test func aStructArgumentThatIsNotHashableIsToldToConformNotToBecomeAStruct() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            struct Query { let text: String }
            let container = DIContainer()
            container.register(Widget.self) { (_: DIResolver, query: Query) in Widget(serial: query.text.count) }
                .scope(.singleton)
        }

        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("make Query Hashable (conform to Hashable)"), "\(stderr)")
        #expect(!stderr.contains("tuple"), "\(stderr)")
    }
}
