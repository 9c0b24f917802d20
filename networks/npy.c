/* numpy's .npy format (numpy.lib.format): the magic "\x93NUMPY", a version byte pair, a header
 * length (2 bytes little-endian in 1.0, 4 in 2.0 / 3.0), then an ASCII Python dict literal
 * {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 224, 224), } padded with spaces to a
 * multiple of 64 bytes and ended by '\n', then the raw data. Only what --input / --save-output
 * exchange is read: little-endian float32 in C order. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "networks/net.h"

#define BAD(...) AT_FAIL(AT_EPARSE, __VA_ARGS__)

/* The value text after 'key': in the header dict, NULL when absent. */
static const char *dict_value(const char *h, const char *key)
{
    const char *p = strstr(h, key);
    if (!p) return NULL;
    p += strlen(key);
    while (*p == ' ' || *p == ':') p++;
    return p;
}

static at_status parse_header(const char *path, const char *h, int64_t dims[8], size_t *rank)
{
    const char *d = dict_value(h, "'descr'"), *f = dict_value(h, "'fortran_order'"), *s = dict_value(h, "'shape'");
    if (!d || !f || !s) return BAD("%s: .npy header lacks descr, fortran_order or shape", path);
    if (strncmp(d, "'<f4'", 5) != 0) return BAD("%s: .npy dtype %.6s: only little-endian float32 ('<f4') is read", path, d);
    if (strncmp(f, "False", 5) != 0) return BAD("%s: .npy in Fortran order: only C order is read", path);
    if (*s != '(') return BAD("%s: .npy shape is not a tuple", path);
    s++;
    *rank = 0;
    for (;;) {
        while (*s == ' ' || *s == ',') s++;
        if (*s == ')') break;
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s || v < 0 || v > (1LL << 31)) return BAD("%s: bad .npy shape", path);
        if (*rank == 8) return BAD("%s: .npy of more than 8 dims", path);
        dims[(*rank)++] = v;
        s = end;
    }
    return AT_OK;
}

at_status at_net_npy_read(const char *path, float **data, int64_t dims[8], size_t *rank)
{
    *data = NULL;
    *rank = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) return AT_FAIL(AT_EIO, "%s: cannot open", path);
    unsigned char pre[12];
    at_status st = AT_OK;
    size_t hlen = 0, off = 0;
    if (fread(pre, 1, 10, fp) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        st = BAD("%s: not a .npy file", path);
    } else if (pre[6] == 1) {
        hlen = pre[8] | (size_t)pre[9] << 8;
        off = 10;
    } else if ((pre[6] == 2 || pre[6] == 3) && fread(pre + 10, 1, 2, fp) == 2) {
        hlen = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
        off = 12;
    } else {
        st = BAD("%s: .npy version %d.%d not read", path, pre[6], pre[7]);
    }
    char *h = st == AT_OK && hlen < (1u << 20) ? at_malloc(hlen + 1) : NULL;
    if (st == AT_OK && !h) st = hlen < (1u << 20) ? AT_OOM() : BAD("%s: .npy header too long", path);
    if (st == AT_OK && fread(h, 1, hlen, fp) != hlen) st = BAD("%s: .npy header truncated", path);
    if (st == AT_OK) {
        h[hlen] = 0;
        st = parse_header(path, h, dims, rank);
    }
    at_free(h);
    int64_t n = 1;
    for (size_t i = 0; st == AT_OK && i < *rank; i++) n *= dims[i];
    if (st == AT_OK && n > (1LL << 31)) st = BAD("%s: .npy of more than 2^31 elements", path);
    float *p = st == AT_OK ? at_malloc((size_t)(n ? n : 1) * sizeof *p) : NULL;
    if (st == AT_OK && !p) st = AT_OOM();
    if (st == AT_OK && fread(p, sizeof *p, (size_t)n, fp) != (size_t)n)
        st = BAD("%s: .npy data shorter than its shape (%" PRId64 " floats after %zu header bytes)", path, n, off + hlen);
    if (st == AT_OK && fgetc(fp) != EOF) st = BAD("%s: .npy data longer than its shape", path);
    fclose(fp);
    if (st != AT_OK) {
        at_free(p);
        *rank = 0;
        return st;
    }
    *data = p; /* the format is little-endian: this host's order (x86-64, arm64) */
    return AT_OK;
}

at_status at_net_npy_write(const char *path, const float *data, const int64_t *dims, size_t rank)
{
    char dict[256];
    int len = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
    int64_t n = 1;
    for (size_t i = 0; i < rank; i++) {
        len += snprintf(dict + len, sizeof dict - (size_t)len, "%" PRId64 "%s", dims[i], rank == 1 ? "," : i + 1 < rank ? ", " : "");
        n *= dims[i];
    }
    len += snprintf(dict + len, sizeof dict - (size_t)len, "), }");
    /* pad so that magic + version + length + dict + '\n' is a multiple of 64 */
    size_t total = ((size_t)len + 11 + 63) / 64 * 64, hlen = total - 10;
    char head[320];
    memcpy(head, "\x93NUMPY\x01\x00", 8);
    head[8] = (char)(hlen & 0xff);
    head[9] = (char)(hlen >> 8);
    memcpy(head + 10, dict, (size_t)len);
    memset(head + 10 + len, ' ', hlen - (size_t)len - 1);
    head[total - 1] = '\n';
    FILE *fp = fopen(path, "wb");
    if (!fp) return AT_FAIL(AT_EIO, "%s: cannot create", path);
    bool ok = fwrite(head, 1, total, fp) == total && fwrite(data, sizeof *data, (size_t)n, fp) == (size_t)n;
    if (fclose(fp) != 0) ok = false;
    return ok ? AT_OK : AT_FAIL(AT_EIO, "%s: write failed", path);
}
