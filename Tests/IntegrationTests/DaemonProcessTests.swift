import Foundation
import Testing

@testable import TestSupport

/// The test support's processes end with their test, also when it threw partway.
@Suite("test support: processes end with their test")
struct DaemonProcessTests {
    private struct Partway: Error {}

    @Test func aDaemonIsKilledWhenTheTestThatStartedItThrows() async throws {
        let directory = try TemporaryDirectory()
        var termination: Observed<Termination?>?
        do {
            let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: nil))
            termination = daemon.process.termination
            #expect(try await daemon.call("version")["version"] != nil)
            throw Partway()
        } catch is Partway {}

        let ended = try #require(try await termination?.wait(for: "the daemon to end") { $0 })
        #expect(!ended.exitedNormally && ended.status == SIGKILL, "\(ended)")
    }

    @Test func theProcessesAWrapperStartedAreKilledWithIt() async throws {
        let directory = try TemporaryDirectory()
        let setup = DaemonSetup(directory: directory, replay: nil)
        var stderr: Observed<CapturedOutput>?
        do {
            // A shell that does not exec: weatherd is its child, and holds a copy of its stderr.
            let daemon = try await DaemonProcess.start(
                setup, through: { weatherd, arguments in ["/bin/sh", "-c", "\"$0\" \"$@\"; exit 3", weatherd] + arguments },
                awaiting: "listening on \(setup.socketPath)")
            stderr = daemon.process.stderr
            throw Partway()
        } catch is Partway {}

        // The stream ends once every process that holds it is gone: the shell and weatherd.
        _ = try await stderr?.wait(for: "the shell and weatherd to end") { $0.closed ? true : nil }
        #expect(!FileManager.default.fileExists(atPath: setup.socketPath) || (try? RawSocket(path: setup.socketPath)) == nil)
    }
}
