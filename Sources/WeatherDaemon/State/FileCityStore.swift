import Foundation
import Logging
import WeatherCore

#if canImport(Glibc)
import Glibc
#endif

/// Keeps the `cities.add`/`cities.remove` changes in `<state.directory>/cities.json`.
///
/// Each save writes a new file beside the old one, flushes it to disk, renames it over the old one
/// and flushes the directory, so a crash (even SIGKILL or power loss) leaves either the old or the
/// new list, never a torn one.
public struct FileCityStore: CityStore {
    public let directory: String
    private let logger: Logger
    /// The wall-clock time that names a corrupt file moved aside.
    private let now: @Sendable () -> Date

    public init(directory: String, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) {
        self.directory = directory
        self.logger = logger
        self.now = now
    }

    public var path: String { directory + "/cities.json" }
    /// Where a save writes before it renames over `path`.
    var temporaryPath: String { path + ".tmp" }

    public func load() throws -> CityChanges {
        // A save that a crash interrupted before its rename: the list in `path` is the last complete one.
        if unlink(temporaryPath) == 0 {
            logger.notice("removed \(temporaryPath), left by a save that did not finish; \(path) holds the last complete list")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                throw StoreError(message: "cannot read \(path)")
            }
            return CityChanges()
        }
        guard let json = try? JSONValue.parse(data), let changes = CityChanges(json: json) else {
            // Keep the unreadable file for the operator and go on with the configured cities.
            let aside = freeAsideName()
            rename(path, aside)
            logger.error("\(path) is not a city list; moved it to \(aside) and starting from the configured cities")
            return CityChanges()
        }
        return changes
    }

    /// `cities.json.corrupt-UNIXTIME`, or with `.2`, `.3`… after it when a file of that second is
    /// already there (weatherd is the only writer of its state directory).
    private func freeAsideName() -> String {
        let base = path + ".corrupt-\(Int(now().timeIntervalSince1970))"
        var name = base
        var n = 1
        while access(name, F_OK) == 0 {
            n += 1
            name = base + ".\(n)"
        }
        return name
    }

    public func save(_ changes: CityChanges) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let temporary = temporaryPath
        let bytes = Array((changes.json.serialized + "\n").utf8)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StoreError.errno("cannot create \(temporary)") }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                let error = StoreError.errno("cannot write \(temporary)")
                close(fd)
                throw error
            }
            written += n
        }
        guard fsync(fd) == 0 else {
            let error = StoreError.errno("cannot flush \(temporary)")
            close(fd)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else { throw StoreError.errno("cannot replace \(path)") }
        let dir = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            fsync(dir)
            close(dir)
        }
    }
}

/// The city list could not be read or stored.
public struct StoreError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }

    static func errno(_ what: String) -> StoreError {
        StoreError(message: "\(what): \(String(cString: strerror(Glibc.errno)))")
    }
}
