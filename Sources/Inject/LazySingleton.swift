/// A value built on first use, exactly once, even when many threads ask at once.
///
/// Use it for an expensive value outside any container, such as a parsed configuration or a database pool:
///
/// ```swift
/// let configuration = LazySingleton { try Configuration.load(from: url) }
/// let timeout = configuration.value.timeout
/// ```
///
/// > Important: `make` runs exactly once, even when many threads ask for the value at once; the others wait for
/// > it, and no lock is held while `make` runs. If `make` throws, nothing is stored: the threads that waited for
/// > that run get its error, and the next caller runs it again. If `make` asks for the same `LazySingleton`, directly or through other
/// > code on its thread, that is a recursion that could never finish: it traps with a message that names where the
/// > `LazySingleton` was made, instead of deadlocking.
public final class LazySingleton<Value>: @unchecked Sendable {
    // @unchecked: the value lives in the slot, behind its lock, and `make` is @Sendable.
    private let make: @Sendable () throws -> Value
    private let slot: InstanceSlot<Value>
    /// Where it was made: every trap about it names this line.
    private let file: StaticString
    private let line: UInt

    /// Makes a lazy singleton; nothing is built until the value is first asked for.
    ///
    /// - Parameters:
    ///   - file: Where it is made, named by every message about it; leave the default.
    ///   - line: The line where it is made; leave the default.
    ///   - make: Builds the value. Runs at most once at a time, with no lock held.
    public init(file: StaticString = #fileID, line: UInt = #line, _ make: @escaping @Sendable () throws -> Value) {
        self.make = make
        self.slot = InstanceSlot(service: LazySingleton<Value>.self, name: nil)
        self.file = file
        self.line = line
    }

    /// How messages name it: `LazySingleton<Config> made at App/Config.swift:12`.
    private var label: String {
        "\(Describe.type(Self.self)) made at \(file):\(line)"
    }

    /// The value, built on first use. Traps with the error's text if `make` throws.
    public var value: Value {
        do {
            return try get()
        } catch {
            fatalError("Inject: \(label): its make threw: \(error)", file: file, line: line)
        }
    }

    /// The value, built on first use.
    ///
    /// - Throws: What `make` throws. The singleton stays unbuilt, so a later call runs `make` again.
    public func get() throws -> Value {
        try slot.lazyInstance(for: label, file: file, line: line, build: make)
    }

    /// Whether the value has been built (and not reset since).
    public var isBuilt: Bool {
        slot.current != nil
    }

    /// Drops the value; the next use builds it again. A build under way finishes for its caller but is not kept.
    public func reset() {
        slot.reset()
    }
}
