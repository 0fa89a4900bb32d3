/* The libmosquitto functions weatherd calls, each through the address weatherd_load_mosquitto found (see on_demand.h). */
#include "loader.h"
#include <mosquitto.h>

static __typeof__(&mosquitto_lib_init) weatherd_mosquitto_lib_init;
static __typeof__(&mosquitto_new) weatherd_mosquitto_new;
static __typeof__(&mosquitto_destroy) weatherd_mosquitto_destroy;
static __typeof__(&mosquitto_connack_string) weatherd_mosquitto_connack_string;
static __typeof__(&mosquitto_connect_async) weatherd_mosquitto_connect_async;
static __typeof__(&mosquitto_connect_v5_callback_set) weatherd_mosquitto_connect_v5_callback_set;
static __typeof__(&mosquitto_disconnect_v5) weatherd_mosquitto_disconnect_v5;
static __typeof__(&mosquitto_disconnect_v5_callback_set) weatherd_mosquitto_disconnect_v5_callback_set;
static __typeof__(&mosquitto_int_option) weatherd_mosquitto_int_option;
static __typeof__(&mosquitto_message_v5_callback_set) weatherd_mosquitto_message_v5_callback_set;
static __typeof__(&mosquitto_publish_v5_callback_set) weatherd_mosquitto_publish_v5_callback_set;
static __typeof__(&mosquitto_reason_string) weatherd_mosquitto_reason_string;
static __typeof__(&mosquitto_strerror) weatherd_mosquitto_strerror;
static __typeof__(&mosquitto_subscribe_multiple) weatherd_mosquitto_subscribe_multiple;
static __typeof__(&mosquitto_subscribe_v5) weatherd_mosquitto_subscribe_v5;
static __typeof__(&mosquitto_subscribe_v5_callback_set) weatherd_mosquitto_subscribe_v5_callback_set;
static __typeof__(&mosquitto_tls_insecure_set) weatherd_mosquitto_tls_insecure_set;
static __typeof__(&mosquitto_tls_opts_set) weatherd_mosquitto_tls_opts_set;
static __typeof__(&mosquitto_tls_set) weatherd_mosquitto_tls_set;
static __typeof__(&mosquitto_user_data_set) weatherd_mosquitto_user_data_set;
static __typeof__(&mosquitto_username_pw_set) weatherd_mosquitto_username_pw_set;
static __typeof__(&mosquitto_will_set_v5) weatherd_mosquitto_will_set_v5;
static __typeof__(&mosquitto_socket) weatherd_mosquitto_socket;
static __typeof__(&mosquitto_want_write) weatherd_mosquitto_want_write;
static __typeof__(&mosquitto_loop_read) weatherd_mosquitto_loop_read;
static __typeof__(&mosquitto_loop_write) weatherd_mosquitto_loop_write;
static __typeof__(&mosquitto_loop_misc) weatherd_mosquitto_loop_misc;
static __typeof__(&mosquitto_property_read_string) weatherd_mosquitto_property_read_string;
static __typeof__(&mosquitto_property_read_binary) weatherd_mosquitto_property_read_binary;
static __typeof__(&mosquitto_property_add_binary) weatherd_mosquitto_property_add_binary;
static __typeof__(&mosquitto_publish_v5) weatherd_mosquitto_publish_v5;
static __typeof__(&mosquitto_property_free_all) weatherd_mosquitto_property_free_all;

static const weatherd_symbol symbols[] = {
    {"mosquitto_lib_init", (void **)&weatherd_mosquitto_lib_init},
    {"mosquitto_new", (void **)&weatherd_mosquitto_new},
    {"mosquitto_destroy", (void **)&weatherd_mosquitto_destroy},
    {"mosquitto_connack_string", (void **)&weatherd_mosquitto_connack_string},
    {"mosquitto_connect_async", (void **)&weatherd_mosquitto_connect_async},
    {"mosquitto_connect_v5_callback_set", (void **)&weatherd_mosquitto_connect_v5_callback_set},
    {"mosquitto_disconnect_v5", (void **)&weatherd_mosquitto_disconnect_v5},
    {"mosquitto_disconnect_v5_callback_set", (void **)&weatherd_mosquitto_disconnect_v5_callback_set},
    {"mosquitto_int_option", (void **)&weatherd_mosquitto_int_option},
    {"mosquitto_message_v5_callback_set", (void **)&weatherd_mosquitto_message_v5_callback_set},
    {"mosquitto_publish_v5_callback_set", (void **)&weatherd_mosquitto_publish_v5_callback_set},
    {"mosquitto_reason_string", (void **)&weatherd_mosquitto_reason_string},
    {"mosquitto_strerror", (void **)&weatherd_mosquitto_strerror},
    {"mosquitto_subscribe_multiple", (void **)&weatherd_mosquitto_subscribe_multiple},
    {"mosquitto_subscribe_v5", (void **)&weatherd_mosquitto_subscribe_v5},
    {"mosquitto_subscribe_v5_callback_set", (void **)&weatherd_mosquitto_subscribe_v5_callback_set},
    {"mosquitto_tls_insecure_set", (void **)&weatherd_mosquitto_tls_insecure_set},
    {"mosquitto_tls_opts_set", (void **)&weatherd_mosquitto_tls_opts_set},
    {"mosquitto_tls_set", (void **)&weatherd_mosquitto_tls_set},
    {"mosquitto_user_data_set", (void **)&weatherd_mosquitto_user_data_set},
    {"mosquitto_username_pw_set", (void **)&weatherd_mosquitto_username_pw_set},
    {"mosquitto_will_set_v5", (void **)&weatherd_mosquitto_will_set_v5},
    {"mosquitto_socket", (void **)&weatherd_mosquitto_socket},
    {"mosquitto_want_write", (void **)&weatherd_mosquitto_want_write},
    {"mosquitto_loop_read", (void **)&weatherd_mosquitto_loop_read},
    {"mosquitto_loop_write", (void **)&weatherd_mosquitto_loop_write},
    {"mosquitto_loop_misc", (void **)&weatherd_mosquitto_loop_misc},
    {"mosquitto_property_read_string", (void **)&weatherd_mosquitto_property_read_string},
    {"mosquitto_property_read_binary", (void **)&weatherd_mosquitto_property_read_binary},
    {"mosquitto_property_add_binary", (void **)&weatherd_mosquitto_property_add_binary},
    {"mosquitto_publish_v5", (void **)&weatherd_mosquitto_publish_v5},
    {"mosquitto_property_free_all", (void **)&weatherd_mosquitto_property_free_all},
};

int weatherd_load_mosquitto(char *error, size_t size) {
    static weatherd_library library = WEATHERD_LIBRARY("libmosquitto.so.1", "libmosquitto1");
    return weatherd_library_load(&library, symbols, sizeof symbols / sizeof *symbols, error, size);
}

#define WEATHERD_LOADER weatherd_load_mosquitto

WEATHERD_STUB int mosquitto_lib_init(void) {
    return WEATHERD_CALL(mosquitto_lib_init)();
}

WEATHERD_STUB struct mosquitto * mosquitto_new(const char *id, bool clean_session, void *obj) {
    return WEATHERD_CALL(mosquitto_new)(id, clean_session, obj);
}

WEATHERD_STUB void mosquitto_destroy(struct mosquitto *mosq) {
    WEATHERD_CALL(mosquitto_destroy)(mosq);
}

WEATHERD_STUB const char * mosquitto_connack_string(int connack_code) {
    return WEATHERD_CALL(mosquitto_connack_string)(connack_code);
}

WEATHERD_STUB int mosquitto_connect_async(struct mosquitto *mosq, const char *host, int port, int keepalive) {
    return WEATHERD_CALL(mosquitto_connect_async)(mosq, host, port, keepalive);
}

WEATHERD_STUB void mosquitto_connect_v5_callback_set(struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int, int, const mosquitto_property *props)) {
    WEATHERD_CALL(mosquitto_connect_v5_callback_set)(mosq, on_connect);
}

WEATHERD_STUB int mosquitto_disconnect_v5(struct mosquitto *mosq, int reason_code, const mosquitto_property *properties) {
    return WEATHERD_CALL(mosquitto_disconnect_v5)(mosq, reason_code, properties);
}

WEATHERD_STUB void mosquitto_disconnect_v5_callback_set(struct mosquitto *mosq, void (*on_disconnect)(struct mosquitto *, void *, int, const mosquitto_property *props)) {
    WEATHERD_CALL(mosquitto_disconnect_v5_callback_set)(mosq, on_disconnect);
}

WEATHERD_STUB int mosquitto_int_option(struct mosquitto *mosq, enum mosq_opt_t option, int value) {
    return WEATHERD_CALL(mosquitto_int_option)(mosq, option, value);
}

WEATHERD_STUB void mosquitto_message_v5_callback_set(struct mosquitto *mosq, void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *, const mosquitto_property *props)) {
    WEATHERD_CALL(mosquitto_message_v5_callback_set)(mosq, on_message);
}

WEATHERD_STUB void mosquitto_publish_v5_callback_set(struct mosquitto *mosq, void (*on_publish)(struct mosquitto *, void *, int, int, const mosquitto_property *props)) {
    WEATHERD_CALL(mosquitto_publish_v5_callback_set)(mosq, on_publish);
}

WEATHERD_STUB const char * mosquitto_reason_string(int reason_code) {
    return WEATHERD_CALL(mosquitto_reason_string)(reason_code);
}

WEATHERD_STUB const char * mosquitto_strerror(int mosq_errno) {
    return WEATHERD_CALL(mosquitto_strerror)(mosq_errno);
}

WEATHERD_STUB int mosquitto_subscribe_multiple(struct mosquitto *mosq, int *mid, int sub_count, char *const *const sub, int qos, int options, const mosquitto_property *properties) {
    return WEATHERD_CALL(mosquitto_subscribe_multiple)(mosq, mid, sub_count, sub, qos, options, properties);
}

WEATHERD_STUB int mosquitto_subscribe_v5(struct mosquitto *mosq, int *mid, const char *sub, int qos, int options, const mosquitto_property *properties) {
    return WEATHERD_CALL(mosquitto_subscribe_v5)(mosq, mid, sub, qos, options, properties);
}

WEATHERD_STUB void mosquitto_subscribe_v5_callback_set(struct mosquitto *mosq, void (*on_subscribe)(struct mosquitto *, void *, int, int, const int *, const mosquitto_property *props)) {
    WEATHERD_CALL(mosquitto_subscribe_v5_callback_set)(mosq, on_subscribe);
}

WEATHERD_STUB int mosquitto_tls_insecure_set(struct mosquitto *mosq, bool value) {
    return WEATHERD_CALL(mosquitto_tls_insecure_set)(mosq, value);
}

WEATHERD_STUB int mosquitto_tls_opts_set(struct mosquitto *mosq, int cert_reqs, const char *tls_version, const char *ciphers) {
    return WEATHERD_CALL(mosquitto_tls_opts_set)(mosq, cert_reqs, tls_version, ciphers);
}

WEATHERD_STUB int mosquitto_tls_set(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, const char *keyfile, int (*pw_callback)(char *buf, int size, int rwflag, void *userdata)) {
    return WEATHERD_CALL(mosquitto_tls_set)(mosq, cafile, capath, certfile, keyfile, pw_callback);
}

WEATHERD_STUB void mosquitto_user_data_set(struct mosquitto *mosq, void *obj) {
    WEATHERD_CALL(mosquitto_user_data_set)(mosq, obj);
}

WEATHERD_STUB int mosquitto_username_pw_set(struct mosquitto *mosq, const char *username, const char *password) {
    return WEATHERD_CALL(mosquitto_username_pw_set)(mosq, username, password);
}

WEATHERD_STUB int mosquitto_will_set_v5(struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos, bool retain, mosquitto_property *properties) {
    return WEATHERD_CALL(mosquitto_will_set_v5)(mosq, topic, payloadlen, payload, qos, retain, properties);
}

WEATHERD_STUB int mosquitto_socket(struct mosquitto *mosq) {
    return WEATHERD_CALL(mosquitto_socket)(mosq);
}

WEATHERD_STUB bool mosquitto_want_write(struct mosquitto *mosq) {
    return WEATHERD_CALL(mosquitto_want_write)(mosq);
}

WEATHERD_STUB int mosquitto_loop_read(struct mosquitto *mosq, int max_packets) {
    return WEATHERD_CALL(mosquitto_loop_read)(mosq, max_packets);
}

WEATHERD_STUB int mosquitto_loop_write(struct mosquitto *mosq, int max_packets) {
    return WEATHERD_CALL(mosquitto_loop_write)(mosq, max_packets);
}

WEATHERD_STUB int mosquitto_loop_misc(struct mosquitto *mosq) {
    return WEATHERD_CALL(mosquitto_loop_misc)(mosq);
}

WEATHERD_STUB const mosquitto_property * mosquitto_property_read_string(const mosquitto_property *proplist, int identifier, char **value, bool skip_first) {
    return WEATHERD_CALL(mosquitto_property_read_string)(proplist, identifier, value, skip_first);
}

WEATHERD_STUB const mosquitto_property * mosquitto_property_read_binary(const mosquitto_property *proplist, int identifier, void **value, uint16_t *len, bool skip_first) {
    return WEATHERD_CALL(mosquitto_property_read_binary)(proplist, identifier, value, len, skip_first);
}

WEATHERD_STUB int mosquitto_property_add_binary(mosquitto_property **proplist, int identifier, const void *value, uint16_t len) {
    return WEATHERD_CALL(mosquitto_property_add_binary)(proplist, identifier, value, len);
}

WEATHERD_STUB int mosquitto_publish_v5(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos, bool retain, const mosquitto_property *properties) {
    return WEATHERD_CALL(mosquitto_publish_v5)(mosq, mid, topic, payloadlen, payload, qos, retain, properties);
}

WEATHERD_STUB void mosquitto_property_free_all(mosquitto_property **properties) {
    WEATHERD_CALL(mosquitto_property_free_all)(properties);
}
