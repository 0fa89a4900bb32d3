#ifndef WEATHERD_CSDBUS_SHIM_H
#define WEATHERD_CSDBUS_SHIM_H

/*
 * GeoClue2 over sd-bus (libsystemd), in the few calls weatherd makes. sd-bus's message functions
 * are variadic and its object tables are macros, neither of which Swift can use, so what touches a
 * message lives here; the conversation's order and its decisions are in Swift.
 *
 * Everything here runs on the one thread that owns the bus. No call blocks without also watching
 * `wake_fd` (an eventfd): when it is readable the call returns -ECANCELED at once. While a call
 * waits for its reply the bus keeps being processed, so GeoClue's calls to weatherd's agent (it
 * reads MaxAccuracyLevel while AddAgent is pending, and may ask AuthorizeApp during Start) are
 * answered: a plain blocking sd_bus_call would deadlock there.
 */

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-bus.h>

#define WEATHERD_GEOCLUE_SERVICE "org.freedesktop.GeoClue2"
#define WEATHERD_GEOCLUE_MANAGER_PATH "/org/freedesktop/GeoClue2/Manager"
#define WEATHERD_GEOCLUE_AGENT_PATH "/org/freedesktop/GeoClue2/Agent"

/* What weatherd's agent answers with: only its own desktop id is authorized. */
typedef struct {
    char desktop_id[256];
    uint32_t max_accuracy_level;
} weatherd_geoclue_agent;

/* What the bus's signals brought since the caller last looked. */
typedef struct {
    /* The newest Location object of LocationUpdated (malloc'd; the caller frees it), or NULL. */
    char *location_path;
    /* GeoClue's bus name changed owner (it exited, or was replaced): its client is gone. */
    int service_changed;
} weatherd_geoclue_events;

/* One position of a Location object. */
typedef struct {
    double latitude;
    double longitude;
    double accuracy;         /* metres */
    uint64_t timestamp_sec;  /* since the epoch; 0 when GeoClue gave none */
    uint64_t timestamp_usec;
} weatherd_geoclue_location;

static inline int weatherd_geoclue_authorize_app(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    const weatherd_geoclue_agent *agent = userdata;
    const char *desktop_id = NULL;
    uint32_t level = 0;
    int r = sd_bus_message_read(m, "su", &desktop_id, &level);
    if (r < 0) return r;
    int own = desktop_id != NULL && strcmp(desktop_id, agent->desktop_id) == 0;
    uint32_t allowed = level < agent->max_accuracy_level ? level : agent->max_accuracy_level;
    return sd_bus_reply_method_return(m, "bu", own, own ? allowed : 0);
}

static inline int weatherd_geoclue_max_accuracy_level(
    sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply, void *userdata,
    sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)property; (void)error;
    const weatherd_geoclue_agent *agent = userdata;
    return sd_bus_message_append(reply, "u", agent->max_accuracy_level);
}

static const sd_bus_vtable weatherd_geoclue_agent_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("MaxAccuracyLevel", "u", weatherd_geoclue_max_accuracy_level, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_METHOD("AuthorizeApp", "su", "bu", weatherd_geoclue_authorize_app, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END};

/* Serves org.freedesktop.GeoClue2.Agent at /org/freedesktop/GeoClue2/Agent; `agent` must outlive the bus. */
static inline int weatherd_geoclue_serve_agent(sd_bus *bus, weatherd_geoclue_agent *agent) {
    return sd_bus_add_object_vtable(
        bus, NULL, WEATHERD_GEOCLUE_AGENT_PATH, "org.freedesktop.GeoClue2.Agent", weatherd_geoclue_agent_vtable, agent);
}

/*
 * Processes what the bus has, else waits for the bus or `wake_fd`: 0 when something may have
 * happened (look again), -ECANCELED when woken, another negative errno when the bus ended.
 */
static inline int weatherd_bus_step(sd_bus *bus, int wake_fd) {
    int r = sd_bus_process(bus, NULL);
    if (r != 0) return r < 0 ? r : 0;
    struct pollfd fds[2] = {{.fd = sd_bus_get_fd(bus), .events = (short)sd_bus_get_events(bus)}, {.fd = wake_fd, .events = POLLIN}};
    if (fds[0].fd < 0) return fds[0].fd;
    int timeout = -1;
    uint64_t until = 0;
    if (sd_bus_get_timeout(bus, &until) >= 0 && until != UINT64_MAX) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        uint64_t now_usec = (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
        timeout = until <= now_usec ? 0 : (int)((until - now_usec + 999) / 1000);
    }
    r = poll(fds, 2, timeout);
    if (r < 0) return errno == EINTR ? 0 : -errno;
    if (fds[1].revents != 0) return -ECANCELED;
    return 0;
}

typedef struct {
    int done;
    sd_bus_message *reply;
} weatherd_bus_pending;

static inline int weatherd_bus_on_reply(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    weatherd_bus_pending *pending = userdata;
    pending->done = 1;
    pending->reply = sd_bus_message_ref(m);
    return 1;
}

/*
 * Sends `m` and processes the bus until its reply (0, `*reply` set: the caller unrefs it), an error
 * reply (its errno, `error` filled), the bus ending or `wake_fd` (a negative errno).
 */
static inline int weatherd_bus_call(sd_bus *bus, sd_bus_message *m, int wake_fd, sd_bus_message **reply, sd_bus_error *error) {
    weatherd_bus_pending pending = {0, NULL};
    sd_bus_slot *slot = NULL;
    int r = sd_bus_call_async(bus, &slot, m, weatherd_bus_on_reply, &pending, 0);
    if (r < 0) return r;
    while (!pending.done) {
        r = weatherd_bus_step(bus, wake_fd);
        if (r < 0) {
            sd_bus_slot_unref(slot);
            return r;
        }
    }
    sd_bus_slot_unref(slot);
    if (sd_bus_message_is_method_error(pending.reply, NULL)) {
        r = sd_bus_error_copy(error, sd_bus_message_get_error(pending.reply));
        sd_bus_message_unref(pending.reply);
        return r < 0 ? r : -EIO;
    }
    if (reply != NULL) *reply = pending.reply;
    else sd_bus_message_unref(pending.reply);
    return 0;
}

static inline int weatherd_geoclue_new_call(sd_bus *bus, sd_bus_message **m, const char *path, const char *interface, const char *member) {
    return sd_bus_message_new_method_call(bus, m, WEATHERD_GEOCLUE_SERVICE, path, interface, member);
}

/* Manager.AddAgent(desktop_id). */
static inline int weatherd_geoclue_add_agent(sd_bus *bus, int wake_fd, const char *desktop_id, sd_bus_error *error) {
    sd_bus_message *m = NULL;
    int r = weatherd_geoclue_new_call(bus, &m, WEATHERD_GEOCLUE_MANAGER_PATH, "org.freedesktop.GeoClue2.Manager", "AddAgent");
    if (r >= 0) r = sd_bus_message_append(m, "s", desktop_id);
    if (r >= 0) r = weatherd_bus_call(bus, m, wake_fd, NULL, error);
    sd_bus_message_unref(m);
    return r;
}

/* Manager.GetClient(): the client's object path in `*path` (malloc'd; the caller frees it). */
static inline int weatherd_geoclue_get_client(sd_bus *bus, int wake_fd, char **path, sd_bus_error *error) {
    sd_bus_message *m = NULL, *reply = NULL;
    int r = weatherd_geoclue_new_call(bus, &m, WEATHERD_GEOCLUE_MANAGER_PATH, "org.freedesktop.GeoClue2.Manager", "GetClient");
    if (r >= 0) r = weatherd_bus_call(bus, m, wake_fd, &reply, error);
    sd_bus_message_unref(m);
    if (r < 0) return r;
    const char *object = NULL;
    r = sd_bus_message_read(reply, "o", &object);
    if (r >= 0) {
        *path = strdup(object);
        r = *path == NULL ? -ENOMEM : 0;
    }
    sd_bus_message_unref(reply);
    return r;
}

/* Sets the client's DesktopId (a string) and RequestedAccuracyLevel (a uint32). */
static inline int weatherd_geoclue_configure_client(
    sd_bus *bus, int wake_fd, const char *client, const char *desktop_id, uint32_t accuracy_level, sd_bus_error *error) {
    sd_bus_message *m = NULL;
    int r = weatherd_geoclue_new_call(bus, &m, client, "org.freedesktop.DBus.Properties", "Set");
    if (r >= 0) r = sd_bus_message_append(m, "ssv", "org.freedesktop.GeoClue2.Client", "DesktopId", "s", desktop_id);
    if (r >= 0) r = weatherd_bus_call(bus, m, wake_fd, NULL, error);
    sd_bus_message_unref(m);
    if (r < 0) return r;
    m = NULL;
    r = weatherd_geoclue_new_call(bus, &m, client, "org.freedesktop.DBus.Properties", "Set");
    if (r >= 0) r = sd_bus_message_append(m, "ssv", "org.freedesktop.GeoClue2.Client", "RequestedAccuracyLevel", "u", accuracy_level);
    if (r >= 0) r = weatherd_bus_call(bus, m, wake_fd, NULL, error);
    sd_bus_message_unref(m);
    return r;
}

static inline int weatherd_geoclue_on_location_updated(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    weatherd_geoclue_events *events = userdata;
    const char *old_path = NULL, *new_path = NULL;
    if (sd_bus_message_read(m, "oo", &old_path, &new_path) < 0 || new_path == NULL) return 0;
    char *copy = strdup(new_path);
    if (copy == NULL) return 0;
    free(events->location_path);
    events->location_path = copy;
    return 0;
}

static inline int weatherd_geoclue_on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)m; (void)error;
    ((weatherd_geoclue_events *)userdata)->service_changed = 1;
    return 0;
}

/*
 * Watches GeoClue's name (its owner changing ends the client) and the client's LocationUpdated
 * signals, into `events` (which must outlive the bus). The matches are added without waiting for
 * the bus daemon's answer; they are in force before any later call's reply.
 */
static inline int weatherd_geoclue_watch(sd_bus *bus, const char *client, weatherd_geoclue_events *events) {
    int r = sd_bus_add_match_async(
        bus, NULL,
        "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
        "member='NameOwnerChanged',arg0='" WEATHERD_GEOCLUE_SERVICE "'",
        weatherd_geoclue_on_owner_changed, NULL, events);
    if (r < 0) return r;
    return sd_bus_match_signal_async(
        bus, NULL, NULL, client, "org.freedesktop.GeoClue2.Client", "LocationUpdated", weatherd_geoclue_on_location_updated,
        NULL, events);
}

/* Client.Start(). */
static inline int weatherd_geoclue_start(sd_bus *bus, int wake_fd, const char *client, sd_bus_error *error) {
    sd_bus_message *m = NULL;
    int r = weatherd_geoclue_new_call(bus, &m, client, "org.freedesktop.GeoClue2.Client", "Start");
    if (r >= 0) r = weatherd_bus_call(bus, m, wake_fd, NULL, error);
    sd_bus_message_unref(m);
    return r;
}

/* Reads a Location object's Latitude, Longitude, Accuracy and Timestamp (one GetAll). */
static inline int weatherd_geoclue_read_location(
    sd_bus *bus, int wake_fd, const char *path, weatherd_geoclue_location *location, sd_bus_error *error) {
    sd_bus_message *m = NULL, *reply = NULL;
    int r = weatherd_geoclue_new_call(bus, &m, path, "org.freedesktop.DBus.Properties", "GetAll");
    if (r >= 0) r = sd_bus_message_append(m, "s", "org.freedesktop.GeoClue2.Location");
    if (r >= 0) r = weatherd_bus_call(bus, m, wake_fd, &reply, error);
    sd_bus_message_unref(m);
    if (r < 0) return r;
    memset(location, 0, sizeof *location);
    int seen = 0;
    r = sd_bus_message_enter_container(reply, SD_BUS_TYPE_ARRAY, "{sv}");
    while (r >= 0 && (r = sd_bus_message_enter_container(reply, SD_BUS_TYPE_DICT_ENTRY, "sv")) > 0) {
        const char *name = NULL;
        r = sd_bus_message_read(reply, "s", &name);
        if (r < 0) break;
        if (strcmp(name, "Latitude") == 0) {
            r = sd_bus_message_read(reply, "v", "d", &location->latitude);
            seen |= 1;
        } else if (strcmp(name, "Longitude") == 0) {
            r = sd_bus_message_read(reply, "v", "d", &location->longitude);
            seen |= 2;
        } else if (strcmp(name, "Accuracy") == 0) {
            r = sd_bus_message_read(reply, "v", "d", &location->accuracy);
            seen |= 4;
        } else if (strcmp(name, "Timestamp") == 0) {
            r = sd_bus_message_read(reply, "v", "(tt)", &location->timestamp_sec, &location->timestamp_usec);
        } else {
            r = sd_bus_message_skip(reply, "v");
        }
        if (r < 0) break;
        r = sd_bus_message_exit_container(reply);
    }
    if (r >= 0) r = sd_bus_message_exit_container(reply);
    sd_bus_message_unref(reply);
    if (r < 0) return r;
    return seen == 7 ? 0 : -EBADMSG;
}

/* Whether the error name is `name`. */
static inline int weatherd_bus_error_is(const sd_bus_error *error, const char *name) {
    return sd_bus_error_has_name(error, name);
}

#endif
