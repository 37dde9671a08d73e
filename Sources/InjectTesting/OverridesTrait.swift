import Inject
import Testing

/// A Swift Testing trait that runs each test with test overrides, made with ``Testing/Trait/overrides(in:_:)``.
///
/// ```swift
/// @Test(.overrides { $0.register(APIClient.self) { MockAPI() } })
/// func loadsTitles() throws { ... }
///
/// @Suite(.overrides { $0.register(Clock.self) { FixedClock() } })
/// struct CheckoutTests { ... }
/// ```
///
/// Each test, and each case of a parameterised test, runs in a fresh layer of overrides, as with
/// ``withOverrides(in:_:operation:)-(_,_,()->R)``: bound to the test's task, so tests running in parallel never see
/// each other's overrides, with fresh caches that are dropped when the test ends. On a suite, the trait applies to
/// every test in it; traits on a test and on its suites stack, the test's winning.
public struct OverridesTrait: TestTrait, SuiteTrait, TestScoping {
    let container: DIContainer
    let overrides: @Sendable (DIContainer) -> Void

    /// Applies to every test in a suite, each in its own layer.
    public var isRecursive: Bool { true }

    /// Provides a scope for each test case, not for suites or whole test functions, so that no two cases share a
    /// layer (and its cached instances).
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> OverridesTrait? {
        testCase == nil ? nil : self
    }

    /// Runs the test case with the overrides active.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        // The layer withOverrides makes, without its report of overrides no resolve reached: a suite's overrides
        // are set for all its tests, and one that builds a container of its own does not mean to use them.
        try await container.overrideLayer(overrides).run(function)
    }
}

extension Trait where Self == OverridesTrait {
    /// Runs the test (or every test of the suite) with test overrides: registrations made in `overrides` win over
    /// `container`'s.
    ///
    /// - Parameters:
    ///   - container: The container to override; ``DIContainer/shared`` by default.
    ///   - overrides: Registers the overrides, on a container of their own that is passed in.
    public static func overrides(
        in container: DIContainer = .shared,
        _ overrides: @escaping @Sendable (DIContainer) -> Void
    ) -> Self {
        OverridesTrait(container: container, overrides: overrides)
    }
}
