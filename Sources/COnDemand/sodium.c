/* The libsodium functions weatherd calls, each through the address weatherd_load_sodium found (see on_demand.h). */
#include "loader.h"
/* Its functions are defined here, hidden: not with the default visibility its header gives them. */
#define SODIUM_STATIC 1
#include <sodium.h>

static __typeof__(&sodium_init) weatherd_sodium_init;
static __typeof__(&crypto_secretbox_keybytes) weatherd_crypto_secretbox_keybytes;
static __typeof__(&crypto_secretbox_noncebytes) weatherd_crypto_secretbox_noncebytes;
static __typeof__(&crypto_secretbox_macbytes) weatherd_crypto_secretbox_macbytes;
static __typeof__(&crypto_secretbox_open_easy) weatherd_crypto_secretbox_open_easy;

static const weatherd_symbol symbols[] = {
    {"sodium_init", (void **)&weatherd_sodium_init},
    {"crypto_secretbox_keybytes", (void **)&weatherd_crypto_secretbox_keybytes},
    {"crypto_secretbox_noncebytes", (void **)&weatherd_crypto_secretbox_noncebytes},
    {"crypto_secretbox_macbytes", (void **)&weatherd_crypto_secretbox_macbytes},
    {"crypto_secretbox_open_easy", (void **)&weatherd_crypto_secretbox_open_easy},
};

int weatherd_load_sodium(char *error, size_t size) {
    static weatherd_library library = WEATHERD_LIBRARY("libsodium.so.23", "libsodium23");
    return weatherd_library_load(&library, symbols, sizeof symbols / sizeof *symbols, error, size);
}

#define WEATHERD_LOADER weatherd_load_sodium

WEATHERD_STUB int sodium_init(void) {
    return WEATHERD_CALL(sodium_init)();
}

WEATHERD_STUB size_t crypto_secretbox_keybytes(void) {
    return WEATHERD_CALL(crypto_secretbox_keybytes)();
}

WEATHERD_STUB size_t crypto_secretbox_noncebytes(void) {
    return WEATHERD_CALL(crypto_secretbox_noncebytes)();
}

WEATHERD_STUB size_t crypto_secretbox_macbytes(void) {
    return WEATHERD_CALL(crypto_secretbox_macbytes)();
}

WEATHERD_STUB int crypto_secretbox_open_easy(unsigned char *m, const unsigned char *c, unsigned long long clen, const unsigned char *n, const unsigned char *k) {
    return WEATHERD_CALL(crypto_secretbox_open_easy)(m, c, clen, n, k);
}
