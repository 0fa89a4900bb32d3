#ifndef WEATHERD_CMOSQUITTO_SHIM_H
#define WEATHERD_CMOSQUITTO_SHIM_H

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>

/*
 * weatherd drives libmosquitto's network loop itself, on one thread it owns: it waits on the
 * broker's socket and on an eventfd (the wakeup, a WakeFD: a new payload, a reply, shutdown) at once, so
 * a change is published at once and a shutdown never waits for a timeout.
 */

/*
 * Waits up to timeout_ms for the broker's socket or the wakeup, then does the network work due:
 * reads (callbacks run here), writes what is queued, keep-alive. Returns MOSQ_ERR_SUCCESS, or the
 * error that ended the connection (MOSQ_ERR_NO_CONN when there is no socket).
 */
static inline int weatherd_mqtt_step(struct mosquitto *mosq, int wakefd, int timeout_ms) {
    int sock = mosquitto_socket(mosq);
    struct pollfd fds[2] = {{wakefd, POLLIN, 0}, {sock, POLLIN, 0}};
    nfds_t count = sock >= 0 ? 2 : 1;
    if (sock >= 0 && mosquitto_want_write(mosq)) fds[1].events |= POLLOUT;
    int ready = poll(fds, count, timeout_ms);
    if (ready < 0 && errno != EINTR) return MOSQ_ERR_ERRNO;
    if (fds[0].revents & POLLIN) {
        uint64_t value;
        ssize_t got = read(wakefd, &value, sizeof value);
        (void)got;
    }
    if (sock < 0) return MOSQ_ERR_NO_CONN;
    int rc;
    if (ready > 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
        rc = mosquitto_loop_read(mosq, 1);
        if (rc != MOSQ_ERR_SUCCESS) return rc;
    }
    if (mosquitto_socket(mosq) >= 0 && mosquitto_want_write(mosq)) {
        rc = mosquitto_loop_write(mosq, 1);
        if (rc != MOSQ_ERR_SUCCESS) return rc;
    }
    return mosquitto_loop_misc(mosq);
}

/* Writes what is queued (after a publish on this thread), without waiting. */
static inline int weatherd_mqtt_flush(struct mosquitto *mosq) {
    if (mosquitto_socket(mosq) >= 0 && mosquitto_want_write(mosq)) return mosquitto_loop_write(mosq, 1);
    return MOSQ_ERR_SUCCESS;
}

/*
 * The MQTT 5 response topic and correlation data of a received message, copied (free() them);
 * NULL / 0 when absent.
 */
static inline void weatherd_mqtt_response_info(
    const mosquitto_property *props, char **response_topic, void **correlation, uint16_t *correlation_length
) {
    *response_topic = NULL;
    *correlation = NULL;
    *correlation_length = 0;
    if (props == NULL) return;
    mosquitto_property_read_string(props, MQTT_PROP_RESPONSE_TOPIC, response_topic, false);
    mosquitto_property_read_binary(props, MQTT_PROP_CORRELATION_DATA, correlation, correlation_length, false);
}

/* Publishes at QoS 1, with correlation data (MQTT 5) when given. */
static inline int weatherd_mqtt_publish(
    struct mosquitto *mosq, int *mid, const char *topic, const void *payload, int length, int retain,
    const void *correlation, uint16_t correlation_length
) {
    mosquitto_property *props = NULL;
    if (correlation != NULL && correlation_length > 0) {
        int rc = mosquitto_property_add_binary(&props, MQTT_PROP_CORRELATION_DATA, correlation, correlation_length);
        if (rc != MOSQ_ERR_SUCCESS) return rc;
    }
    int rc = mosquitto_publish_v5(mosq, mid, topic, length, payload, 1, retain != 0, props);
    mosquitto_property_free_all(&props);
    return rc;
}

#endif
