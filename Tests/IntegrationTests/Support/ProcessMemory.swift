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
