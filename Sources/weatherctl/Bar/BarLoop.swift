import WeatherRPC
import WeatherSocket

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The write end of the pipe the click signals (SIGUSR1, SIGUSR2) are passed through to the loop.
nonisolated(unsafe) private var signalPipe: Int32 = -1

/// `weatherctl bar`'s I/O: one thread waiting in poll(2) on the daemon's socket, its own output
/// (to see it closed), i3bar's clicks on stdin and the click signals; each event goes through the
/// `BarMachine` and its actions are carried out here. It ends the process: at once with status 0
/// when the output closes, and on SIGTERM, SIGINT, SIGHUP or SIGPIPE.
struct BarLoop {
    let socketPath: String
    var machine: BarMachine
    var output: BarOutput
    /// Whether stdin carries i3bar's click events.
    var readsClicks: Bool

    private var connection: DaemonSocket?
    private var clicks: [UInt8] = []
    private var stdinOpen = true
    private var signals: Int32 = -1

    init(socketPath: String, machine: BarMachine, output: BarOutput, readsClicks: Bool) {
        self.socketPath = socketPath
        self.machine = machine
        self.output = output
        self.readsClicks = readsClicks
    }

    mutating func run() -> Never {
        installSignals()
        while true {
            let now = Date()
            switch machine.link {
            case .idle: connect(now: now)
            case .waiting(let until) where until <= now: connect(now: now)
            default: break
            }
            perform(machine.tick(now: Date()))
            wait()
        }
    }

    /// The exit signals end the process at once with status 0 (a bar that stops reading, a
    /// closed pipe, a session ending); the click signals are written to a pipe the loop waits on.
    private mutating func installSignals() {
        for number in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] {
            _ = signal(number) { _ in _exit(0) }
        }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        signals = fds[0]
        signalPipe = fds[1]
        for number in [SIGUSR1, SIGUSR2] {
            _ = signal(number) { number in
                var button: UInt8 = number == SIGUSR1 ? 1 : 3
                _ = Glibc.write(signalPipe, &button, 1)
            }
        }
    }

    private mutating func connect(now: Date) {
        do {
            let socket = try DaemonSocket.open(socketPath: socketPath)
            connection = socket
            perform(machine.connected(now: now))
        } catch let error as ConnectError {
            perform(machine.disconnected(reason: "cannot connect to \(error.path): \(error.reason)", now: now))
        } catch {
            perform(machine.disconnected(reason: "\(error)", now: now))
        }
    }

    private mutating func disconnect(_ reason: String) {
        connection?.close()
        connection = nil
        perform(machine.disconnected(reason: reason, now: Date()))
    }

    /// Waits for the next event (or until the machine's next due time) and handles it.
    private mutating func wait() {
        var fds = [pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)]
        if signals >= 0 { fds.append(pollfd(fd: signals, events: Int16(POLLIN), revents: 0)) }
        let stdinIndex = readsClicks && stdinOpen ? fds.count : nil
        if stdinIndex != nil { fds.append(pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)) }
        let socketIndex = connection != nil ? fds.count : nil
        if let connection { fds.append(pollfd(fd: connection.fileDescriptor, events: Int16(POLLIN), revents: 0)) }
        var timeout: Int32 = -1
        if let due = machine.wakeAt {
            timeout = Int32(max(0, min(3_600_000, (due.timeIntervalSinceNow * 1000).rounded(.up))))
        }
        let ready = poll(&fds, nfds_t(fds.count), timeout)
        if ready < 0 {
            if errno == EINTR { return }
            Weatherctl.fail("weatherctl: poll: \(String(cString: strerror(errno)))", status: 1)
        }
        if ready == 0 { return }
        // The output closed (the bar is gone): nothing left to do.
        if fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { exit(0) }
        if signals >= 0, fds[1].revents != 0 { readSignals() }
        if let stdinIndex, fds[stdinIndex].revents != 0 { readClicks() }
        if let socketIndex, fds[socketIndex].revents != 0 { readDaemon() }
    }

    private mutating func readSignals() {
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = read(signals, &bytes, bytes.count)
        for button in bytes.prefix(max(0, count)) {
            perform(machine.clicked(BarClick(button: Int(button)), now: Date()))
        }
    }

    private mutating func readClicks() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = read(STDIN_FILENO, &chunk, chunk.count)
        if count < 0, errno == EINTR || errno == EAGAIN { return }
        guard count > 0 else {
            stdinOpen = false  // the bar sends no more clicks; its output decides when to stop
            return
        }
        clicks.append(contentsOf: chunk[..<count])
        while let newline = clicks.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: clicks[..<newline], as: UTF8.self)
            clicks.removeSubrange(...newline)
            if let click = BarClick(line: line) { perform(machine.clicked(click, now: Date())) }
        }
        if clicks.count > 65_536 { clicks.removeAll() }  // no line of i3bar's is this long
    }

    private mutating func readDaemon() {
        guard let connection else { return }
        do {
            let open = try connection.readAvailable()
            while let message = try connection.bufferedMessage() {
                perform(machine.received(message, now: Date()))
                guard self.connection != nil else { return }
            }
            if !open { disconnect("the daemon closed the connection") }
        } catch {
            disconnect("\(error)")
        }
    }

    private mutating func perform(_ actions: [BarMachine.Action]) {
        for action in actions {
            switch action {
            case .send(let line):
                do {
                    try connection?.send(line)
                } catch {
                    disconnect("\(error)")
                    return
                }
            case .show(let content):
                for line in output.lines(for: content, at: Date()) { write(line) }
            }
        }
    }

    /// Writes one line to the bar; a closed output ends the process.
    private func write(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                exit(0)  // EPIPE and the like: the bar is gone
            }
            offset += written
        }
    }
}
