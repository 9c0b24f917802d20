/* Shared programs (prog_cache.h). An entry lives as long as the cache: a plan the refinement
 * leaves is often taken again by its next move, and a network holds tens of programs. */
#include "networks/prog_cache.h"

#include <string.h>

#include "core/alloc.h"
#include "core/strbuf.h"

typedef struct entry {
    char  *text; /* at_ir_print of the source */
    size_t len;
    void  *prog; /* the underlying backend's */
} entry;

struct at_net_prog_cache {
    at_net_backend_i        vt; /* this cache's vtable: the sequence calls only where be has them */
    const at_net_backend_i *be;
    void                   *be_ctx;
    entry                 **e; /* each allocated once: the pointer handed out stays valid */
    size_t                  n, cap;
    size_t                  n_built;
};

static at_status c_buf_new(void *ctx, size_t bytes, void **buf)
{
    at_net_prog_cache *c = ctx;
    return c->be->buf_new(c->be_ctx, bytes, buf);
}

static void c_buf_free(void *ctx, void *buf)
{
    at_net_prog_cache *c = ctx;
    c->be->buf_free(c->be_ctx, buf);
}

static at_status c_buf_write(void *ctx, void *buf, const void *src)
{
    at_net_prog_cache *c = ctx;
    return c->be->buf_write(c->be_ctx, buf, src);
}

static at_status c_buf_read(void *ctx, void *buf, void *dst)
{
    at_net_prog_cache *c = ctx;
    return c->be->buf_read(c->be_ctx, buf, dst);
}

/* A program handed out is the entry itself (or, passing through, the backend's program). */
static void *underlying(const at_net_prog_cache *c, void *prog)
{
    return c->be->prog_outlives_source ? ((entry *)prog)->prog : prog;
}

static at_status c_prog_new(void *ctx, const at_ir_program *p, void **out)
{
    at_net_prog_cache *c = ctx;
    if (!c->be->prog_outlives_source) {
        AT_TRY(c->be->prog_new(c->be_ctx, p, out));
        c->n_built++;
        return AT_OK;
    }
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_ir_print(p, &sb);
    if (sb.failed) {
        at_strbuf_fini(&sb);
        return AT_OOM();
    }
    for (size_t i = 0; i < c->n; i++)
        if (c->e[i]->len == sb.len && !memcmp(c->e[i]->text, sb.data, sb.len)) {
            at_strbuf_fini(&sb);
            *out = c->e[i];
            return AT_OK;
        }
    at_status st = AT_OK;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        entry **e = at_realloc(c->e, cap * sizeof *e);
        if (e) {
            c->e = e;
            c->cap = cap;
        }
        st = e ? AT_OK : AT_OOM();
    }
    entry *x = st == AT_OK ? at_calloc(1, sizeof *x) : NULL;
    if (st == AT_OK && !x) st = AT_OOM();
    if (st == AT_OK) st = c->be->prog_new(c->be_ctx, p, &x->prog);
    if (st == AT_OK) {
        x->len = sb.len;
        x->text = at_strbuf_take(&sb);
        if (!x->text) {
            c->be->prog_free(c->be_ctx, x->prog);
            st = AT_OOM();
        }
    }
    at_strbuf_fini(&sb);
    if (st != AT_OK) {
        at_free(x);
        return st;
    }
    c->e[c->n++] = x;
    c->n_built++;
    *out = x;
    return AT_OK;
}

static void c_prog_free(void *ctx, void *prog)
{
    at_net_prog_cache *c = ctx;
    if (!c->be->prog_outlives_source) c->be->prog_free(c->be_ctx, prog); /* entries go with the cache */
}

static at_status c_prog_run(void *ctx, void *prog, void *const *bufs, size_t n, bool skip_prepare, double *device_ms)
{
    at_net_prog_cache *c = ctx;
    return c->be->prog_run(c->be_ctx, underlying(c, prog), bufs, n, skip_prepare, device_ms);
}

static at_status c_finish(void *ctx)
{
    at_net_prog_cache *c = ctx;
    return c->be->finish(c->be_ctx);
}

static at_status c_seq_new(void *ctx, void **seq)
{
    at_net_prog_cache *c = ctx;
    return c->be->seq_new(c->be_ctx, seq);
}

static at_status c_seq_add(void *ctx, void *seq, void *prog, void *const *bufs, size_t n)
{
    at_net_prog_cache *c = ctx;
    return c->be->seq_add(c->be_ctx, seq, underlying(c, prog), bufs, n);
}

static at_status c_seq_run(void *ctx, void *seq, bool skip_prepare, double *device_ms, double *step_ms)
{
    at_net_prog_cache *c = ctx;
    return c->be->seq_run(c->be_ctx, seq, skip_prepare, device_ms, step_ms);
}

static void c_seq_free(void *ctx, void *seq)
{
    at_net_prog_cache *c = ctx;
    c->be->seq_free(c->be_ctx, seq);
}

at_status at_net_prog_cache_new(const at_net_backend_i *be, void *be_ctx, at_net_prog_cache **out)
{
    at_net_prog_cache *c = at_calloc(1, sizeof *c);
    if (!c) return AT_OOM();
    c->be = be;
    c->be_ctx = be_ctx;
    c->vt = (at_net_backend_i){
        .name = be->name,
        .buf_new = c_buf_new,
        .buf_free = c_buf_free,
        .buf_write = c_buf_write,
        .buf_read = c_buf_read,
        .prog_new = c_prog_new,
        .prog_outlives_source = be->prog_outlives_source,
        .prog_free = c_prog_free,
        .prog_run = c_prog_run,
        .finish = be->finish ? c_finish : NULL,
    };
    if (be->seq_new) {
        c->vt.seq_new = c_seq_new;
        c->vt.seq_add = c_seq_add;
        c->vt.seq_run = c_seq_run;
        c->vt.seq_free = c_seq_free;
    }
    *out = c;
    return AT_OK;
}

void at_net_prog_cache_free(at_net_prog_cache *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->n; i++) {
        c->be->prog_free(c->be_ctx, c->e[i]->prog);
        at_free(c->e[i]->text);
        at_free(c->e[i]);
    }
    at_free(c->e);
    at_free(c);
}

const at_net_backend_i *at_net_prog_cache_backend(const at_net_prog_cache *c)
{
    return &c->vt;
}

size_t at_net_prog_cache_n_built(const at_net_prog_cache *c)
{
    return c->n_built;
}
