import ArgumentParser
import WeatherRPC
import WeatherSocket

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The entry point: runs a subcommand and maps what happened to the spec's exit status.
@main
enum Weatherctl {
    static func main() {
        unblockSignals()
        do {
            var command = try WeatherctlCommand.parseAsRoot()
            try command.run()
        } catch let error as ConnectError {
            fail("weatherctl: \(error)", status: 69)  // EX_UNAVAILABLE
        } catch let error as RemoteError {
            fail("weatherctl: \(error.message)", status: 1)
        } catch let error as ProtocolError {
            fail("weatherctl: \(error.message)", status: 1)
        } catch let error as ExitCode {
            exit(error.rawValue)
        } catch let error as ConnectionLost {
            let path = (try? WeatherctlCommand.parseAsRoot()).flatMap { ($0 as? any HasGlobalOptions)?.options.socketPath } ?? "the daemon"
            fail("weatherctl: the connection to \(path) failed: \(error) (did weatherd stop?)", status: 69)
        } catch {
            if WeatherctlCommand.exitCode(for: error) == .success {
                output(WeatherctlCommand.fullMessage(for: error))  // --help, --version
                exit(0)
            }
            if WeatherctlCommand.exitCode(for: error) == .validationFailure {
                fail(WeatherctlCommand.fullMessage(for: error), status: 2)  // usage error
            }
            fail("weatherctl: \(error)", status: 1)
        }
    }

    /// A process starts with the signal mask of the thread that spawned it, and a thread of a
    /// multithreaded parent often blocks SIGTERM and SIGINT. `weatherctl` waits in plain blocking
    /// reads (no event loop, no signal handlers), so a blocked SIGTERM would leave `watch` running
    /// after it was told to stop: it starts with nothing blocked, and the default dispositions end it.
    private static func unblockSignals() {
        var none = sigset_t()
        sigemptyset(&none)
        sigprocmask(SIG_SETMASK, &none, nil)
    }

    static func fail(_ message: String, status: Int32) -> Never {
        writeLine(message, to: STDERR_FILENO)
        exit(status)
    }
}

/// Writes one line to stdout at once, unbuffered, so `watch` output reaches a pipe line by line.
func output(_ line: String) {
    writeLine(line, to: STDOUT_FILENO)
}

/// Writes `line` and a newline to `descriptor` with write(2), whole (a pipe may take it in parts).
/// A write that fails (the reader went away) drops the rest: SIGPIPE, unless ignored, ends the process.
private func writeLine(_ line: String, to descriptor: Int32) {
    var bytes = Array(line.utf8)
    bytes.append(UInt8(ascii: "\n"))
    bytes.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
            let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}

/// Prints a protocol object as one JSON line.
func printJSON(_ value: JSONValue) {
    output(value.serialized)
}
