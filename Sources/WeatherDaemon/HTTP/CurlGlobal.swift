import CCurl

/// Process-wide libcurl initialisation, performed exactly once.
enum CurlGlobal {
    /// Whether `curl_global_init` succeeded. Evaluating this the first time runs it (after telling
    /// libssh2 to leave OpenSSL uninitialised: `weatherd_curl_global_init` in CCurl's shim.h); Swift
    /// initialises static lets once, thread-safely.
    static let initialized: Bool = weatherd_curl_global_init() == CURLE_OK
}
