import Inject
import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension OverrideLayer {
    /// Says, once a `withOverrides` call's layer has ended, which of its overrides no resolve reached while a
    /// resolve through a container outside its target asked for that service: a warning on the Swift Testing test
    /// that ran it, or a line on standard error elsewhere (XCTest). Only for `withOverrides`, which wraps the code
    /// it means to reach; the `.overrides` trait and `pushOverrides` set overrides for many tests at once.
    func reportMisses() {
        for miss in missedOverrides {
            #if compiler(>=6.3)
            // Issue severities came with Swift Testing 6.3: a warning leaves the test passing.
            if Test.current != nil {
                let location = SourceLocation(fileID: miss.fileID, filePath: miss.fileID, line: miss.line, column: 1)
                Issue.record(Comment(rawValue: "Inject: \(miss.message)"), severity: .warning, sourceLocation: location)
                continue
            }
            #endif
            var bytes = Array("Inject: warning: \(miss.message)\n".utf8)
            _ = write(2, &bytes, bytes.count)
        }
    }
}
