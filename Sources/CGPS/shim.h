#ifndef WEATHERD_CGPS_SHIM_H
#define WEATHERD_CGPS_SHIM_H

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <stdint.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <gps.h>

/*
 * A flat view of what one gps_read() brought, so Swift never has to interpret gps_data_t's masks
 * and unions. libgps resets gps_data_t.set only for TPV reports, so weatherd clears it before each
 * read and looks only at what that read set.
 */
typedef struct {
    int has_mode;   /* MODE_SET: a TPV report */
    int mode;       /* MODE_NOT_SEEN 0, MODE_NO_FIX 1, MODE_2D 2, MODE_3D 3 */
    int has_position;
    double latitude;
    double longitude;
    double eph;     /* metres; NaN when unknown */
} weatherd_gps_report;

/* gps_data_t is about 24 KB: it lives on the heap, owned by the reader. */
static inline struct gps_data_t *weatherd_gps_allocate(void) {
    return (struct gps_data_t *)calloc(1, sizeof(struct gps_data_t));
}

/*
 * Connects, asks for JSON reports, and makes the socket non-blocking: weatherd_gps_next() drains libgps
 * with gps_read() alone, never through gps_waiting() (which select()s, and select() aborts the process for
 * a descriptor of FD_SETSIZE or more, which a daemon with many clients reaches).
 */
static inline int weatherd_gps_open(struct gps_data_t *data, const char *host, const char *port) {
    errno = 0;
    if (gps_open(host, port, data) != 0) return -1;
    if (gps_stream(data, WATCH_ENABLE | WATCH_JSON, NULL) < 0) {
        gps_close(data);
        return -1;
    }
    int flags = fcntl(data->gps_fd, F_GETFL);
    if (flags < 0 || fcntl(data->gps_fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        int saved = errno;
        gps_close(data);
        errno = saved;
        return -1;
    }
    return 0;
}

/*
 * Reads one message from gpsd, waiting without a timeout for it or for wake_fd (an eventfd) to be
 * written (with wake_fd < 0: waiting at most 250 ms). Returns 1 with *report filled, 0 when woken
 * through wake_fd (or interrupted, or after 250 ms) with nothing read, -1 when gpsd went away
 * (errno is 0 when the socket closed).
 *
 * The socket is non-blocking: gps_read() hands out a message libgps already holds in its buffer
 * without reading, and otherwise reads what the socket has without waiting (a part of a message
 * stays in libgps's buffer). Only when it has no whole message does this wait, with poll(), for the
 * socket: so a message libgps holds never waits for gpsd's next one, and any descriptor number works.
 */
static inline int weatherd_gps_next(struct gps_data_t *data, int wake_fd, weatherd_gps_report *report) {
    memset(report, 0, sizeof(*report));
    report->eph = NAN;
    for (;;) {
        data->set = 0;
        errno = 0;
        if (gps_read(data, NULL, 0) == -1) return -1;
        if (data->set & PACKET_SET) break;
        struct pollfd fds[2] = {{.fd = data->gps_fd, .events = POLLIN}, {.fd = wake_fd, .events = POLLIN}};
        if (poll(fds, 2, wake_fd < 0 ? 250 : -1) < 0) return 0;
        if (fds[1].revents) return 0;
        if (!fds[0].revents) return 0;
        /*
         * Readable. At the end of the stream libgps reads nothing and, holding the start of a message,
         * says "nothing yet" for ever: then gpsd is gone.
         */
        char byte;
        ssize_t peeked = recv(data->gps_fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        if (peeked == 0) {
            errno = 0;
            return -1;
        }
        if (peeked < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
    }
    if (data->set & MODE_SET) {
        report->has_mode = 1;
        report->mode = data->fix.mode;
    }
    if ((data->set & LATLON_SET) && isfinite(data->fix.latitude) && isfinite(data->fix.longitude)) {
        report->has_position = 1;
        report->latitude = data->fix.latitude;
        report->longitude = data->fix.longitude;
    }
    /*
     * eph comes with the TPV itself. libgps sets HERR_SET only when epx and epy are both known
     * (gpsd 3.2x), which receivers without GST/GBS sentences never give, though gpsd sends an eph
     * (HDOP x 19 m); the TPV parser resets fix.eph to NaN when a TPV carries none, so a finite
     * value here is this report's.
     */
    if ((data->set & MODE_SET) && isfinite(data->fix.eph)) report->eph = data->fix.eph;
    return 1;
}


#endif
