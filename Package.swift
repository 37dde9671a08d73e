// swift-tools-version:6.0
import PackageDescription

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
        .target(name: "CInjectShims"),
        .target(name: "Inject", dependencies: ["CInjectShims"]),
        .target(name: "InjectTesting", dependencies: ["Inject"]),
        .executableTarget(name: "InjectDemo", dependencies: ["Inject"]),
        .testTarget(name: "InjectTests", dependencies: ["Inject"]),
    ],
    swiftLanguageModes: [.v6]
)
