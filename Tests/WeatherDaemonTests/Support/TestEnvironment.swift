import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where the package is, and the environment children get.
enum TestEnvironment {
    /// The package root, from this file's place in it (Tests/WeatherDaemonTests/Support/).
    static let packageRoot: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
    }()

    /// The environment every child starts with: only what a program needs to run.
    static func childEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        let inherited = ProcessInfo.processInfo.environment
        var environment: [String: String] = [:]
        for key in ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "LD_LIBRARY_PATH"] {
            if let value = inherited[key] { environment[key] = value }
        }
        environment["PATH"] = environment["PATH"] ?? "/usr/bin:/bin"
        environment.merge(extra) { $1 }
        return environment
    }
}

/// A fresh directory `/tmp/wd-XXXXXX` (short, so socket paths stay far below 108 bytes), removed
/// with everything in it when the object goes away.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        var template = Array("/tmp/wd-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw ChildProcessError(message: "mkdtemp failed: \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func file(_ name: String) -> String { path + "/" + name }
}
