#ifndef WEATHERD_CSODIUM_SHIM_H
#define WEATHERD_CSODIUM_SHIM_H

/*
 * libsodium, for the OwnTracks app's encrypted payloads: crypto_secretbox (XSalsa20-Poly1305), as
 * the app seals them. weatherd only opens them; it never writes cryptography of its own.
 */
#include <sodium.h>

#endif
