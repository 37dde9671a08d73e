// swift-tools-version:6.1
// Instruction counts of Inject's hot paths, under valgrind's callgrind: stable where wall-clock times on a shared
// machine are not. `INJECT_PATH` picks the Inject checkout to measure (default: this repository), so that two
// commits can be compared with the same harness. See Scripts/instructions.sh.
import Foundation
import PackageDescription

let injectPath = ProcessInfo.processInfo.environment["INJECT_PATH"] ?? "../.."

let package = Package(
    name: "InstructionCounts",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(name: "Inject", path: injectPath)],
    targets: [
        .executableTarget(
            name: "InstructionCounts",
            dependencies: [.product(name: "Inject", package: "Inject")]
        )
    ],
    swiftLanguageModes: [.v6]
)
