import CCurl
import WeatherCore

/// What libcurl's callbacks collect during one transfer. Lives on the worker thread only.
final class CurlTransferState {
    let maxBodyBytes: Int
    let cancellation: CurlCancellation
    var body: [UInt8] = []
    var headers: [String: String] = [:]
    var bodyTooLarge = false

    init(maxBodyBytes: Int, cancellation: CurlCancellation) {
        self.maxBodyBytes = maxBodyBytes
        self.cancellation = cancellation
    }

    /// Records one raw header line. A status line starts a new response (after a `100 Continue`
    /// or a proxy's CONNECT reply), so only the last response's headers are kept.
    func addHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        if bytes.starts(with: "HTTP/".utf8) {
            headers.removeAll(keepingCapacity: true)
            return
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = String(decoding: Self.trimmed(bytes[..<colon]), as: UTF8.self).lowercased()
        guard !name.isEmpty else { return }
        headers[name] = String(decoding: Self.trimmed(bytes[(colon + 1)...]), as: UTF8.self)
    }

    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        func isSpace(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
                || byte == UInt8(ascii: "\n")
        }
        var result = bytes
        while let first = result.first, isSpace(first) { result = result.dropFirst() }
        while let last = result.last, isSpace(last) { result = result.dropLast() }
        return result
    }
}
