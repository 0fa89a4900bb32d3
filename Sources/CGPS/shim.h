#ifndef WEATHERD_CGPS_SHIM_H
#define WEATHERD_CGPS_SHIM_H

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sys/select.h>
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

static inline int weatherd_gps_open(struct gps_data_t *data, const char *host, const char *port) {
    errno = 0;
    if (gps_open(host, port, data) != 0) return -1;
    if (gps_stream(data, WATCH_ENABLE | WATCH_JSON, NULL) < 0) {
        gps_close(data);
        return -1;
    }
    return 0;
}

/*
 * Waits, without a timeout, for one message from gpsd or for wake_fd (an eventfd) to be written, and
 * reads the message (with wake_fd < 0: waits at most 250 ms). Returns 1 with *report filled, 0 when woken through wake_fd (or interrupted) with
 * nothing read, -1 when gpsd went away (gps_read() == -1; errno is 0 when the socket closed).
 * gps_waiting(data, 0) first: libgps may hold a message it has already read into its buffer, which a
 * poll of the socket would not see. But gps_waiting select()s the socket when its buffer is empty, and
 * select() aborts the process (glibc: "bit out of range 0 - FD_SETSIZE") for a descriptor of
 * FD_SETSIZE or more, which a daemon with many clients reaches: then only the poll below is used, and
 * a message libgps already holds waits for gpsd's next one.
 */
static inline int weatherd_gps_next(struct gps_data_t *data, int wake_fd, weatherd_gps_report *report) {
    memset(report, 0, sizeof(*report));
    report->eph = NAN;
    if (data->gps_fd >= FD_SETSIZE || !gps_waiting(data, 0)) {
        struct pollfd fds[2] = {{.fd = data->gps_fd, .events = POLLIN}, {.fd = wake_fd, .events = POLLIN}};
        /* Without an eventfd (it could not be made) nothing would end the wait: poll as before, 250 ms. */
        if (poll(fds, 2, wake_fd < 0 ? 250 : -1) < 0) return 0;
        if (fds[1].revents) return 0;
        if (!fds[0].revents) return 0;
    }
    data->set = 0;
    errno = 0;
    if (gps_read(data, NULL, 0) == -1) return -1;
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
