import CCurl

/// Process-wide libcurl initialisation, performed exactly once.
enum CurlGlobal {
    /// Whether `curl_global_init` succeeded. Evaluating this the first time runs it; Swift
    /// initialises static lets once, thread-safely.
    static let initialized: Bool = weatherd_curl_global_init() == CURLE_OK
}
