import Foundation
import Testing
import WeatherCore

@testable import TestSupport

/// The knobs of the reliability suites, read once from the environment:
///
/// - `WEATHERD_RELIABILITY_SEED`: the seed of every random choice (a decimal or `0x` hex 64-bit
///   number); without it a fresh random seed. Each suite prints the seed it ran with, so a failure
///   replays with `WEATHERD_RELIABILITY_SEED=N`.
/// - `WEATHERD_RELIABILITY_SCALE`: a positive integer the iteration counts are multiplied by
///   (default 1; `make soak` raises it).
///
/// Each suite draws from a generator of its own, seeded from the seed and the suite's name, so
/// one suite's choices do not depend on another's or on the order the suites run in.
struct ReliabilityRun: Sendable {
    let seed: UInt64
    let scale: Int
    /// Where the values came from, for the printed figures.
    let seedOrigin: String
    /// A knob that was set but could not be read: every suite fails with it (in `announce`).
    var problem: String?

    static let current: ReliabilityRun = {
        let environment = ProcessInfo.processInfo.environment
        var problems: [String] = []
        var scale = 1
        if let text = environment["WEATHERD_RELIABILITY_SCALE"], !text.isEmpty {
            if let value = Int(text.trimmingCharacters(in: .whitespaces)), value >= 1 {
                scale = value
            } else {
                problems.append("WEATHERD_RELIABILITY_SCALE must be a positive integer, found \"\(text)\"")
            }
        }
        var system = SystemRandomNumberGenerator()
        var seed = system.next()
        var origin = "fresh"
        if let text = environment["WEATHERD_RELIABILITY_SEED"], !text.isEmpty {
            if let value = parseSeed(text) {
                seed = value
                origin = "from WEATHERD_RELIABILITY_SEED"
            } else {
                problems.append("WEATHERD_RELIABILITY_SEED must be a 64-bit number (decimal or 0x hex), found \"\(text)\"")
            }
        }
        return ReliabilityRun(
            seed: seed, scale: scale, seedOrigin: origin, problem: problems.isEmpty ? nil : problems.joined(separator: "; "))
    }()

    static func parseSeed(_ text: String) -> UInt64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased().hasPrefix("0x") { return UInt64(trimmed.dropFirst(2), radix: 16) }
        return UInt64(trimmed)
    }

    /// `base` iterations times the scale.
    func count(_ base: Int) -> Int { base * scale }

    /// A generator for one suite: the run's seed mixed with the suite's name (FNV-1a), so suites
    /// draw independent, reproducible sequences.
    func generator(for suite: String) -> SplitMix64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in suite.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return SplitMix64(seed: seed ^ hash)
    }

    /// Prints the seed and scale at the start of a suite's test, with the line that replays it;
    /// a knob that could not be read fails the test here.
    func announce(_ suite: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if let problem { Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation) }
        ReliabilityRun.figure(
            suite,
            "seed \(seed) (\(seedOrigin)), scale \(scale); replay with WEATHERD_RELIABILITY_SEED=\(seed) WEATHERD_RELIABILITY_SCALE=\(scale)"
        )
    }

    /// One line of figures in the test output, e.g. `[reliability protocol fuzz] requests 3105`.
    static func figure(_ suite: String, _ text: String) {
        print("[reliability \(suite)] \(text)")
    }
}
