import Logging
import ServiceLifecycle
import WeatherCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Speaks systemd's notify protocol (sd_notify(3)): datagrams such as `READY=1`, `STATUS=…`,
/// `STOPPING=1` and `WATCHDOG=1` to `$NOTIFY_SOCKET`. Without `NOTIFY_SOCKET` it does nothing,
/// so the daemon behaves the same outside systemd.
public struct SystemdNotifier: Sendable {
    /// The socket address, a path or (leading `@`) an abstract name; nil outside systemd.
    public let socketPath: String?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    public var isActive: Bool { socketPath != nil }

    /// Sends `fields` (e.g. `["READY=1", "STATUS=serving"]`) as one datagram. Failures are
    /// returned, not thrown: a daemon keeps running when its supervisor cannot be told.
    @discardableResult
    public func notify(_ fields: [String]) -> Bool {
        guard let socketPath else { return false }
        let message = Array(fields.joined(separator: "\n").utf8)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }  // abstract namespace
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (path.first == 0 ? 0 : 1))
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddrPointer in
                message.withUnsafeBytes { bytes in
                    sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), sockaddrPointer, length)
                }
            }
        }
        return sent == message.count
    }

    /// The watchdog interval systemd asked for (`WATCHDOG_USEC`, for this process), if any.
    public static func watchdogInterval(environment: [String: String] = ProcessInfo.processInfo.environment) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 else { return nil }
        if let pid = environment["WATCHDOG_PID"], pid != String(getpid()) { return nil }
        return .microseconds(Int64(usec))
    }
}
