/* Test HTTP server for the TopHub client. It runs in a forked process (one thread per
 * connection there), so the test process stays single-threaded and may fork fetching children of
 * its own: forking a threaded process can copy a lock mid-use (ASan's allocator locks do deadlock
 * that way). The request count lives in a shared anonymous mapping; a pipe tells it to exit. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS (POSIX only since 2024) */
#include "tests/tophub_server/http_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"

#define MAX_CONN 1024 /* connection slots, reused round-robin */

typedef struct server server;
typedef struct conn {
    server *srv;
    int     fd;
} conn;

/* the parent's handle */
struct at_test_http {
    pid_t        pid;
    int          port;
    int          stop_fd;  /* write end: the server exits once it is readable */
    atomic_long *requests; /* shared with the server process */
};

/* the server process's state */
typedef struct server {
    const char  *root;
    int          listen_fd;
    int          stop_fd; /* read end */
    atomic_long *requests;
    conn         slots[MAX_CONN];
    long         n_conns;
} server;

static void die(const char *what)
{
    fprintf(stderr, "http_server: %s: %s\n", what, strerror(errno));
    abort();
}

static void send_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return; /* the client went away: nothing to do */
        p += w;
        n -= (size_t)w;
    }
}

static void send_text(int fd, const char *status, const char *body)
{
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
                     status, strlen(body));
    send_all(fd, head, (size_t)n);
    send_all(fd, body, strlen(body));
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Offset of the start of the first line beginning at or after the middle of the file. */
static long middle_line_start(int fd, long size)
{
    char buf[8192];
    long off = size / 2;
    for (;;) {
        ssize_t r = pread(fd, buf, sizeof buf, off);
        if (r <= 0) return -1;
        for (ssize_t i = 0; i < r; i++)
            if (buf[i] == '\n') return off + i + 1 < size ? off + i + 1 : -1;
        off += r;
    }
}

static void serve_file(int fd, const char *mode, const char *path)
{
    int f = open(path, O_RDONLY);
    struct stat st;
    if (f < 0 || fstat(f, &st) != 0) {
        if (f >= 0) close(f);
        send_text(fd, "404 Not Found", "not found\n");
        return;
    }
    long size = (long)st.st_size;
    long send_len = !strcmp(mode, "short") ? size / 2 : size;
    long bad_at = !strcmp(mode, "corrupt") ? middle_line_start(f, size) : -1;
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %ld\r\nConnection: close\r\n\r\n",
                     size);
    send_all(fd, head, (size_t)n);
    char buf[8192];
    long off = 0;
    while (off < send_len) {
        size_t want = (size_t)(send_len - off) < sizeof buf ? (size_t)(send_len - off) : sizeof buf;
        ssize_t r = pread(f, buf, want, off);
        if (r <= 0) break;
        static const char garbage[] = "garbage!!!";
        for (long i = 0; bad_at >= 0 && i < (long)sizeof garbage - 1; i++)
            if (bad_at + i >= off && bad_at + i < off + r) buf[bad_at + i - off] = garbage[i];
        send_all(fd, buf, (size_t)r);
        off += r;
        if (!strcmp(mode, "drip")) sleep_ms(3);
    }
    close(f);
}

static void *conn_main(void *arg)
{
    conn c = *(conn *)arg;
    char req[8192];
    size_t len = 0;
    while (len < sizeof req - 1) {
        ssize_t r = recv(c.fd, req + len, sizeof req - 1 - len, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        len += (size_t)r;
        req[len] = '\0';
        if (strstr(req, "\r\n\r\n")) break;
    }
    req[len] = '\0';
    char mode[64] = "", file[256] = "";
    if (sscanf(req, "GET /%63[^/ ]/%255[^ ?] HTTP/1.", mode, file) != 2) {
        send_text(c.fd, "400 Bad Request", "bad request\n");
        close(c.fd);
        return NULL;
    }
    atomic_fetch_add(c.srv->requests, 1);
    if (strstr(file, "..") || strchr(file, '/')) {
        send_text(c.fd, "403 Forbidden", "forbidden\n");
    } else if (!strcmp(mode, "ok") || !strcmp(mode, "short") || !strcmp(mode, "corrupt") || !strcmp(mode, "drip")) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", c.srv->root, file);
        serve_file(c.fd, mode, path);
    } else if (!strcmp(mode, "404")) {
        send_text(c.fd, "404 Not Found", "not found\n");
    } else if (!strcmp(mode, "500")) {
        send_text(c.fd, "500 Internal Server Error", "oops\n");
    } else if (!strcmp(mode, "huge")) {
        static const char big[] = "HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\nConnection: close\r\n\r\n# x\n";
        send_all(c.fd, big, sizeof big - 1);
    } else if (!strcmp(mode, "html")) {
        send_text(c.fd, "200 OK", "<html><body>Please log in to the hotel Wi-Fi</body></html>\n");
    } else if (!strcmp(mode, "empty")) {
        send_text(c.fd, "200 OK", "");
    } else if (!strcmp(mode, "tofile")) {
        static const char r302[] = "HTTP/1.1 302 Found\r\nLocation: file:///etc/hostname\r\nContent-Length: 0\r\n"
                                   "Connection: close\r\n\r\n";
        send_all(c.fd, r302, sizeof r302 - 1);
    } else if (!strcmp(mode, "stall")) {
        struct pollfd p = {.fd = c.srv->stop_fd, .events = POLLIN};
        while (poll(&p, 1, -1) < 0 && errno == EINTR) {
        }
    } else {
        send_text(c.fd, "400 Bad Request", "unknown mode\n");
    }
    close(c.fd);
    return NULL;
}

static _Noreturn void serve(server *s)
{
    for (;;) {
        struct pollfd p[2] = {{.fd = s->listen_fd, .events = POLLIN}, {.fd = s->stop_fd, .events = POLLIN}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR) continue;
            die("poll");
        }
        if (p[1].revents) _exit(0); /* stalled connections end with the process */
        int fd = accept(s->listen_fd, NULL, NULL);
        if (fd < 0) continue;
        /* conn_main copies its slot first thing, long before the slot comes round again */
        conn *c = &s->slots[s->n_conns++ % MAX_CONN];
        c->srv = s;
        c->fd = fd;
        pthread_t t;
        if (pthread_create(&t, NULL, conn_main, c) != 0) die("pthread_create");
        pthread_detach(t);
    }
}

static int listen_loopback(int backlog, int *port_out)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) die("socket");
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) die("bind");
    if (listen(fd, backlog) != 0) die("listen");
    socklen_t al = sizeof a;
    if (getsockname(fd, (struct sockaddr *)&a, &al) != 0) die("getsockname");
    *port_out = ntohs(a.sin_port);
    return fd;
}

at_test_http *at_test_http_start(const char *root)
{
    at_test_http *h = at_calloc(1, sizeof *h);
    if (!h) die("at_calloc");
    h->requests = mmap(NULL, sizeof *h->requests, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (h->requests == MAP_FAILED) die("mmap");
    atomic_init(h->requests, 0);
    int listen_fd = listen_loopback(16, &h->port);
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) die("pipe");
    fflush(NULL); /* nothing buffered may be written twice */
    h->pid = fork();
    if (h->pid < 0) die("fork");
    if (h->pid == 0) {
        close(pipe_fds[1]);
        static server s; /* the process's only server: no heap */
        s.root = root;
        s.listen_fd = listen_fd;
        s.stop_fd = pipe_fds[0];
        s.requests = h->requests;
        serve(&s);
    }
    close(listen_fd);
    close(pipe_fds[0]);
    h->stop_fd = pipe_fds[1];
    return h;
}

int at_test_http_port(const at_test_http *h)
{
    return h->port;
}

long at_test_http_requests(const at_test_http *h)
{
    return atomic_load(h->requests);
}

void at_test_http_stop(at_test_http *h)
{
    if (!h) return;
    if (write(h->stop_fd, "x", 1) != 1) die("write");
    int status = 0;
    while (waitpid(h->pid, &status, 0) < 0 && errno == EINTR) {
    }
    close(h->stop_fd);
    munmap(h->requests, sizeof *h->requests);
    at_free(h);
}

int at_test_closed_port(void)
{
    int port = 0;
    int fd = listen_loopback(1, &port);
    close(fd);
    return port;
}

int at_test_blackhole_port(int fds_out[2])
{
    int port = 0;
    int lfd = listen_loopback(0, &port);
    /* Linux queues backlog + 1 connections; fill the queue so later SYNs are dropped */
    int cfd = socket(AF_INET, SOCK_STREAM, 0);
    if (cfd < 0) die("socket");
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(cfd, (struct sockaddr *)&a, sizeof a) != 0) die("connect");
    fds_out[0] = lfd;
    fds_out[1] = cfd;
    return port;
}
