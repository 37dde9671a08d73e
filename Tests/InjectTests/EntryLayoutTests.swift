import Inject
import Testing

/// A registration keeps its options in cells inline in its entry, found where the entry's stored properties begin.
/// If the compiler ever laid the entry out otherwise, every option would read the wrong memory: this is the check.
struct EntryLayoutTests {
    final class Service {}
    struct Large { var a = 0, b = 0, c = 0, d = 0, e = "" }

    @Test func cellsAreWhereTheEntryStoresThemForEveryKindOfService() {
        #expect(DIContainer.entryCellsAreInline(for: Service.self) { Service() })
        #expect(DIContainer.entryCellsAreInline(for: Large.self) { Large() })
        #expect(DIContainer.entryCellsAreInline(for: Int.self) { 1 })
        #expect(DIContainer.entryCellsAreInline(for: (any Sendable).self) { 1 })
    }
}
