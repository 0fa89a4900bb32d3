/// Durations as written in the configuration: a decimal number followed by a unit, `ms`, `s`, `m`, `h`
/// or `d` (`"250ms"`, `"10s"`, `"10m"`, `"1h"`, `"30d"`, `"1.5s"`). A day is 24 hours.
public enum DurationText {
    private static let units: [(name: String, nanoseconds: Int)] = [
        ("d", 86_400_000_000_000),
        ("h", 3_600_000_000_000),
        ("m", 60_000_000_000),
        ("s", 1_000_000_000),
        ("ms", 1_000_000),
    ]

    /// Parses `"250ms"`, `"10s"`, `"10m"`, `"1h"`, `"30d"`, and decimals like `"1.5s"`.
    ///
    /// Returns nil when the text is malformed: no unit, an unknown unit, a sign (durations are never
    /// negative), white space, an exponent, a bare `.` (`".5s"`, `"1.s"`), more precision than a
    /// nanosecond, or a value too large to hold.
    public static func parse(_ text: String) -> Duration? {
        let unit: (name: String, nanoseconds: Int)
        if text.hasSuffix("ms") {
            unit = units.last!
        } else if let last = text.last, let found = units.first(where: { $0.name == String(last) }) {
            unit = found
        } else {
            return nil
        }
        let number = text.utf8.dropLast(unit.name.utf8.count)
        let parts = number.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { return nil }
        let isDigits = { (s: Substring.UTF8View.SubSequence) -> Bool in
            !s.isEmpty && s.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        }
        guard parts.allSatisfy(isDigits) else { return nil }

        var total = 0
        for digit in parts[0] {
            let (times10, o1) = total.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            total = sum
        }
        let (whole, overflow) = total.multipliedReportingOverflow(by: unit.nanoseconds)
        guard !overflow else { return nil }
        total = whole

        if parts.count == 2 {
            // The fraction, trailing zeros dropped, must come to a whole number of nanoseconds.
            var fraction = Array(parts[1])
            while fraction.last == UInt8(ascii: "0") { fraction.removeLast() }
            guard fraction.count <= 24 else { return nil }
            var value: Int128 = 0
            var scale: Int128 = 1
            for digit in fraction {
                value = value * 10 + Int128(digit - UInt8(ascii: "0"))
                scale *= 10
            }
            let product = value * Int128(unit.nanoseconds)
            guard product % scale == 0, let nanos = Int(exactly: product / scale) else { return nil }
            let (sum, o) = total.addingReportingOverflow(nanos)
            guard !o else { return nil }
            total = sum
        }
        return .nanoseconds(total)
    }

    /// Formats a duration (to the nanosecond) in the form ``parse(_:)`` reads back to the same value.
    ///
    /// Of the exact forms whose number is at least 1 (`"1.5s"`, `"1500ms"`) the shortest wins; on a tie
    /// the one without a decimal point, then the larger unit: 600 s → `"10m"`, 0.25 s → `"250ms"`,
    /// 1.5 s → `"1.5s"`, 90 s → `"90s"`, 30 days → `"30d"`, 36 hours → `"36h"`. Zero is `"0s"`; below a millisecond the form is a decimal of `ms`.
    public static func format(_ d: Duration) -> String {
        let components = d.components
        let total = Int128(components.seconds) * 1_000_000_000 + Int128(components.attoseconds / 1_000_000_000)
        if total == 0 { return "0s" }
        if total < 0 { return "-" + format(magnitude: -total) }
        return format(magnitude: total)
    }

    private static func format(magnitude total: Int128) -> String {
        var best: (text: String, hasPoint: Bool)?
        for unit in units {
            let size = Int128(unit.nanoseconds)
            let whole = total / size
            guard whole >= 1 || unit.name == "ms" else { continue }
            var remainder = total % size
            var digits = ""
            while remainder != 0 && digits.count < 15 {
                remainder *= 10
                digits.append(String(remainder / size))
                remainder %= size
            }
            guard remainder == 0 else { continue }
            let candidate = digits.isEmpty ? "\(whole)\(unit.name)" : "\(whole).\(digits)\(unit.name)"
            let hasPoint = !digits.isEmpty
            if let current = best {
                if candidate.count < current.text.count
                    || (candidate.count == current.text.count && current.hasPoint && !hasPoint)
                {
                    best = (candidate, hasPoint)
                }
            } else {
                best = (candidate, hasPoint)
            }
        }
        return best?.text ?? "\(total / 1_000_000)ms"
    }
}
