import ArgumentParser
import Foundation
import WeatherClient
import WeatherRPC

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
        } catch  where isConnectionFailure(error) {
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
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(status)
    }
}

/// Writes one line to stdout at once, unbuffered, so `watch` output reaches a pipe line by line.
func output(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Prints a protocol object as one JSON line.
func printJSON(_ value: JSONValue) {
    output(value.serialized)
}
