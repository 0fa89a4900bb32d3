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
            const char *out = buf;
            ssize_t len = r;
            if (buf[0] == '=') {
                long want = strtol(buf + 1, NULL, 10);
                reply[i] = want > 0 && want <= (long)sizeof line ? want : 0;
                out = "=\n"; len = 2;
            } else if (reply[i] && buf[0] != '!') {
                memset(line, 'x', reply[i] - 1); line[reply[i] - 1] = '\n';
                out = line; len = reply[i];
            }
            if (buf[0] == '!') {
                long len = strtol(buf + 1, NULL, 10);
                if (len < 1 || len > (long)sizeof line) len = 1;
                memset(line, 'x', len - 1); line[len - 1] = '\n';
                for (int j = 1; j < n; j++)
                    if (j != i) { ssize_t off = 0; while (off < len) { ssize_t w = write(fds[j].fd, line + off, len - off); if (w <= 0) break; off += w; } }
            } else {
                ssize_t off = 0;
                while (off < len) { ssize_t w = write(fds[i].fd, out + off, len - off); if (w <= 0) break; off += w; }
            }
        }
    }
}
