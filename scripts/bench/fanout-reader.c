/* The fan-out clients of scripts/bench-daemon.py: N Unix-socket connections read by one thread
 * with epoll, so that the figure is the server's and not the reader's (1,000 sockets read by
 * Python's selectors took 16 ms, whoever wrote to them).
 *
 * Usage: fanout-reader PATH N [FIRST_LINE]
 * Connects N clients to PATH; each sends FIRST_LINE (a `watch` request) if given, and its reply
 * is read. Then it prints "ready" and, for every round, waits until each client has read one
 * more complete line and prints "NS LEN": the CLOCK_MONOTONIC time in ns when the last of them
 * was complete, and the length (newline included) of the line client 0 read. It ends when its
 * stdin closes or a connection does. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 20];

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Reads from fd until a newline has been seen; `partial` holds how many bytes of the current
 * line came before. Returns 1 once a line is complete (its length in *len), 0 if not yet, -1 at
 * end of file or error. Bytes after the newline of a round's line would belong to the next
 * round: the servers write one line per round, so there are none. */
static int read_line(int fd, long *partial, long *len) {
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0) return errno == EAGAIN ? 0 : -1;
        if (r == 0) return -1;
        char *nl = memchr(buf, '\n', r);
        if (nl) {
            *len = *partial + (nl - buf) + 1;
            *partial = 0;
            return 1;
        }
        *partial += r;
    }
}

int main(int argc, char **argv) {
    if (argc < 3) return 64;
    int n = atoi(argv[2]);
    const char *first = argc > 3 ? argv[3] : NULL;
    int *fds = calloc(n, sizeof *fds);
    long *partial = calloc(n, sizeof *partial);
    char *done = calloc(n, 1);
    int ep = epoll_create1(0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path, argv[1], sizeof a.sun_path - 1);
    for (int i = 0; i < n; i++) {
        /* Blocking while connecting: a full listen backlog makes the connect wait, not fail. */
        fds[i] = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fds[i] < 0 || connect(fds[i], (struct sockaddr *)&a, sizeof a)) { perror("fanout-reader: connect"); return 1; }
        if (first) {
            size_t len = strlen(first);
            if (write(fds[i], first, len) != (ssize_t)len || write(fds[i], "\n", 1) != 1) { perror("fanout-reader: write"); return 1; }
        }
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
        struct epoll_event e = {.events = EPOLLIN, .data.u32 = (unsigned)i};
        epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e);
    }
    struct epoll_event events[256];
    for (int round = first ? 0 : 1;; round++) {
        if (round > 0) {
            printf(round == 1 ? "ready\n" : "");
            fflush(stdout);
        }
        int left = n;
        long len0 = 0;
        long long last = 0;
        memset(done, 0, n);
        while (left > 0) {
            int k = epoll_wait(ep, events, 256, round > 0 ? 1000 : -1);
            if (k < 0 && errno == EINTR) continue;
            if (k == 0) {
                /* Nothing for a second: stop if stdin closed (the benchmark is over). */
                struct pollfd p = {.fd = 0, .events = POLLIN};
                if (poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLIN))) {
                    char c;
                    if (read(0, &c, 1) <= 0) return 0;
                }
                continue;
            }
            for (int j = 0; j < k; j++) {
                int i = (int)events[j].data.u32;
                if (done[i]) continue;
                long len;
                int got = read_line(fds[i], &partial[i], &len);
                if (got < 0) { fprintf(stderr, "fanout-reader: connection %d ended\n", i); return 1; }
                if (got) {
                    done[i] = 1;
                    left--;
                    last = now_ns();
                    if (i == 0) len0 = len;
                }
            }
        }
        if (round > 0) {
            printf("%lld %ld\n", last, len0);
            fflush(stdout);
        }
    }
}
