#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Sockets passed by systemd socket activation (sd_listen_fds(3)): `LISTEN_FDS` descriptors
/// starting at 3, meant for this process when `LISTEN_PID` is its pid.
public enum ListenFDs {
    /// The first descriptor systemd passes.
    public static let start: Int32 = 3

    /// The inherited descriptors, or an empty array when the process was not socket-activated.
    /// Each gets close-on-exec, as sd_listen_fds does.
    public static func take(environment: [String: String] = ProcessInfo.processInfo.environment) -> [Int32] {
        guard let pid = environment["LISTEN_PID"], pid == String(getpid()),
            let countText = environment["LISTEN_FDS"], let count = Int32(countText), count > 0
        else { return [] }
        let fds = Array(start..<(start + count))
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return fds
    }
}
