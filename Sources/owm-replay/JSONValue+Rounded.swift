import WeatherCore

extension JSONValue {
    /// A number rounded to at most `decimals` places (written without trailing zeros, e.g. `8.9`).
    static func rounded(_ value: Double, decimals: Int = 2) -> JSONValue {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        return .double((value * scale).rounded() / scale)
    }
}
