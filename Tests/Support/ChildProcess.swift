import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a child process wrote to one of its output streams so far.
struct CapturedOutput: Sendable {
    var data = Data()
    /// The stream reached end of file (the process and every copy of the pipe are closed).
    var closed = false

    var text: String { String(decoding: data, as: UTF8.self) }
}

/// How a child process ended.
struct Termination: Sendable, CustomStringConvertible {
    var status: Int32
    var reason: Process.TerminationReason

    var exitedNormally: Bool { reason == .exit }
    var description: String { reason == .exit ? "exit status \(status)" : "killed by signal \(status)" }
}

/// A child process started with an explicit environment, its stdout and stderr captured in memory
/// as they come. It is killed (SIGKILL, with every process of its group) when the object goes
/// away: when its test ends, also when the test threw partway, so no test leaves one behind.
/// It starts once its test has a process slot (`ProcessSlots.shared`) and gives it back when it ends.
final class ChildProcess: Sendable {
    let name: String
    let stdout = Observed(CapturedOutput())
    let stderr = Observed(CapturedOutput())
    let termination = Observed<Termination?>(nil)
    /// When a thread of its own, blocked in waitid(2) from the start, saw the process gone.
    /// Foundation's `terminationHandler` (`termination`) comes later: Foundation notices an exit
    /// when a socket the child inherited closes, on one manager thread for every child of the test
    /// process, which then calls a blocking waitpid(), and runs the handler on a new thread. On a
    /// saturated machine, or while that thread waits for another child, this took over a second.
    let exited = Observed<ContinuousClock.Instant?>(nil)
    let pid: Int32
    private let process: Process

    /// Starts `executable` with exactly `environment` (nothing is inherited), once its test has a
    /// process slot.
    init(_ executable: String, _ arguments: [String], environment: [String: String], name: String? = nil) async throws {
        let slot = try await ProcessSlots.shared.acquire()
        self.name = name ?? URL(fileURLWithPath: executable).lastPathComponent
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let outPipe = Pipe()
        let errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        let termination = self.termination
        process.terminationHandler = { process in
            let ended = Termination(status: process.terminationStatus, reason: process.terminationReason)
            termination.update { $0 = ended }
        }
        do {
            try process.run()
        } catch {
            slot.release()
            throw error
        }
        let pid = process.processIdentifier
        let exited = self.exited
        Thread.detachNewThread {
            // WNOWAIT: waits for the exit without reaping, so Foundation still collects the
            // status. It returns when the child has ended: with success, or with ECHILD when
            // Foundation's waitpid, woken by the same exit, reaped it first. Signals are blocked on
            // this thread so that none ends the wait early with EINTR.
            var all = sigset_t()
            sigfillset(&all)
            pthread_sigmask(SIG_BLOCK, &all, nil)
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
            exited.update { $0 = .now }
            slot.release()
        }
        // Each stream is read by a thread of its own with plain blocking reads until end of file.
        // (FileHandle.readabilityHandler lost the end of file now and then when tests started
        // processes in parallel: libdispatch on Linux mixes up sources of reused descriptors.)
        // The pipe stays referenced by the thread, so its descriptor is not closed under it.
        for (pipe, output) in [(outPipe, stdout), (errPipe, stderr)] {
            Thread.detachNewThread {
                let fd = pipe.fileHandleForReading.fileDescriptor
                var chunk = [UInt8](repeating: 0, count: 65536)
                while true {
                    let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if n < 0 && errno == EINTR { continue }
                    if n <= 0 { break }
                    output.update { $0.data.append(contentsOf: chunk[..<n]) }
                }
                output.update { $0.closed = true }
                withExtendedLifetime(pipe) {}
            }
        }
        // Process.run() closed the parent's copies of the pipes' write ends.
        self.process = process
        self.pid = pid
    }

    deinit {
        // Its group too: a wrapper's or a launcher's children (Foundation's Process starts each child
        // in a group of its own, led by it). Only while the leader is not reaped, so its pid (and the
        // group's id) cannot have been given to another process meanwhile.
        if termination.value == nil {
            Glibc.kill(-pid, SIGKILL)
            Glibc.kill(pid, SIGKILL)
        }
    }

    var isRunning: Bool { termination.value == nil }

    /// SIGKILL to the child's whole process group (Foundation's Process starts each child in a
    /// group of its own, led by it), for a child that may have started others. Harmless when the
    /// group is gone already.
    func killProcessGroup() {
        Glibc.kill(-pid, SIGKILL)
    }
    var stdoutText: String { stdout.value.text }
    var stderrText: String { stderr.value.text }

    /// Sends `signal` (if the process still runs).
    func send(_ signal: Int32) {
        if termination.value == nil { Glibc.kill(pid, signal) }
    }

    /// Waits for the process to end; returns how it ended and when the waitid thread saw it end.
    func waitForExitTime(timeout: Duration = safetyDeadline) async throws -> (Termination, at: ContinuousClock.Instant) {
        let ended = try await waitForExit(timeout: timeout)
        let at = try await exited.wait(for: "\(name) (pid \(pid)) seen gone by waitid", timeout: timeout) { $0 }
        return (ended, at)
    }

    /// Waits for the process to end.
    @discardableResult
    func waitForExit(timeout: Duration = safetyDeadline) async throws -> Termination {
        try await termination.wait(for: "\(name) (pid \(pid)) to exit", timeout: timeout) { $0 }
    }

    /// Waits for the process to end and for both of its output streams to be closed, so the
    /// captured output is complete.
    @discardableResult
    func waitForExitAndOutput(timeout: Duration = safetyDeadline) async throws -> Termination {
        let ended = try await waitForExit(timeout: timeout)
        for (label, output) in [("stdout", stdout), ("stderr", stderr)] {
            _ = try await output.wait(for: "\(name)'s \(label) to close", timeout: timeout) { $0.closed ? true : nil }
        }
        return ended
    }

    /// Waits until a complete line of `stream` (`\.stdout` or `\.stderr`) contains `text` and
    /// returns it; fails early, with the output, when the stream ends first (the process is gone).
    func waitForLine(
        containing text: String, on stream: KeyPath<ChildProcess, Observed<CapturedOutput>>, timeout: Duration = safetyDeadline
    ) async throws -> String {
        let output = self[keyPath: stream]
        let termination = self.termination
        let name = self.name
        return try await output.wait(for: "\(name) to print \"\(text)\"", timeout: timeout) { captured in
            let all = captured.text
            let lines = all.split(separator: "\n", omittingEmptySubsequences: false).dropLast()  // the last one is incomplete
            if let line = lines.first(where: { $0.contains(text) }) { return String(line) }
            if captured.closed {
                let ended = termination.value.map { "\($0)" } ?? "output closed"
                throw ChildProcessError(message: "\(name) ended before printing \"\(text)\" (\(ended)); it printed:\n\(all)")
            }
            return nil
        }
    }
}

struct ChildProcessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Runs a short-lived command to completion: (status, stdout, stderr).
struct CommandResult: Sendable, CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String
    var description: String { "status \(status)\n--- stdout:\n\(stdout)--- stderr:\n\(stderr)" }
}

func runCommand(
    _ executable: String, _ arguments: [String], environment: [String: String], timeout: Duration = safetyDeadline
) async throws -> CommandResult {
    let child = try await ChildProcess(executable, arguments, environment: environment)
    do {
        let ended = try await child.waitForExitAndOutput(timeout: timeout)
        return CommandResult(
            status: ended.exitedNormally ? ended.status : 128 + ended.status, stdout: child.stdoutText, stderr: child.stderrText)
    } catch {
        child.send(SIGKILL)
        throw error
    }
}
