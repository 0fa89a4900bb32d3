import COnDemand
import CSodium
import WeatherCore

/// Opens the OwnTracks app's encrypted payloads with libsodium's `crypto_secretbox_open_easy`: the
/// key is the secret as the app derives it (``OwnTracksKey``), the box a 24-byte nonce followed by
/// the ciphertext. Holds the derived key only; never logs or shows it.
public struct SodiumOpener: OwnTracksOpener, CustomStringConvertible {
    /// libsodium, loaded on first use and initialised once: nil, else why it cannot open payloads.
    public static let libraryProblem: String? = {
        if let problem = LibraryOnDemand.load(weatherd_load_sodium) { return "cannot load libsodium: \(problem)" }
        return sodium_init() >= 0 ? nil : "libsodium failed to initialise"
    }()

    private let key: [UInt8]

    public init(secret: Secret) {
        key = OwnTracksKey.derive(secret)
    }

    public var description: String { "SodiumOpener(<redacted>)" }

    public func open(_ box: [UInt8]) -> [UInt8]? {
        guard Self.libraryProblem == nil else { return nil }
        let nonceBytes = Int(crypto_secretbox_noncebytes())
        let macBytes = Int(crypto_secretbox_macbytes())
        guard Int(crypto_secretbox_keybytes()) == key.count, box.count >= nonceBytes + macBytes else { return nil }
        let cipherLength = box.count - nonceBytes
        // One byte more than the plaintext, so that an empty one still has a buffer to be written to.
        var plain = [UInt8](repeating: 0, count: cipherLength - macBytes + 1)
        let rc = box.withUnsafeBufferPointer { box in
            key.withUnsafeBufferPointer { key in
                plain.withUnsafeMutableBufferPointer { plain in
                    crypto_secretbox_open_easy(
                        plain.baseAddress, box.baseAddress! + nonceBytes, UInt64(cipherLength), box.baseAddress!, key.baseAddress!)
                }
            }
        }
        return rc == 0 ? Array(plain.dropLast()) : nil
    }
}
