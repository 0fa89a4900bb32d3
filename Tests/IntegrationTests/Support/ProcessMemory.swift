import Foundation

@testable import TestSupport

/// What /proc/PID/status says of a process's memory, in KiB.
struct ProcessMemory: Sendable, CustomStringConvertible {
    /// Resident now (`VmRSS`).
    var residentKiB: Int
    /// The most it was ever resident (`VmHWM`).
    var peakKiB: Int

    init(pid: Int32) throws {
        let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func kiB(_ field: String) throws -> Int {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
                let value = line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap({ Int($0) })
            else { throw ChildProcessError(message: "no \(field) in /proc/\(pid)/status") }
            return value
        }
        residentKiB = try kiB("VmRSS")
        peakKiB = try kiB("VmHWM")
    }

    var description: String { "RSS \(residentKiB) KiB (peak \(peakKiB) KiB)" }
}

extension ProcessMemory {
    /// What of a shared library's code is resident in process `pid`, in KiB: the `Rss` of its
    /// executable mappings in /proc/PID/smaps, those of the file whose name starts with `library`
    /// (0 when it is not mapped). The loader does not run a library's code: what is resident of it is
    /// what ran, with the neighbouring pages the kernel maps around each fault.
    static func residentCodeKiB(of library: String, pid: Int32) throws -> Int {
        let text = try procText("/proc/\(pid)/smaps")
        var inCode = false
        var total = 0
        for line in text.split(separator: "\n") {
            let fields = line.split(whereSeparator: \.isWhitespace)
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":"), fields.count >= 5 {
                // A mapping's header: address range, permissions, offset, device, inode, path.
                let name = fields.count > 5 ? fields[5].split(separator: "/").last.map(String.init) ?? "" : ""
                inCode = fields[1].contains("x") && name.hasPrefix(library)
            } else if inCode, fields.first == "Rss:", let kiB = fields.dropFirst().first.flatMap({ Int($0) }) {
                total += kiB
            }
        }
        return total
    }
}

/// The whole of a file in /proc. Foundation's readers take a file's size from `stat`, which is 0
/// there, and stop after their first read: a few KB of a process's `smaps`.
func procText(_ path: String) throws -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw ChildProcessError(message: "cannot open \(path): errno \(errno)") }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count >= 0 else { throw ChildProcessError(message: "cannot read \(path): errno \(errno)") }
        if count == 0 { return String(decoding: bytes, as: UTF8.self) }
        bytes.append(contentsOf: chunk[0..<count])
    }
}
