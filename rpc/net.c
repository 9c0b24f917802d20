/* Socket helpers for rpc/: every descriptor non-blocking, every wait a poll() with a deadline,
 * so no call can hang past its timeout and the tracker's event loop and the blocking clients
 * share one set of primitives. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/numfmt.h"
#include "rpc/internal.h"

double at_rpc_deadline(int timeout_ms)
{
    return timeout_ms < 0 ? INFINITY : at_clock_mono_s() + timeout_ms / 1000.0;
}

int at_rpc_ms_left(double deadline)
{
    if (isinf(deadline)) return -1;
    double left = (deadline - at_clock_mono_s()) * 1000.0;
    if (left <= 0) return 0;
    if (left > 1e9) return 1000000000;
    return (int)ceil(left);
}

static int set_flags(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) return -1;
    int fd_fl = fcntl(fd, F_GETFD);
    if (fd_fl < 0 || fcntl(fd, F_SETFD, fd_fl | FD_CLOEXEC) < 0) return -1;
    return 0;
}

static void set_nodelay(int fd)
{
    int one = 1;
    /* only a latency hint; failure (e.g. a non-TCP socket in a test) changes nothing else */
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void at_rpc_net_close(int fd)
{
    if (fd >= 0) close(fd);
}

static at_status resolve(const char *host, int port, int passive, struct addrinfo **res)
{
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_protocol = IPPROTO_TCP;
    hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
    char serv[16];
    snprintf(serv, sizeof serv, "%d", port);
    int rc = getaddrinfo(host, serv, &hints, res);
    if (rc != 0) return AT_FAIL(AT_EINVAL, "cannot resolve host '%s': %s", host, gai_strerror(rc));
    return AT_OK;
}

static void set_port(struct sockaddr *sa, int port)
{
    if (sa->sa_family == AF_INET)
        ((struct sockaddr_in *)(void *)sa)->sin_port = htons((uint16_t)port);
    else if (sa->sa_family == AF_INET6)
        ((struct sockaddr_in6 *)(void *)sa)->sin6_port = htons((uint16_t)port);
}

static int get_port(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET) return ntohs(((const struct sockaddr_in *)(const void *)sa)->sin_port);
    if (sa->sa_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)(const void *)sa)->sin6_port);
    return -1;
}

at_status at_rpc_net_listen(const char *host, int port, int port_end, int backlog, int *fd, int *bound_port)
{
    *fd = -1;
    if (port < 0 || port > 65535 || port_end > 65536) return AT_FAIL(AT_EINVAL, "port %d out of range", port);
    struct addrinfo *res;
    AT_TRY(resolve(host, port, 1, &res));
    int last = port_end > port ? port_end : port + 1;
    int s = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
    if (s < 0) {
        int e = errno;
        freeaddrinfo(res);
        return AT_FAIL(AT_EIO, "socket: %s", strerror(e));
    }
    int one = 1;
    (void)setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int got = -1, err = 0;
    for (int p = port; p < last; p++) {
        set_port(res->ai_addr, p);
        if (bind(s, res->ai_addr, res->ai_addrlen) == 0) {
            got = p;
            break;
        }
        err = errno;
        if (err != EADDRINUSE) break;
    }
    freeaddrinfo(res);
    if (got < 0) {
        close(s);
        if (err == EADDRINUSE) {
            if (last == port + 1) return AT_FAIL(AT_EIO, "cannot bind to %s:%d: address in use", host, port);
            return AT_FAIL(AT_EIO, "cannot bind to any port in [%d, %d) on %s", port, last, host);
        }
        return AT_FAIL(AT_EIO, "cannot bind to %s:%d: %s", host, port, strerror(err));
    }
    if (listen(s, backlog) != 0 || set_flags(s) != 0) {
        int e = errno;
        close(s);
        return AT_FAIL(AT_EIO, "listen on %s:%d: %s", host, got, strerror(e));
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getsockname(s, (struct sockaddr *)&ss, &sl) == 0) got = get_port((struct sockaddr *)&ss);
    *fd = s;
    *bound_port = got;
    return AT_OK;
}

at_status at_rpc_net_accept(int listen_fd, int *fd)
{
    *fd = -1;
    for (;;) {
        int c = accept(listen_fd, NULL, NULL);
        if (c >= 0) {
            if (set_flags(c) != 0) {
                int e = errno;
                close(c);
                return AT_FAIL(AT_EIO, "accept: fcntl: %s", strerror(e));
            }
            set_nodelay(c);
            *fd = c;
            return AT_OK;
        }
        if (errno == EINTR) continue;
        /* a connection reset before it was accepted is the peer's business, not ours */
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED || errno == EPROTO) return AT_OK;
        return AT_FAIL(AT_EIO, "accept: %s", strerror(errno));
    }
}

/* poll() one descriptor for events until the deadline; 1 ready, 0 timed out, -1 error. */
static int wait_fd(int fd, short events, double deadline)
{
    for (;;) {
        struct pollfd p = {.fd = fd, .events = events};
        int rc = poll(&p, 1, at_rpc_ms_left(deadline));
        if (rc > 0) return 1;
        if (rc == 0) {
            if (at_rpc_ms_left(deadline) == 0) return 0;
            continue;
        }
        if (errno != EINTR) return -1;
    }
}

at_status at_rpc_net_connect(const char *host, int port, int timeout_ms, int *fd, bool *refused)
{
    *fd = -1;
    if (refused) *refused = false;
    struct addrinfo *res;
    AT_TRY(resolve(host, port, 0, &res));
    int s = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
    if (s < 0 || set_flags(s) != 0) {
        int e = errno;
        if (s >= 0) close(s);
        freeaddrinfo(res);
        return AT_FAIL(AT_EIO, "socket: %s", strerror(e));
    }
    double deadline = at_rpc_deadline(timeout_ms);
    int rc = connect(s, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    int err = rc == 0 ? 0 : errno;
    if (err == EINPROGRESS || err == EINTR) {
        int w = wait_fd(s, POLLOUT, deadline);
        if (w == 0) {
            close(s);
            return AT_FAIL(AT_ETIMEOUT, "connect to %s:%d timed out after %d ms", host, port, timeout_ms);
        }
        socklen_t el = sizeof err;
        if (w < 0)
            err = errno;
        else if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el) != 0)
            err = errno;
    }
    if (err != 0) {
        close(s);
        if (refused && err == ECONNREFUSED) *refused = true;
        return AT_FAIL(AT_EIO, "connect to %s:%d: %s", host, port, strerror(err));
    }
    set_nodelay(s);
    *fd = s;
    return AT_OK;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

at_status at_rpc_net_connect_retry(const char *host, int port, int retry_ms, int total_ms, int *fd)
{
    double start = at_clock_mono_s();
    for (;;) {
        bool refused;
        int left = total_ms - (int)((at_clock_mono_s() - start) * 1000.0);
        at_status st = at_rpc_net_connect(host, port, left > 1000 ? left : 1000, fd, &refused);
        if (st == AT_OK || !refused) return st;
        double elapsed_ms = (at_clock_mono_s() - start) * 1000.0;
        if (elapsed_ms >= total_ms)
            return AT_FAIL(AT_EIO, "cannot connect to %s:%d: connection refused for %.0f s", host, port, elapsed_ms / 1000.0);
        at_log(AT_LOG_WARN, "Cannot connect to tracker ('%s', %d), retry in %g secs...", host, port, retry_ms / 1000.0);
        int nap = retry_ms;
        if (elapsed_ms + nap > total_ms) nap = (int)(total_ms - elapsed_ms) + 1;
        sleep_ms(nap);
    }
}

at_status at_rpc_net_send_some(int fd, const void *buf, size_t n, size_t *sent)
{
    *sent = 0;
    while (*sent < n) {
        ssize_t k = send(fd, (const char *)buf + *sent, n - *sent, MSG_NOSIGNAL);
        if (k > 0) {
            *sent += (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return AT_OK;
        return AT_FAIL(AT_EIO, "send: %s", k < 0 ? strerror(errno) : "wrote nothing");
    }
    return AT_OK;
}

at_status at_rpc_net_send_all(int fd, const void *buf, size_t n, double deadline)
{
    size_t done = 0;
    while (done < n) {
        size_t k;
        AT_TRY(at_rpc_net_send_some(fd, (const char *)buf + done, n - done, &k));
        done += k;
        if (done == n) break;
        int w = wait_fd(fd, POLLOUT, deadline);
        if (w == 0) return AT_FAIL(AT_ETIMEOUT, "send timed out (%zu of %zu bytes sent)", done, n);
        if (w < 0) return AT_FAIL(AT_EIO, "poll: %s", strerror(errno));
    }
    return AT_OK;
}

at_status at_rpc_net_recv_now(int fd, at_rpc_reader *r, size_t max, bool *eof)
{
    char buf[65536];
    *eof = false;
    size_t total = 0;
    while (total < max) {
        size_t want = max - total < sizeof buf ? max - total : sizeof buf;
        ssize_t k = recv(fd, buf, want, 0);
        if (k > 0) {
            AT_TRY(at_rpc_reader_feed(r, buf, (size_t)k));
            total += (size_t)k;
            continue;
        }
        if (k == 0) {
            *eof = true;
            return AT_OK;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return AT_OK;
        return AT_FAIL(AT_EIO, "recv: %s", strerror(errno));
    }
    return AT_OK;
}

at_status at_rpc_net_recv(int fd, at_rpc_reader *r, double deadline)
{
    for (;;) {
        int w = wait_fd(fd, POLLIN, deadline);
        if (w == 0) return AT_FAIL(AT_ETIMEOUT, "timed out waiting for the peer");
        if (w < 0) return AT_FAIL(AT_EIO, "poll: %s", strerror(errno));
        size_t before = at_rpc_reader_buffered(r);
        bool eof;
        AT_TRY(at_rpc_net_recv_now(fd, r, 1u << 20, &eof));
        if (at_rpc_reader_buffered(r) > before) return AT_OK;
        if (eof) return AT_FAIL(AT_EIO, "connection closed by peer");
    }
}

at_status at_rpc_net_peer_ip(int fd, char ip[AT_RPC_IP_MAX])
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getpeername(fd, (struct sockaddr *)&ss, &sl) != 0) return AT_FAIL(AT_EIO, "getpeername: %s", strerror(errno));
    int rc = getnameinfo((struct sockaddr *)&ss, sl, ip, AT_RPC_IP_MAX, NULL, 0, NI_NUMERICHOST);
    if (rc != 0) return AT_FAIL(AT_EIO, "getnameinfo: %s", gai_strerror(rc));
    return AT_OK;
}

at_status at_rpc_urandom(void *buf, size_t n)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return AT_FAIL(AT_EIO, "/dev/urandom: %s", strerror(errno));
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, (char *)buf + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            int e = errno;
            close(fd);
            return AT_FAIL(AT_EIO, "/dev/urandom: %s", k < 0 ? strerror(e) : "short read");
        }
        got += (size_t)k;
    }
    close(fd);
    return AT_OK;
}

at_status at_rpc_rng_seed(at_rng *r, uint64_t seed)
{
    if (seed == 0) AT_TRY(at_rpc_urandom(&seed, sizeof seed));
    at_rng_seed(r, seed);
    return AT_OK;
}

at_status at_rpc_random_key(at_rng *r, const char *prefix, char **out)
{
    char num[AT_FMT_DOUBLE_MAX];
    at_fmt_double(at_rng_uniform(r), num);
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_strbuf_puts(&sb, prefix);
    at_strbuf_putc(&sb, ':');
    at_strbuf_puts(&sb, num);
    at_status st = at_strbuf_status(&sb);
    if (st != AT_OK) {
        at_strbuf_fini(&sb);
        return st;
    }
    *out = at_strbuf_take(&sb);
    return AT_OK;
}
