import COnDemand

/// The C libraries weatherd loads on first use (`COnDemand`): libmosquitto for MQTT, libsodium for
/// OwnTracks' encrypted payloads. A daemon whose configuration uses neither does not map them.
enum LibraryOnDemand {
    /// Loads a library with its `weatherd_load_*` function: nil once it is there, else why not
    /// (the loader's message, naming the Debian package).
    static func load(_ loader: (UnsafeMutablePointer<CChar>?, Int) -> Int32) -> String? {
        var reason = [CChar](repeating: 0, count: 320)
        let loaded = reason.withUnsafeMutableBufferPointer { loader($0.baseAddress, $0.count) }
        guard loaded != 0 else { return nil }
        return reason.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
