import Foundation
import Synchronization

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's real GeoClue (`geoclue-2.0`, 2.6) on a private D-Bus bus of its own: a `dbus-daemon`
/// listening in the test's directory that lets everyone do everything, and GeoClue started by it
/// on demand (D-Bus activation, as on a real system), in a private mount namespace where the
/// test's `geoclue.conf` is bind-mounted over `/etc/geoclue/geoclue.conf`. Its NMEA source reads
/// `nmea` (a ``NMEAFeed``), so its positions are the test's. Its Wi-Fi source's URL is a closed
/// loopback port: nothing leaves the machine. A daemon under test reaches it through
/// ``environment`` (`DBUS_SYSTEM_BUS_ADDRESS`).
final class GeoClueBus: Sendable {
    static let geoclue = "/usr/libexec/geoclue"

    let address: String
    let bus: ChildProcess
    let nmea: NMEAFeed
    private let pidFile: String

    /// What geoclue.conf lets weatherd do.
    struct Permissions: Sendable {
        /// weatherd's desktop id is in `[agent] whitelist=`.
        var agent = true
        /// `[weatherd] allowed=true system=true users=` (nil: no such section).
        var allowed: Bool? = true
    }

    /// Starts the bus (GeoClue starts at the first call to it). `lines` of the NMEA feed are
    /// written to GeoClue once it connects.
    static func start(in directory: TemporaryDirectory, permissions: Permissions = Permissions(), desktopID: String = "weatherd")
        async throws -> GeoClueBus
    {
        let socket = directory.file("system_bus_socket")
        let address = "unix:path=\(socket)"
        let nmea = try NMEAFeed(path: directory.file("nmea.sock"))
        var config = [
            "[agent]", "whitelist=gnome-shell" + (permissions.agent ? ";\(desktopID)" : ""), "",
            "[network-nmea]", "enable=true", "nmea-socket=\(nmea.path)", "",
            "[3g]", "enable=false", "", "[cdma]", "enable=false", "", "[modem-gps]", "enable=false", "",
            "[wifi]", "enable=false", "url=http://127.0.0.1:1/v1/geolocate", "submit-data=false", "", "[compass]", "enable=false", "",
        ]
        if let allowed = permissions.allowed {
            config += ["[\(desktopID)]", "allowed=\(allowed)", "system=true", "users=", ""]
        }
        let geoclueConf = try directory.write("geoclue.conf", config.joined(separator: "\n"))
        let pidFile = directory.file("geoclue.pid")
        // Activated by the bus: the pid recorded, a mount namespace of its own, the test's
        // configuration over Debian's, then GeoClue itself (-t 0: it does not exit when idle).
        let exec =
            "/bin/sh -c 'echo $$ > \(pidFile); exec /usr/bin/unshare -m --propagation private /bin/sh -c "
            + "\"mount --bind \(geoclueConf) /etc/geoclue/geoclue.conf && exec \(geoclue) -t 0\"'"
        try FileManager.default.createDirectory(atPath: directory.file("services"), withIntermediateDirectories: true)
        _ = try directory.write(
            "services/org.freedesktop.GeoClue2.service", "[D-BUS Service]\nName=org.freedesktop.GeoClue2\nExec=\(exec)\n")
        let busConf = try directory.write(
            "bus.conf",
            """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
              <servicedir>\(directory.file("services"))</servicedir>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_type="method_call"/>
                <allow send_type="signal"/>
                <allow send_type="method_return"/>
                <allow send_type="error"/>
                <allow receive_type="method_call"/>
                <allow receive_type="signal"/>
                <allow receive_type="method_return"/>
                <allow receive_type="error"/>
              </policy>
            </busconfig>

            """)
        // GeoClue, started by the bus, finds its "system bus" through the bus's own environment.
        let bus = try await ChildProcess(
            "/usr/bin/dbus-daemon", ["--config-file=\(busConf)", "--nofork", "--print-address"],
            environment: TestEnvironment.childEnvironment(["DBUS_SYSTEM_BUS_ADDRESS": address]), name: "dbus-daemon")
        _ = try await bus.waitForLine(containing: "unix:path=", on: \.stdout)
        return GeoClueBus(address: address, bus: bus, nmea: nmea, pidFile: pidFile)
    }

    private init(address: String, bus: ChildProcess, nmea: NMEAFeed, pidFile: String) {
        self.address = address
        self.bus = bus
        self.nmea = nmea
        self.pidFile = pidFile
    }

    /// The environment that points a client's system bus here.
    var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": address] }

    /// GeoClue's process id, once the bus started it.
    var geocluePID: Int32? {
        (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Kills GeoClue (SIGKILL) and forgets its pid; the bus starts a new one at the next call.
    func killGeoClue() {
        guard let pid = geocluePID else { return }
        try? FileManager.default.removeItem(atPath: pidFile)
        Glibc.kill(pid, SIGKILL)
    }

    /// Stops GeoClue, the bus and the feed.
    func stop() {
        killGeoClue()
        bus.send(SIGKILL)
        nmea.stop()
    }

    deinit { stop() }
}

/// A stand-in GPS receiver for GeoClue's NMEA source: a Unix socket server that writes a GGA
/// sentence at `position`, dated now, every half second to whoever connects (GeoClue), until
/// stopped. The position can be changed while it runs.
final class NMEAFeed: Sendable {
    let path: String
    private let listener: Int32
    private let state = FeedState()

    /// Where the sentences put the receiver, whether the feed stopped, and the descriptors still
    /// open. Each descriptor is closed by the thread that uses it, under the lock and after it is
    /// struck from here; `stop()` shuts down, under the lock, only those still here. So nothing
    /// here touches a descriptor number after it was closed (it may be another test's by then).
    private struct Feed {
        var position = (lat: -37.7848, lon: 175.3149)
        var stopped = false
        var listenerOpen = true
        var clients: [Int32] = []
    }
    private final class FeedState: Sendable {
        let mutex = Mutex(Feed())

        func withLock<R>(_ body: (inout Feed) -> R) -> R {
            mutex.withLock { body(&$0) }
        }
    }

    init(path: String) throws {
        self.path = path
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ChildProcessError(message: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 4) == 0 else {
            close(fd)
            throw ChildProcessError(message: "bind/listen \(path): \(String(cString: strerror(errno)))")
        }
        listener = fd
        let state = self.state
        Thread.detachNewThread {
            defer {
                state.withLock { state in
                    state.listenerOpen = false
                    close(fd)
                }
            }
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    return
                }
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                let stopped = state.withLock { state in
                    if !state.stopped { state.clients.append(client) }
                    return state.stopped
                }
                if stopped {
                    close(client)
                    return
                }
                Thread.detachNewThread { Self.feed(client, state) }
            }
        }
    }

    /// Where the sentences say the receiver is from now on.
    func move(to lat: Double, _ lon: Double) {
        state.withLock { $0.position = (lat, lon) }
    }

    /// Ends the connections and the listener: their threads close them.
    func stop() {
        let listener = self.listener
        state.withLock { state in
            state.stopped = true
            if state.listenerOpen { shutdown(listener, Int32(SHUT_RDWR)) }
            for client in state.clients { shutdown(client, Int32(SHUT_RDWR)) }
        }
    }

    deinit {
        stop()
        unlink(path)
    }

    private static func feed(_ client: Int32, _ state: FeedState) {
        defer {
            state.withLock { state in
                state.clients.removeAll { $0 == client }
                close(client)
            }
        }
        while true {
            let (position, stopped) = state.withLock { ($0.position, $0.stopped) }
            if stopped { return }
            let line = Array(gga(lat: position.lat, lon: position.lon, at: Date()).utf8)
            let sent = line.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 { return }
            usleep(500_000)  // a receiver's pace; nothing waits on it
        }
    }

    /// A GGA sentence (fix quality 1, 9 satellites, HDOP 1.0) at `lat`, `lon`, dated `at` (UTC).
    static func gga(lat: Double, lon: Double, at: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let time = calendar.dateComponents([.hour, .minute, .second], from: at)
        func degrees(_ value: Double, width: Int) -> String {
            let whole = Int(abs(value))
            let minutes = (abs(value) - Double(whole)) * 60
            return String(format: "%0\(width)d%07.4f", whole, minutes)
        }
        let clock = String(format: "%02d%02d%02d.00", time.hour ?? 0, time.minute ?? 0, time.second ?? 0)
        let latitude = "\(degrees(lat, width: 2)),\(lat < 0 ? "S" : "N")"
        let longitude = "\(degrees(lon, width: 3)),\(lon < 0 ? "W" : "E")"
        let body = "GPGGA,\(clock),\(latitude),\(longitude),1,09,1.0,50.0,M,23.7,M,,"
        let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        return "$\(body)*\(String(format: "%02X", checksum))\r\n"
    }
}
