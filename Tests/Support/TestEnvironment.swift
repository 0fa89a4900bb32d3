import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where the built executables and the demo data are, and the environment children get.
enum TestEnvironment {
    /// The directory of `weatherd`, `weatherctl` and `owm-replay`: `$WEATHERD_BIN_DIR` if set, else
    /// the directory of the running test bundle (`.build/debug/` for `swift test`).
    static let binDirectory: String = {
        if let dir = ProcessInfo.processInfo.environment["WEATHERD_BIN_DIR"], !dir.isEmpty {
            return URL(fileURLWithPath: dir).standardizedFileURL.path
        }
        let runner = URL(
            fileURLWithPath: CommandLine.arguments[0], relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        var dir = runner.standardizedFileURL.deletingLastPathComponent()
        // On macOS the runner is inside a bundle: <bin>/X.xctest/Contents/MacOS/X.
        while dir.path != "/" && !FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("weatherd").path) {
            if dir.pathExtension == "xctest" || dir.path.contains(".xctest/") {
                dir = dir.deletingLastPathComponent()
            } else {
                break
            }
        }
        return dir.path
    }()

    static func binary(_ name: String) throws -> String {
        let path = binDirectory + "/" + name
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ChildProcessError(message: "no executable \(path): build the package first (swift build), or set WEATHERD_BIN_DIR")
        }
        return path
    }

    /// The package root, from this file's place in it (Tests/IntegrationTests/Support/).
    static let packageRoot: String = {
        // This file is Tests/Support/TestEnvironment.swift.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }()

    /// The recorded OpenWeatherMap answers owm-replay serves.
    static var demoData: String { packageRoot + "/demo/owm" }

    /// The environment every child starts with: only what a program needs to run. In particular no
    /// OWM_API_KEY, CREDENTIALS_DIRECTORY, JOURNAL_STREAM or WEATHERD_SOCKET unless a test adds them.
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

    func write(_ name: String, _ text: String) throws -> String {
        let file = file(name)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }
}
