/// Seeded randomness where a sequence must be replayable: owm-replay's synthesized weather and
/// forecasts (the same point, the same weather), and the tests (the reliability suites, the
/// property tests), whose failing run a seed replays.
/// SplitMix64 (Steele, Lea, Flood 2014): a small, fast generator whose sequence depends only on
/// its seed, the same on every platform and Swift version (unlike the standard library's
/// default generator, which cannot be seeded).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    // The helpers below compute from `next()` alone (not through the standard library's
    // `random(in:using:)`, whose use of the generator is not promised to stay the same), so a seed
    // replays the same choices with any toolchain.

    /// A number in [0, 1) with 53 random bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool {
        unit() < p
    }

    /// An integer in `range` (multiply-shift; the bias is below 2⁻³² for the small ranges used here).
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next().multipliedFullWidth(by: span).high)
    }

    /// A number in [lower, upper).
    public mutating func double(_ lower: Double, _ upper: Double) -> Double {
        lower + unit() * (upper - lower)
    }

    /// A random element of a non-empty array.
    public mutating func pick<T>(_ elements: [T]) -> T {
        elements[int(0...(elements.count - 1))]
    }

    /// A random byte.
    public mutating func byte() -> UInt8 {
        UInt8(truncatingIfNeeded: next() >> 56)
    }
}
