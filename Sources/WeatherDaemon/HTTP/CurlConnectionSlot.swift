import CCurl
import WeatherCore

/// One reusable libcurl easy handle together with the multi handle that drives it.
///
/// The multi handle owns the connection cache, so consecutive requests through the same slot to
/// the same host reuse the kept-alive connection. Driving the transfer through a multi handle
/// (instead of `curl_easy_perform`) lets another thread interrupt the wait with
/// `curl_multi_wakeup`, so cancellation takes effect at once rather than at libcurl's next
/// (up to one second away) progress callback.
///
/// A slot is used by one thread at a time: it is either idle in ``CurlCore``'s pool or checked
/// out by exactly one transfer.
final class CurlConnectionSlot: @unchecked Sendable {
    // @unchecked: see above; ownership moves between threads only through CurlCore's mutex.
    let easy: UnsafeMutableRawPointer
    let multi: UnsafeMutableRawPointer
    /// Kept so that the share handle outlives this easy handle.
    private let share: CurlShare?

    init(share: CurlShare?) throws(HTTPTransportError) {
        guard let easy = curl_easy_init() else {
            throw HTTPTransportError(.other, "curl_easy_init failed")
        }
        guard let multi = curl_multi_init() else {
            curl_easy_cleanup(easy)
            throw HTTPTransportError(.other, "curl_multi_init failed")
        }
        self.easy = easy
        self.multi = multi
        self.share = share
        if let share {
            // Best effort: without it each slot merely keeps its own DNS and TLS session cache.
            _ = weatherd_curl_setopt_pointer(easy, CURLOPT_SHARE, share.handle)
        }
    }

    deinit {
        // The easy handle is never attached to the multi handle while the slot is idle.
        curl_multi_cleanup(multi)
        curl_easy_cleanup(easy)
    }
}
