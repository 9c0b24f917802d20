/* The worker protocol's framing: length-prefixed frames of fixed-width fields over a Unix
 * socket pair. Readers never trust a length: a short or oversized frame marks the reader bad. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/alloc.h"
#include "measure/internal.h"

void at_meas_frame_begin(at_strbuf *sb, uint32_t type)
{
    at_strbuf_clear(sb);
    uint32_t len = 0;
    at_strbuf_append(sb, (const char *)&len, sizeof len);
    at_strbuf_append(sb, (const char *)&type, sizeof type);
}

void at_meas_put_u32(at_strbuf *sb, uint32_t v)
{
    at_strbuf_append(sb, (const char *)&v, sizeof v);
}

void at_meas_put_u64(at_strbuf *sb, uint64_t v)
{
    at_strbuf_append(sb, (const char *)&v, sizeof v);
}

void at_meas_put_f64(at_strbuf *sb, double v)
{
    at_strbuf_append(sb, (const char *)&v, sizeof v);
}

void at_meas_put_bytes(at_strbuf *sb, const void *p, size_t n)
{
    at_meas_put_u32(sb, (uint32_t)n);
    at_strbuf_append(sb, p, n);
}

void at_meas_put_str(at_strbuf *sb, const char *s)
{
    at_meas_put_bytes(sb, s ? s : "", s ? strlen(s) : 0);
}

void at_meas_frame_end(at_strbuf *sb)
{
    if (sb->failed || sb->len < 8) return;
    uint32_t len = (uint32_t)(sb->len - 4);
    memcpy(sb->data, &len, sizeof len);
}

static bool take(at_meas_reader *r, void *dst, size_t n)
{
    if (r->bad || r->len - r->pos < n) {
        r->bad = true;
        memset(dst, 0, n);
        return false;
    }
    memcpy(dst, r->p + r->pos, n);
    r->pos += n;
    return true;
}

uint32_t at_meas_get_u32(at_meas_reader *r)
{
    uint32_t v;
    take(r, &v, sizeof v);
    return v;
}

uint64_t at_meas_get_u64(at_meas_reader *r)
{
    uint64_t v;
    take(r, &v, sizeof v);
    return v;
}

double at_meas_get_f64(at_meas_reader *r)
{
    double v;
    take(r, &v, sizeof v);
    return v;
}

void at_meas_get_bytes(at_meas_reader *r, void *dst, size_t n)
{
    uint32_t len = at_meas_get_u32(r);
    if (len != n) {
        r->bad = true;
        memset(dst, 0, n);
        return;
    }
    take(r, dst, n);
}

char *at_meas_get_str(at_meas_reader *r)
{
    uint32_t len = at_meas_get_u32(r);
    if (r->bad || r->len - r->pos < len) {
        r->bad = true;
        return NULL;
    }
    char *s = at_strndup((const char *)r->p + r->pos, len);
    if (!s) r->bad = true;
    r->pos += len;
    return s;
}

at_status at_meas_send_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return AT_FAIL(AT_EIO, "send to peer: %s", k < 0 ? strerror(errno) : "closed");
        c += k;
        n -= (size_t)k;
    }
    return AT_OK;
}

static at_status recv_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n > 0) {
        ssize_t k = recv(fd, c, n, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return AT_FAIL(AT_EIO, "receive from peer: %s", k < 0 ? strerror(errno) : "end of stream");
        c += k;
        n -= (size_t)k;
    }
    return AT_OK;
}

at_status at_meas_recv_frame(int fd, unsigned char **buf, size_t *cap, uint32_t *type, size_t *len)
{
    uint32_t hdr[2];
    AT_TRY(recv_all(fd, hdr, sizeof hdr));
    if (hdr[0] < 4 || hdr[0] > AT_MEAS_MAX_FRAME) return AT_FAIL(AT_EPARSE, "bad frame length %u", hdr[0]);
    size_t n = hdr[0] - 4;
    if (n + 1 > *cap) {
        unsigned char *b = at_realloc(*buf, n + 1);
        if (!b) return AT_OOM();
        *buf = b;
        *cap = n + 1;
    }
    AT_TRY(recv_all(fd, *buf, n));
    *type = hdr[1];
    *len = n;
    return AT_OK;
}
