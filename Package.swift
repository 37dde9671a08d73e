// swift-tools-version:6.2
import PackageDescription

// CI (.ci/run) sets INJECT_WARNINGS_AS_ERRORS=1 so that any warning fails the build. It is opt-in rather than
// always on because SwiftPM suppresses warnings in dependencies, and `-warnings-as-errors` next to
// `-suppress-warnings` breaks the build of every package that depends on Inject.
let warningsAsErrors = Context.environment["INJECT_WARNINGS_AS_ERRORS"] != nil
let swiftSettings: [SwiftSetting] = warningsAsErrors ? [.treatAllWarnings(as: .error)] : []
let cSettings: [CSetting] = warningsAsErrors ? [.treatAllWarnings(as: .error)] : []

let package = Package(
    name: "Inject",
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6)],
    products: [
        .library(name: "Inject", targets: ["Inject"]),
        .library(name: "InjectTesting", targets: ["InjectTesting"]),
        .executable(name: "inject-demo", targets: ["InjectDemo"]),
    ],
    targets: [
        // Atomics and the main-thread test in C: the Swift standard library offers neither before
        // iOS 18 / macOS 15. Internal to Inject; not a product.
        .target(name: "CInjectShims", cSettings: cSettings),
        .target(name: "Inject", dependencies: ["CInjectShims"], swiftSettings: swiftSettings),
        .target(name: "InjectTesting", dependencies: ["Inject"], swiftSettings: swiftSettings),
        .executableTarget(name: "InjectDemo", dependencies: ["Inject"], swiftSettings: swiftSettings),
        // Helpers the test targets share (time-outs that fail instead of hanging, threads released at once).
        .target(
            name: "InjectTestSupport",
            dependencies: ["Inject"],
            path: "Tests/Support",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "InjectTests",
            dependencies: ["Inject", "InjectTesting", "InjectDemo", "InjectTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "InjectTestingTests",
            dependencies: ["InjectTesting", "InjectTestSupport"],
            swiftSettings: swiftSettings
        ),
        // Type-checks every ```swift block of the README and Docs/ against the modules just built.
        .testTarget(
            name: "DocsSnippetsTests",
            dependencies: ["Inject", "InjectTesting"],
            swiftSettings: swiftSettings
        ),
        // A seeded, bounded soak of a churning tree of containers, and small reproducers of what it looks for.
        // INJECT_SOAK_SEED replays a run; INJECT_SOAK_SCALE scales its length (CI: 0.1 under the thread sanitizer).
        .testTarget(
            name: "InjectSoakTests",
            dependencies: ["Inject", "InjectTesting", "InjectTestSupport"],
            swiftSettings: swiftSettings
        ),
        // A client module, as an app would write it: Swift 6 mode, @MainActor view models, Sendable services.
        .testTarget(name: "InjectClientTests", dependencies: ["Inject"], swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)
