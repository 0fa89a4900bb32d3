import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One datagram a `NotifySocket` received (sd_notify(3): newline-separated `KEY=VALUE` fields).
struct NotifyMessage: Sendable, CustomStringConvertible {
    var fields: [String]
    /// The sender's pid, from the kernel (SO_PASSCRED), as systemd checks it for `NotifyAccess=`.
    var senderPID: Int32?
    /// When it arrived, by the kernel's timestamp (wall clock, to compare with log timestamps).
    var receivedAt: Date
    /// What the socket's `probe` said about this message, when it has one.
    var probe: String?

    func has(_ field: String) -> Bool { fields.contains(field) }

    /// The value of `KEY=` (the first one), e.g. `value(of: "STATUS")`.
    func value(of key: String) -> String? {
        fields.first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    var description: String {
        fields.joined(separator: "\\n") + (senderPID.map { " (from pid \($0))" } ?? "") + (probe.map { " [probe: \($0)]" } ?? "")
    }
}

/// A test-owned `NOTIFY_SOCKET`: an AF_UNIX datagram socket bound to a path (or an abstract name),
/// read on a thread of its own into `messages` as datagrams arrive. The thread stops, the socket is
/// closed and its file removed, when the object goes away.
final class NotifySocket: Sendable {
    /// The value for `NOTIFY_SOCKET`: the path, or `@name` for an abstract socket.
    let address: String
    let messages = Observed<[NotifyMessage]>([])
    /// The write end of a pipe the reading thread polls besides the socket; closing it stops the thread.
    private let wakeWrite: Int32

    /// Binds `path` (a file in a test's temporary directory).
    /// - Parameter probe: runs on the reading thread for each datagram before it is published,
    ///   i.e. while the sender waits for nothing and may go on; its answer is kept in `probe`.
    ///   Used to check what holds at the very moment READY=1 arrives.
    convenience init(path: String, probe: (@Sendable (NotifyMessage) -> String?)? = nil) throws {
        try self.init(address: path, sunPath: Array(path.utf8), removeOnClose: path, probe: probe)
    }

    /// Binds the abstract name `name` (no file; `NOTIFY_SOCKET=@name`).
    convenience init(abstractName name: String, probe: (@Sendable (NotifyMessage) -> String?)? = nil) throws {
        try self.init(address: "@" + name, sunPath: [0] + Array(name.utf8), removeOnClose: nil, probe: probe)
    }

    private init(address: String, sunPath: [UInt8], removeOnClose: String?, probe: (@Sendable (NotifyMessage) -> String?)?) throws {
        self.address = address
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ChildProcessError(message: "socket: \(String(cString: strerror(errno)))") }
        var on: Int32 = 1
        guard setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ChildProcessError(message: "setsockopt(SO_PASSCRED): \(reason)")
        }
        // The kernel's arrival time of each datagram, so that when the reading thread gets to run
        // does not skew the times between messages.
        guard setsockopt(fd, SOL_SOCKET, Self.soTimestamp, &on, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ChildProcessError(message: "setsockopt(SO_TIMESTAMP): \(reason)")
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard sunPath.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw ChildProcessError(message: "notify socket address too long: \(self.address)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: sunPath) }
        // An abstract name is exactly its bytes long; a path ends with its NUL.
        let length = socklen_t(MemoryLayout<sa_family_t>.size + sunPath.count + (sunPath.first == 0 ? 0 : 1))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ChildProcessError(message: "bind \(self.address): \(reason)")
        }
        var wake: [Int32] = [0, 0]
        guard pipe(&wake) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ChildProcessError(message: "pipe: \(reason)")
        }
        for end in wake { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        wakeWrite = wake[1]
        let wakeRead = wake[0]
        let messages = self.messages
        Thread.detachNewThread {
            defer {
                close(fd)
                close(wakeRead)
                if let removeOnClose { unlink(removeOnClose) }
            }
            var pollers = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            while true {
                pollers[0].revents = 0
                pollers[1].revents = 0
                let ready = poll(&pollers, 2, -1)
                if ready < 0 && errno == EINTR { continue }
                guard ready > 0, pollers[1].revents == 0 else { return }  // closed: stop
                guard pollers[0].revents & Int16(POLLIN) != 0 else { continue }
                guard var message = Self.receive(fd) else { continue }
                if let probe { message.probe = probe(message) }
                messages.update { $0.append(message) }
            }
        }
    }

    deinit {
        // A byte (not only the pipe's end: a child spawned meanwhile may hold a copy of it) wakes
        // the reading thread, which stops.
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        close(wakeWrite)
    }

    /// Reads one datagram with its sender's credentials.
    private static func receive(_ fd: Int32) -> NotifyMessage? {
        var data = [UInt8](repeating: 0, count: 4096)
        var control = [UInt64](repeating: 0, count: 16)  // 128 bytes, aligned for cmsghdr
        var controlLength = 0
        let n = data.withUnsafeMutableBytes { dataBytes in
            control.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: dataBytes.baseAddress, iov_len: dataBytes.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var header = msghdr()
                    header.msg_iov = vectorPointer
                    header.msg_iovlen = 1
                    header.msg_control = controlBytes.baseAddress
                    header.msg_controllen = controlBytes.count
                    let n = recvmsg(fd, &header, Int32(MSG_DONTWAIT))
                    controlLength = Int(header.msg_controllen)
                    return n
                }
            }
        }
        guard n >= 0 else { return nil }
        // Control messages, each a cmsghdr {size_t len; int level; int type} (16 bytes on 64-bit
        // Linux) and its data, padded to 8 bytes: struct ucred {pid_t pid; uid_t uid; gid_t gid}
        // for SCM_CREDENTIALS, struct timeval {time_t sec; suseconds_t usec} for SCM_TIMESTAMP.
        var pid: Int32?
        var receivedAt = Date()
        control.withUnsafeBytes { raw in
            let headerSize = MemoryLayout<Int>.size + 2 * MemoryLayout<Int32>.size
            var offset = 0
            while offset + headerSize <= controlLength {
                let length = raw.load(fromByteOffset: offset, as: Int.self)
                guard length >= headerSize, offset + length <= controlLength else { break }
                let level = raw.load(fromByteOffset: offset + MemoryLayout<Int>.size, as: Int32.self)
                let type = raw.load(fromByteOffset: offset + MemoryLayout<Int>.size + 4, as: Int32.self)
                let data = offset + headerSize
                if level == SOL_SOCKET && type == Self.scmCredentials {
                    pid = raw.load(fromByteOffset: data, as: Int32.self)
                } else if level == SOL_SOCKET && type == Self.soTimestamp {
                    let seconds = raw.load(fromByteOffset: data, as: Int.self)
                    let microseconds = raw.load(fromByteOffset: data + MemoryLayout<Int>.size, as: Int.self)
                    receivedAt = Date(timeIntervalSince1970: Double(seconds) + Double(microseconds) / 1_000_000)
                }
                offset += (length + 7) & ~7
            }
        }
        let text = String(decoding: data[..<n], as: UTF8.self)
        return NotifyMessage(
            fields: text.split(separator: "\n").map(String.init), senderPID: pid, receivedAt: receivedAt, probe: nil)
    }

    private static let scmCredentials: Int32 = 2  // SCM_CREDENTIALS
    /// SO_TIMESTAMP (and SCM_TIMESTAMP) on 64-bit Linux, where glibc's macro is not importable.
    private static let soTimestamp: Int32 = 29

    /// The messages so far.
    var received: [NotifyMessage] { messages.value }

    /// Waits for the first message with `field` (e.g. `READY=1`) and returns it.
    @discardableResult
    func waitFor(_ field: String, timeout: Duration = safetyDeadline) async throws -> NotifyMessage {
        try await messages.wait(for: "\(field) on NOTIFY_SOCKET; received so far: \(messages.value)", timeout: timeout) { messages in
            messages.first { $0.has(field) }
        }
    }

    /// Waits until `count` messages have `field`; returns them.
    @discardableResult
    func waitFor(_ count: Int, _ field: String, timeout: Duration = safetyDeadline) async throws -> [NotifyMessage] {
        try await messages.wait(for: "\(count) × \(field) on NOTIFY_SOCKET; received so far: \(messages.value)", timeout: timeout) {
            messages in
            let matching = messages.filter { $0.has(field) }
            return matching.count >= count ? matching : nil
        }
    }
}
