import Logging
import WeatherCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// One JSON file of weatherd's in `state.directory`, written atomically: each write goes to a new
/// file beside the old one, is flushed to disk, renamed over the old one and the directory flushed,
/// so a crash (even SIGKILL or power loss) leaves either the old or the new contents, never a torn
/// file. A file that cannot be read back is moved aside for the operator, never fatal.
///
/// Its calls block (the flushes wait for the disk): the daemon writes through a
/// ``StateFileWriter``, on a thread pool, never on an event loop or the daemon's executor.
struct StateFile: Sendable {
    let directory: String
    let name: String
    /// The wall-clock time that names a corrupt file moved aside.
    let now: @Sendable () -> Date
    /// Flushes a descriptor to disk: `fsync` (tests make it slow).
    var sync: @Sendable (Int32) -> Int32 = { fsync($0) }

    var path: String { directory + "/" + name }
    /// Where a write goes before it is renamed over `path`.
    var temporaryPath: String { path + ".tmp" }

    /// What `read` found.
    enum Contents<Value> {
        case absent
        case value(Value)
        /// Not JSON, or not what `decode` reads: moved to the path given.
        case setAside(String)
    }

    /// Reads the file and decodes it. A temporary file a crash left before its rename is removed
    /// (`path` holds the last complete contents); a file that is not JSON, or that `decode` does
    /// not read (nil), is moved to `NAME.corrupt-UNIXTIME`.
    /// - Throws: `StoreError` when the file is there but cannot be read.
    func read<Value>(logger: Logger, decode: (JSONValue) -> Value?) throws -> Contents<Value> {
        if unlink(temporaryPath) == 0 {
            logger.notice("removed \(temporaryPath), left by a save that did not finish; \(path) holds the last complete one")
        }
        let data: [UInt8]
        do {
            data = try FileReader.bytes(atPath: path, limit: .max)
        } catch {
            if error == .noSuchFile { return .absent }
            throw StoreError(message: "cannot read \(path): \(error.reason)")
        }
        guard let json = try? JSONValue.parse(data), let value = decode(json) else { return .setAside(setAside()) }
        return .value(value)
    }

    /// Moves the file to `NAME.corrupt-UNIXTIME` (with `.2`, `.3`… after it when a file of that
    /// second is already there; weatherd is the only writer of its state directory) and returns that
    /// path.
    private func setAside() -> String {
        let base = path + ".corrupt-\(Int(now().timeIntervalSince1970))"
        var aside = base
        var n = 1
        while access(aside, F_OK) == 0 {
            n += 1
            aside = base + ".\(n)"
        }
        rename(path, aside)
        return aside
    }

    /// Replaces the file's contents with `json` and a newline, atomically and durably.
    func write(_ json: JSONValue) throws {
        try Self.makeDirectories(directory)
        let temporary = temporaryPath
        let bytes = Array((json.serialized + "\n").utf8)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StoreError.errno("cannot create \(temporary)") }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                let error = StoreError.errno("cannot write \(temporary)")
                close(fd)
                throw error
            }
            written += n
        }
        guard sync(fd) == 0 else {
            let error = StoreError.errno("cannot flush \(temporary)")
            close(fd)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else { throw StoreError.errno("cannot replace \(path)") }
        let dir = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            _ = sync(dir)
            close(dir)
        }
    }
}

extension StateFile {
    /// Makes `path` and the directories above it that are missing (`mkdir -p`, each with the mode
    /// the umask leaves of 0777). With system calls, as the rest of this file: Foundation's
    /// `FileManager` would make its code resident for this one call.
    static func makeDirectories(_ path: String) throws {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, 0o777) != 0 {
                let failure = Glibc.errno
                var info = stat()
                guard failure == EEXIST, stat(prefix, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                    Glibc.errno = failure == EEXIST ? ENOTDIR : failure
                    throw StoreError.errno("cannot create the directory \(prefix)")
                }
            }
            prefix += "/"
        }
    }
}

/// A state file (the city list, the places of names) could not be read or stored.
public struct StoreError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }

    static func errno(_ what: String) -> StoreError {
        StoreError(message: "\(what): \(String(cString: strerror(Glibc.errno)))")
    }
}
