#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a whole file with plain `read(2)` calls until end of file.
///
/// Nothing is asked of the file's size, so `/dev/null`, a FIFO, a character device or a file in
/// `/proc` reads like a regular file (a FIFO waits for its writer, as `cat` does). At most ``limit``
/// bytes are read, so that `/dev/zero` or `/dev/urandom` is refused instead of filling the memory.
public enum FileReader {
    /// The most a configuration or key file may hold.
    public static let limit = 1 << 20

    /// Why a file could not be read: `no such file`, `permission denied`, `larger than 1 MiB`, or the
    /// system's reason in lower case (`is a directory`).
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }

        /// The file (or a directory on its path) is not there.
        public static let noSuchFile = Failure(reason: "no such file")
    }

    /// The bytes of the file at `path`.
    public static func bytes(atPath path: String, limit: Int = limit) throws(Failure) -> [UInt8] {
        var fd: Int32
        repeat { fd = open(path, O_RDONLY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw failure(errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(errno)
            }
            if count == 0 { return bytes }
            guard bytes.count + count <= limit else {
                throw Failure(reason: limit % (1 << 20) == 0 ? "larger than \(limit >> 20) MiB" : "larger than \(limit) bytes")
            }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    /// The file at `path` as UTF-8 text; nil when it cannot be read or is not UTF-8.
    public static func text(atPath path: String) -> String? {
        guard let bytes = try? bytes(atPath: path) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func failure(_ code: Int32) -> Failure {
        switch code {
        case ENOENT, ENOTDIR: return .noSuchFile
        case EACCES, EPERM: return Failure(reason: "permission denied")
        default:
            let text = String(cString: strerror(code))
            return Failure(reason: text.prefix(1).lowercased() + text.dropFirst())
        }
    }
}
