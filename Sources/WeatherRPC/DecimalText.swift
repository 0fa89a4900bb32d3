#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Numbers written with a fixed number of decimals, as people read them (`8.9`, `51.5074`).
public enum DecimalText {
    /// `value` as printf's `%*.*f` writes it: the C library's formatting, in the "C" locale (neither
    /// the daemon nor `weatherctl` calls `setlocale`), so the decimal point is always a point. Not
    /// Foundation's `String(format:)`: a client that prints numbers needs no Foundation for it.
    public static func fixed(_ value: Double, _ places: Int, width: Int = 0) -> String {
        var buffer = [CChar](repeating: 0, count: 32)
        while true {
            let capacity = buffer.count
            let count = withVaList([Int32(width), Int32(places), value]) { arguments in
                buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress!, capacity, "%*.*f", arguments) }
            }
            if count < 0 { return "\(value)" }
            if Int(count) < capacity {
                return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            }
            buffer = [CChar](repeating: 0, count: Int(count) + 1)
        }
    }
}
