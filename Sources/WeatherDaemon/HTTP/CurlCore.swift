import CCurl
import Synchronization
import WeatherCore

/// The state a ``CurlTransport`` shares with its worker threads: configuration, the pool of idle
/// connection slots and the libcurl share handle.
final class CurlCore: Sendable {
    let userAgent: String
    let maxBodyBytes: Int
    private let share: CurlShare?
    private let idle = Mutex<(slots: [CurlConnectionSlot], closed: Bool)>(([], false))

    init(userAgent: String, maxBodyBytes: Int) {
        self.userAgent = userAgent
        self.maxBodyBytes = maxBodyBytes
        self.share = CurlShare()
    }

    /// Drops the idle slots (closing their connections) and stops pooling returned ones.
    func close() {
        let dropped = idle.withLock { state in
            state.closed = true
            let slots = state.slots
            state.slots = []
            return slots
        }
        _ = dropped  // released here, outside the lock
    }

    private func checkOut() throws(HTTPTransportError) -> CurlConnectionSlot {
        // Most recently used first: it is the one most likely to hold a live connection.
        if let slot = idle.withLock({ $0.slots.popLast() }) {
            return slot
        }
        return try CurlConnectionSlot(share: share)
    }

    private func checkIn(_ slot: CurlConnectionSlot) {
        let dropped: CurlConnectionSlot? = idle.withLock { state in
            if state.closed { return slot }
            state.slots.append(slot)
            return nil
        }
        _ = dropped
    }

    /// Runs one GET to completion on the calling thread, which must not be a Swift concurrency
    /// or event-loop thread: it blocks for up to `timeoutMilliseconds`.
    ///
    /// - Throws: `CancellationError` if `cancellation` was triggered, `HTTPTransportError`
    ///   otherwise. Error messages come from libcurl's static error texts only, never from the URL.
    func perform(url: String, timeoutMilliseconds: Int, cancellation: CurlCancellation) throws -> HTTPResponse {
        if cancellation.isCancelled { throw CancellationError() }
        let slot = try checkOut()
        defer { checkIn(slot) }
        let state = CurlTransferState(maxBodyBytes: maxBodyBytes, cancellation: cancellation)
        return try withExtendedLifetime(state) {
            defer {
                // The idle handle must not keep pointers to this transfer's (soon freed) state.
                _ = weatherd_curl_setopt_pointer(slot.easy, CURLOPT_WRITEDATA, nil)
                _ = weatherd_curl_setopt_pointer(slot.easy, CURLOPT_HEADERDATA, nil)
                _ = weatherd_curl_setopt_pointer(slot.easy, CURLOPT_XFERINFODATA, nil)
            }
            try configure(slot.easy, url: url, timeoutMilliseconds: timeoutMilliseconds, state: state)
            let code = try run(slot, cancellation: cancellation)
            if cancellation.isCancelled && code != CURLE_OK { throw CancellationError() }
            if let error = Self.error(for: code, state: state) { throw error }
            var status = 0
            guard weatherd_curl_getinfo_long(slot.easy, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK else {
                throw HTTPTransportError(.other, "could not read the response status")
            }
            return HTTPResponse(status: status, headers: state.headers, body: state.body)
        }
    }

    /// Sets every option of the request. All of them are set on every request, because the
    /// handle is reused without `curl_easy_reset` (which would not be needed for the connection
    /// cache, but options must not leak from one request into the next).
    private func configure(
        _ easy: UnsafeMutableRawPointer, url: String, timeoutMilliseconds: Int, state: CurlTransferState
    ) throws(HTTPTransportError) {
        let context = Unmanaged.passUnretained(state).toOpaque()
        var code = CURLE_OK
        func set(_ result: CURLcode) {
            if code == CURLE_OK { code = result }
        }
        set(weatherd_curl_setopt_string(easy, CURLOPT_URL, url))
        set(weatherd_curl_setopt_long(easy, CURLOPT_HTTPGET, 1))
        set(weatherd_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        set(weatherd_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, timeoutMilliseconds))
        set(weatherd_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, min(timeoutMilliseconds, 5_000)))
        set(weatherd_curl_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""))
        set(weatherd_curl_setopt_string(easy, CURLOPT_USERAGENT, userAgent))
        set(weatherd_curl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(weatherd_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0))
        // A body announced larger than the limit fails before any of it is read (the write
        // callback below also stops one that comes without a Content-Length, or compressed).
        set(weatherd_curl_setopt_long(easy, CURLOPT_MAXFILESIZE, maxBodyBytes))
        set(weatherd_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, context))
        set(
            weatherd_curl_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
                guard let context else { return 0 }
                let state = Unmanaged<CurlTransferState>.fromOpaque(context).takeUnretainedValue()
                let length = size * count
                guard length > 0, let data else { return 0 }
                guard state.body.count + length <= state.maxBodyBytes else {
                    state.bodyTooLarge = true
                    return 0  // anything but `length` aborts the transfer with CURLE_WRITE_ERROR
                }
                state.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
                return length
            })
        set(weatherd_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, context))
        set(
            weatherd_curl_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
                guard let context else { return 0 }
                let state = Unmanaged<CurlTransferState>.fromOpaque(context).takeUnretainedValue()
                let length = size * count
                if let data {
                    state.addHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
                }
                return length
            })
        set(weatherd_curl_setopt_long(easy, CURLOPT_NOPROGRESS, 0))
        set(weatherd_curl_setopt_pointer(easy, CURLOPT_XFERINFODATA, context))
        set(
            weatherd_curl_setopt_xferinfo_callback(easy) { context, _, _, _, _ in
                guard let context else { return 0 }
                let state = Unmanaged<CurlTransferState>.fromOpaque(context).takeUnretainedValue()
                return state.cancellation.isCancelled ? 1 : 0  // non-zero aborts the transfer
            })
        if code != CURLE_OK {
            throw HTTPTransportError(.other, "could not configure the request: \(Self.text(of: code))")
        }
    }

    /// Drives the transfer until libcurl reports it done, or until it is cancelled.
    /// Returns libcurl's result code for the transfer.
    private func run(_ slot: CurlConnectionSlot, cancellation: CurlCancellation) throws(HTTPTransportError) -> CURLcode {
        let addCode = curl_multi_add_handle(slot.multi, slot.easy)
        guard addCode == CURLM_OK else {
            throw HTTPTransportError(.other, "could not start the transfer: \(Self.text(of: addCode))")
        }
        // Removing the handle mid-transfer (after a cancellation) makes libcurl close that connection.
        defer { curl_multi_remove_handle(slot.multi, slot.easy) }
        cancellation.attach(slot)
        defer { cancellation.detach() }

        var running: Int32 = 0
        while true {
            if cancellation.isCancelled { return CURLE_ABORTED_BY_CALLBACK }
            var multiCode = curl_multi_perform(slot.multi, &running)
            guard multiCode == CURLM_OK else {
                throw HTTPTransportError(.other, Self.text(of: multiCode))
            }
            var queued: Int32 = 0
            while let message = curl_multi_info_read(slot.multi, &queued) {
                if message.pointee.msg == CURLMSG_DONE {
                    return message.pointee.data.result
                }
            }
            if running == 0 {
                throw HTTPTransportError(.other, "transfer ended without a result")
            }
            // Returns on network activity, on libcurl's next timeout, or on curl_multi_wakeup.
            multiCode = curl_multi_poll(slot.multi, nil, 0, 1_000, nil)
            guard multiCode == CURLM_OK else {
                throw HTTPTransportError(.other, Self.text(of: multiCode))
            }
        }
    }

    private static func error(for code: CURLcode, state: CurlTransferState) -> HTTPTransportError? {
        switch code {
        case CURLE_OK:
            return nil
        case CURLE_OPERATION_TIMEDOUT:
            return HTTPTransportError(.timedOut, text(of: code))
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return HTTPTransportError(.connectionFailed, text(of: code))
        case CURLE_WRITE_ERROR where state.bodyTooLarge, CURLE_FILESIZE_EXCEEDED:
            return HTTPTransportError(.other, "response too large (more than \(state.maxBodyBytes) bytes)")
        default:
            return HTTPTransportError(.other, text(of: code))
        }
    }

    /// libcurl's fixed description of `code`; it never includes the URL.
    private static func text(of code: CURLcode) -> String {
        "curl error \(code.rawValue): \(String(cString: curl_easy_strerror(code)))"
    }

    private static func text(of code: CURLMcode) -> String {
        "curl multi error \(code.rawValue): \(String(cString: curl_multi_strerror(code)))"
    }
}
