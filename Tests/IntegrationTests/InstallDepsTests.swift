import Foundation
import Testing

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// scripts/install-deps.sh when another apt holds the package system's locks: it waits, and says so.
/// The tests hold a lock of their own on a file of their own (as apt does: a POSIX write lock), never
/// apt's, so no other apt on the machine is held up.
@Suite("install-deps waits for apt's locks")
struct InstallDepsTests {
    static let script = TestEnvironment.packageRoot + "/scripts/wait-apt-locks.sh"

    /// A POSIX write lock on `path`, held by this process until ``release()``.
    final class HeldLock: Sendable {
        let descriptor: Int32

        init(_ path: String) throws {
            descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw ChildProcessError(message: "cannot open \(path)") }
            var lock = flock()
            lock.l_type = Int16(F_WRLCK)
            lock.l_whence = Int16(SEEK_SET)
            guard fcntl(descriptor, F_SETLK, &lock) == 0 else { throw ChildProcessError(message: "cannot lock \(path)") }
        }

        func release() { close(descriptor) }
    }

    @Test("a lock held past APT_LOCK_TIMEOUT: it says who holds it, then fails")
    func heldTooLong() async throws {
        let directory = try TemporaryDirectory()
        let free = try directory.write("free", "")
        let held = try directory.write("lock-frontend", "")
        let lock = try HeldLock(held)
        defer { lock.release() }
        let result = try await runCommand(
            Self.script, [free, held], environment: TestEnvironment.childEnvironment(["APT_LOCK_TIMEOUT": "0"]))
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("waiting for \(held), held by process \(getpid())"), "\(result)")
        #expect(result.stderr.contains("error: \(held) is still held by process \(getpid())"), "\(result)")
    }

    @Test("a lock released while it waits: it goes on, having said once that it waits")
    func released() async throws {
        let directory = try TemporaryDirectory()
        let held = try directory.write("lock", "")
        let lock = try HeldLock(held)
        let waiting = try await ChildProcess(Self.script, [held], environment: TestEnvironment.childEnvironment())
        defer { waiting.send(SIGKILL) }
        let said = try await waiting.waitForLine(containing: "waiting for", on: \.stderr)
        #expect(said.contains("held by process \(getpid())"))
        lock.release()
        let ended = try await waiting.waitForExitAndOutput(timeout: .seconds(30))
        #expect(ended.exitedNormally && ended.status == 0, "\(ended): \(waiting.stderrText)")
        #expect(waiting.stderrText.components(separatedBy: "waiting for").count == 2, "\(waiting.stderrText)")
    }

    @Test("no lock held: it returns at once, silent")
    func free() async throws {
        let directory = try TemporaryDirectory()
        let result = try await runCommand(
            Self.script, [try directory.write("lock", ""), directory.file("absent")],
            environment: TestEnvironment.childEnvironment(["APT_LOCK_TIMEOUT": "0"]))
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
    }

    @Test("install-deps.sh waits before each apt-get, and every apt-get waits for dpkg's lock too")
    func everyAptGetWaits() throws {
        let text = try String(contentsOfFile: TestEnvironment.packageRoot + "/scripts/install-deps.sh", encoding: .utf8)
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.hasPrefix("#") }
        let aptGets = lines.indices.filter { lines[$0].contains("apt_get[@]}") }
        #expect(aptGets.count == 2, "\(lines)")
        for index in aptGets {
            #expect(lines[index - 1].contains("wait-apt-locks.sh"), "\(lines[index])")
        }
        #expect(lines.contains { $0.hasPrefix("apt_get=(") && $0.contains("apt-get -o DPkg::Lock::Timeout=") })
        #expect(!lines.contains { $0.contains(" apt-get ") && !$0.hasPrefix("apt_get=(") && !$0.hasPrefix("echo") }, "\(lines)")
    }
}
