#ifndef WEATHERD_CLINUX_SHIM_H
#define WEATHERD_CLINUX_SHIM_H

#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

/*
 * Linux calls the Swift Glibc module does not bring: a timerfd that tells when the wall clock
 * jumped, and an eventfd to end a wait in poll(2) (this one, the gpsd reader's, the MQTT loop's).
 *
 * A CLOCK_REALTIME timerfd armed with TFD_TIMER_CANCEL_ON_SET is cancelled (it polls readable and
 * read(2) fails with ECANCELED) whenever the wall clock is set discontinuously: by hand, by NTP
 * stepping it, and on resume from suspend, which the kernel treats like a clock set
 * (timekeeping_resume() calls timerfd_resume()). The timer itself is armed decades ahead, so it
 * never wakes anyone by expiring.
 */

static inline int weatherd_clock_jump_arm(int fd) {
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0) return -1;
    struct itimerspec far = {0};
    far.it_value.tv_sec = now.tv_sec + (time_t)50 * 365 * 24 * 3600;
    return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &far, NULL);
}

/* The timerfd, armed; -1 (errno set) when it cannot be made. */
static inline int weatherd_clock_jump_fd(void) {
    int fd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
    if (fd < 0) return -1;
    if (weatherd_clock_jump_arm(fd) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/* An eventfd to end a wait in poll(2): written by anyone, drained by the waiting thread. */
static inline int weatherd_wake_fd_make(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }
static inline void weatherd_wake_fd_write(int fd) { uint64_t one = 1; (void)!write(fd, &one, sizeof one); }
static inline void weatherd_wake_fd_drain(int fd) { uint64_t n; (void)!read(fd, &n, sizeof n); }

/*
 * Waits, without a timeout, until the wall clock jumps (returns 1, the timer armed again) or
 * wake_fd (an eventfd) is written (returns 0, wake_fd drained; also on EINTR). -1 (errno set) when
 * the timer cannot be armed again or poll fails.
 */
static inline int weatherd_clock_jump_wait(int fd, int wake_fd) {
    struct pollfd fds[2] = {{.fd = fd, .events = POLLIN}, {.fd = wake_fd, .events = POLLIN}};
    if (poll(fds, 2, -1) < 0) return errno == EINTR ? 0 : -1;
    if (fds[1].revents) {
        weatherd_wake_fd_drain(wake_fd);
        return 0;
    }
    if (!fds[0].revents) return 0;
    uint64_t expirations;
    (void)!read(fd, &expirations, sizeof expirations);  /* ECANCELED after a jump */
    return weatherd_clock_jump_arm(fd) == 0 ? 1 : -1;
}

/*
 * glibc's allocator gives each thread that allocates an arena of its own, up to 8 per CPU, and an
 * arena keeps what was freed in it for its thread. weatherd's threads mostly wait (the libcurl
 * workers, the state writer, the gpsd reader...), so their arenas are memory held at idle.
 */
static inline int weatherd_malloc_arena_max(int arenas) {
    return mallopt(M_ARENA_MAX, arenas);
}

#endif
