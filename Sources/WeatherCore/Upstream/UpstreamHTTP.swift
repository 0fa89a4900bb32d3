import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The query strings of the providers' request URLs.
enum URLQuery {
    /// Percent-encodes everything but RFC 3986 unreserved characters.
    static func encode(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + NumberText.hex(byte, digits: 2)
            }
        }
        return out
    }
}

extension HTTPResponse {
    /// `Retry-After` as delay-seconds; nil when absent, negative or an HTTP date (rare here).
    var retryAfter: Duration? {
        headers["retry-after"].flatMap { Int($0.trimmingWhitespace()) }.flatMap { $0 >= 0 ? .seconds($0) : nil }
    }
}

/// One GET of a provider's API, as every client sends it: timed and counted in the request metrics
/// under its provider and resource, logged at debug with the key redacted, its response interpreted.
/// A transport failure is `unavailable`; no error text holds the URL, and the key, should the
/// provider or the transport have echoed it, reads `<redacted>`.
struct ProviderRequest {
    let provider: WeatherProviderName
    /// The `endpoint` label of the metrics: `weather`, `forecast` or `geocoding`.
    let resource: String
    /// The URL with the key, and the same with the key as `<redacted>` (for the log).
    let url: String
    let loggedURL: String
    let key: Secret?
    let timeout: Duration

    /// The response header a stand-in marks its answers with (owm-replay `--mark-sample`): what it
    /// serves is sample data, not real weather. The real services never send it.
    static let sampleHeader = "sample-data"

    /// - Parameter sample: set at each response to whether it carried ``sampleHeader``.
    func send<Answer>(
        through transport: any HTTPTransport, logger: Logger?, sample: LockedValue<Bool>? = nil,
        interpret: (HTTPResponse) throws(UpstreamError) -> Answer
    ) async throws -> Answer {
        let started = ContinuousClock.now
        func count(_ outcome: String) {
            UpstreamMetrics.request(provider: provider, endpoint: resource, outcome: outcome, duration: started.duration(to: .now))
        }
        let response: HTTPResponse
        do {
            response = try await transport.get(url, timeout: timeout)
            sample?.replace(with: response.headers[Self.sampleHeader] != nil)
            logger?.debug(
                "GET \(loggedURL) -> \(response.status) in \(started.duration(to: .now).wholeMilliseconds) ms")
        } catch let error as HTTPTransportError {
            count("unavailable")
            throw UpstreamError.unavailable(redacting(error.description))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            count("unavailable")
            throw UpstreamError.unavailable("transport failure")  // never the error text: it could hold the URL
        }
        do throws(UpstreamError) {
            let answer = try interpret(response)
            count("ok")
            return answer
        } catch {
            count(error.metricOutcome)
            if case .unavailable(let text) = error { throw UpstreamError.unavailable(redacting(text)) }
            throw error
        }
    }

    /// `text` with the key as `<redacted>`.
    private func redacting(_ text: String) -> String {
        guard let key = key?.revealed, !key.isEmpty else { return text }
        return text.replacing(key, with: "<redacted>")
    }
}

/// A value a `Sendable` struct shares between its copies and replaces as a whole (a client's
/// endpoint at a configuration reload), under a lock.
final class LockedValue<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) { self.value = Mutex(value) }

    var current: Value { value.withLock { $0 } }

    func replace(with new: Value) { value.withLock { $0 = new } }
}
