/* The floor of scripts/bench-daemon.py: a bare Unix-socket line server, single-threaded, poll(2).
 * A client's bytes are echoed back to it as they come (one request line -> one reply line).
 * A line "!N\n" is the fan-out floor instead: a line of N bytes (newline included) is written to
 * every other connected client. A line "=N\n" answers "=\n" and makes the connection's later
 * replies lines of N bytes (newline included) instead of echoes: the same exchange as a request
 * whose reply is that long. Usage: echo-server PATH */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX 16384
static struct pollfd fds[MAX];
static long reply[MAX];   /* a connection's reply length; 0: echo */
static int n = 1;
static char buf[65536], line[1 << 20];

/* Writes all of p[0..len) to fd, unless it fails. */
static void write_all(int fd, const char *p, ssize_t len) {
    for (ssize_t off = 0; off < len;) {
        ssize_t w = write(fd, p + off, len - off);
        if (w <= 0) break;
        off += w;
    }
}

/* `line` as a line of len bytes, newline included. */
static const char *fill(long len) {
    memset(line, 'x', len - 1);
    line[len - 1] = '\n';
    return line;
}

int main(int argc, char **argv) {
    if (argc != 2) return 64;
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path, argv[1], sizeof a.sun_path - 1);
    unlink(argv[1]);
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 1024)) { perror("echo-server"); return 1; }
    fds[0] = (struct pollfd){.fd = s, .events = POLLIN};
    for (;;) {
        if (poll(fds, n, -1) < 0) continue;
        if ((fds[0].revents & POLLIN) && n < MAX) {
            int c = accept(s, NULL, NULL);
            if (c >= 0) { reply[n] = 0; fds[n++] = (struct pollfd){.fd = c, .events = POLLIN}; }
        }
        for (int i = 1; i < n; i++) {
            if (!fds[i].revents) continue;
            ssize_t r = read(fds[i].fd, buf, sizeof buf);
            if (r <= 0) { close(fds[i].fd); --n; reply[i] = reply[n]; fds[i--] = fds[n]; continue; }
            if (buf[0] == '!') {
                long len = strtol(buf + 1, NULL, 10);
                if (len < 1 || len > (long)sizeof line) len = 1;
                const char *out = fill(len);
                for (int j = 1; j < n; j++)
                    if (j != i) write_all(fds[j].fd, out, len);
            } else if (buf[0] == '=') {
                long want = strtol(buf + 1, NULL, 10);
                reply[i] = want > 0 && want <= (long)sizeof line ? want : 0;
                write_all(fds[i].fd, "=\n", 2);
            } else if (reply[i]) {
                write_all(fds[i].fd, fill(reply[i]), reply[i]);
            } else {
                write_all(fds[i].fd, buf, r);
            }
        }
    }
}
