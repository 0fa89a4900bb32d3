#ifndef WEATHERD_CCURL_SHIM_H
#define WEATHERD_CCURL_SHIM_H

#include <curl/curl.h>
#include <dlfcn.h>

/*
 * curl_easy_setopt, curl_easy_getinfo and curl_share_setopt are variadic and cannot be called
 * from Swift. These typed wrappers cover exactly the argument types weatherd needs.
 */

/*
 * Debian's libcurl links libssh2 (for scp:// and sftp://), and curl_global_init calls libssh2_init, which
 * initialises OpenSSL's libcrypto (its configuration file, its providers): some 1.5 MB of libcrypto made
 * resident for nothing, as weatherd's transfers allow http and https only (CURLOPT_PROTOCOLS_STR).
 * libssh2_init initialises its crypto at its first call only, and not when told LIBSSH2_INIT_NO_CRYPTO: so,
 * when the libcurl loaded links libssh2, it is called first, so told. (OpenSSL would initialise itself at
 * its first use.) A libcurl without libssh2 leaves the symbol undefined, and this step out.
 */
static inline CURLcode weatherd_curl_global_init(void) {
    int (*libssh2_init)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "libssh2_init");
    if (libssh2_init != NULL) {
        (void)libssh2_init(0x0001 /* LIBSSH2_INIT_NO_CRYPTO, libssh2.h */);
    }
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

static inline CURLcode weatherd_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode weatherd_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode weatherd_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/* For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION, which share a prototype. */
static inline CURLcode weatherd_curl_setopt_write_callback(CURL *handle, CURLoption option,
                                                           curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode weatherd_curl_setopt_xferinfo_callback(CURL *handle,
                                                              curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

static inline CURLcode weatherd_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLSHcode weatherd_curl_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
    return curl_share_setopt(share, option, value);
}

static inline CURLSHcode weatherd_curl_share_setopt_pointer(CURLSH *share, CURLSHoption option, void *value) {
    return curl_share_setopt(share, option, value);
}

static inline CURLSHcode weatherd_curl_share_setopt_lock(CURLSH *share, curl_lock_function lock) {
    return curl_share_setopt(share, CURLSHOPT_LOCKFUNC, lock);
}

static inline CURLSHcode weatherd_curl_share_setopt_unlock(CURLSH *share, curl_unlock_function unlock) {
    return curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, unlock);
}

#endif
