#ifndef WEATHERD_ON_DEMAND_H
#define WEATHERD_ON_DEMAND_H

#include <stddef.h>

/*
 * The C libraries only some configurations use, loaded on first use instead of at every start:
 * libmosquitto (for [mqtt] and OwnTracks over MQTT, with OpenSSL's libssl, which it loads) and
 * libsodium (for OwnTracks' encrypted payloads). A daemon that uses neither does not map them:
 * 0.45 MB of its idle memory. (libsystemd, for GeoClue's sd-bus, is linked: libgps loads it anyway,
 * through libdbus.)
 *
 * weatherd calls these libraries' functions by their own names, declared by their own headers
 * (the CMosquitto and CSodium modules); this target defines those names, each calling the
 * library's function through a pointer that `weatherd_load_*` fills, with `dlopen` and `dlsym`.
 * So each feature calls its `weatherd_load_*` once before its first call of the library, on any
 * thread: 0 when the library is there (then and on every later call), else -1 with the reason in
 * `error` (the same reason on every later call). A library's function called first loads its
 * library, and aborts the process with the reason if it cannot.
 */
int weatherd_load_mosquitto(char *error, size_t size);
int weatherd_load_sodium(char *error, size_t size);

#endif
