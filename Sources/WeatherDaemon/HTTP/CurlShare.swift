import CCurl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A libcurl share handle holding the DNS cache and TLS session cache of all of a transport's
/// easy handles, with the locking libcurl needs to use it from several threads.
///
/// The connection cache is deliberately *not* shared: libcurl does not support sharing
/// connections between concurrently running threads. Each ``CurlConnectionSlot`` keeps its own.
///
/// Easy handles using the share hold a strong reference to it, so it is cleaned up only after
/// every one of them (as `curl_share_cleanup` requires).
final class CurlShare: @unchecked Sendable {
    // @unchecked: the handle is only configured in init; afterwards libcurl serialises all access
    // to the shared data through the lock callbacks below.
    let handle: UnsafeMutableRawPointer
    private let mutexes: UnsafeMutablePointer<pthread_mutex_t>
    private let mutexCount: Int

    /// Creates the share handle, or returns nil if libcurl cannot.
    init?() {
        guard let handle = curl_share_init() else { return nil }
        self.handle = handle
        self.mutexCount = Int(CURL_LOCK_DATA_LAST.rawValue) + 1
        self.mutexes = .allocate(capacity: mutexCount)
        for index in 0..<mutexCount {
            pthread_mutex_init(mutexes + index, nil)
        }
        var ok = weatherd_curl_share_setopt_pointer(handle, CURLSHOPT_USERDATA, UnsafeMutableRawPointer(mutexes)) == CURLSHE_OK
        ok =
            ok
            && weatherd_curl_share_setopt_lock(handle) { _, data, _, userData in
                guard let userData else { return }
                let mutexes = userData.assumingMemoryBound(to: pthread_mutex_t.self)
                pthread_mutex_lock(mutexes + Int(data.rawValue))
            } == CURLSHE_OK
        ok =
            ok
            && weatherd_curl_share_setopt_unlock(handle) { _, data, userData in
                guard let userData else { return }
                let mutexes = userData.assumingMemoryBound(to: pthread_mutex_t.self)
                pthread_mutex_unlock(mutexes + Int(data.rawValue))
            } == CURLSHE_OK
        ok = ok && weatherd_curl_share_setopt_long(handle, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue)) == CURLSHE_OK
        ok = ok && weatherd_curl_share_setopt_long(handle, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue)) == CURLSHE_OK
        guard ok else { return nil }
    }

    deinit {
        curl_share_cleanup(handle)
        for index in 0..<mutexCount {
            pthread_mutex_destroy(mutexes + index)
        }
        mutexes.deallocate()
    }
}
