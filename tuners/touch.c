/* TVM's touch extractor (src/autotvm/touch_extractor.cc, spec §5.3) on our IR, and the fixed
 * itervar / curve grids built from it. One pre-order walk over every kernel keeps TVM's loop
 * stack and its enter/exit bookkeeping exactly; the one deliberate difference is the index
 * parser: TVM reads strides off TVM's simplified index syntactically (`v * 16`), our indexes
 * are not simplified, so strides are the affine coefficients of the index (let-bound variables
 * substituted), which is what TVM's syntactic reading yields on a simplified index. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "tuners/feature.h"

typedef struct bufcount {
    const char *name;
    size_t      count;
} bufcount;

typedef struct walker {
    at_tuner_touch *t;
    size_t          cap_loops, cap_names;
    size_t         *stack; /* loop record indexes */
    size_t          n_stack, cap_stack;
    size_t         *skip; /* stack sizes at which a duplicate vthread was skipped */
    size_t          n_skip, cap_skip;
    int64_t         topdown;
    uint32_t        n_vars;
    uint8_t        *var_seen;             /* by var id */
    const at_ir_expr **let_val;           /* by var id, while inside the let */
    int64_t        *coef;                 /* index parser: coefficient by var id */
    uint8_t        *present;              /* index parser: var occurs in the index */
    uint32_t       *touched;              /* var ids set in present, to reset them */
    size_t          n_touched;
    bufcount       *bufs;
    size_t          n_bufs, cap_bufs;
    at_status       st;
} walker;

double at_tuner_touch_log(int64_t x)
{
    if (x < 0) return -log2(1.0 - (double)x);
    return log2((double)x + 1.0);
}

static bool grow(walker *w, void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return true;
    size_t n = *cap ? *cap * 2 : 8;
    while (n < need) n *= 2;
    void *q = at_realloc(*p, n * elem);
    if (!q) {
        w->st = AT_OOM();
        return false;
    }
    *p = q;
    *cap = n;
    return true;
}

static int parallel_level(at_tuner_touch_ann a)
{
    switch (a) {
    case AT_TUNER_TOUCH_BLOCK_X:
    case AT_TUNER_TOUCH_BLOCK_Y:
    case AT_TUNER_TOUCH_BLOCK_Z: return 2;
    case AT_TUNER_TOUCH_THREAD_X:
    case AT_TUNER_TOUCH_THREAD_Y:
    case AT_TUNER_TOUCH_THREAD_Z:
    case AT_TUNER_TOUCH_PARALLEL: return 1;
    case AT_TUNER_TOUCH_UNROLLED:
    case AT_TUNER_TOUCH_VECTORIZED:
    case AT_TUNER_TOUCH_SERIAL:
    case AT_TUNER_TOUCH_VTHREAD: return 0;
    }
    return 0;
}

static at_tuner_touch_ann ann_of(at_ir_for_kind k)
{
    switch (k) {
    case AT_IR_SERIAL: return AT_TUNER_TOUCH_SERIAL;
    case AT_IR_UNROLLED: return AT_TUNER_TOUCH_UNROLLED;
    case AT_IR_VECTORIZED: return AT_TUNER_TOUCH_VECTORIZED;
    case AT_IR_VTHREAD: return AT_TUNER_TOUCH_VTHREAD;
    case AT_IR_BLOCK_X: return AT_TUNER_TOUCH_BLOCK_X;
    case AT_IR_BLOCK_Y: return AT_TUNER_TOUCH_BLOCK_Y;
    case AT_IR_BLOCK_Z: return AT_TUNER_TOUCH_BLOCK_Z;
    case AT_IR_THREAD_X: return AT_TUNER_TOUCH_THREAD_X;
    case AT_IR_THREAD_Y: return AT_TUNER_TOUCH_THREAD_Y;
    case AT_IR_THREAD_Z: return AT_TUNER_TOUCH_THREAD_Z;
    case AT_IR_PARALLEL: return AT_TUNER_TOUCH_PARALLEL;
    case AT_IR_FOR_KIND_COUNT: break;
    }
    AT_ASSERT(!"unknown loop kind");
    return AT_TUNER_TOUCH_SERIAL;
}

/* Pattern k of loop v in a loop l enclosing it (or v itself), asked when v exits: every access
 * entered while v was on the stack was appended to l's patterns too, in increasing access
 * order, so v's patterns are the tail of l's (no search: winograd's loops hold thousands). */
static at_tuner_touch_pattern *tail_pattern(at_tuner_touch_loop *l, const at_tuner_touch_loop *v, size_t k)
{
    AT_ASSERT(l->n_touch >= v->n_touch);
    return &l->touch[l->n_touch - v->n_touch + k];
}

static int64_t sat_mul(int64_t a, int64_t b)
{
    if (a == 0 || b == 0) return 0;
    if (llabs(a) > INT64_MAX / llabs(b)) return ((a < 0) != (b < 0)) ? -INT64_MAX : INT64_MAX;
    return a * b;
}

static int64_t sat_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < -INT64_MAX - b) return -INT64_MAX;
    return a + b;
}

/* Affine coefficient of every variable of an index expression, scaled by `scale`; outside
 * affine forms every variable still counts as present (TVM gives it stride 1). */
static void linearize(walker *w, const at_ir_expr *e, int64_t scale, int depth)
{
    if (!e || depth > 256) return;
    switch (e->kind) {
    case AT_IR_INT_IMM:
    case AT_IR_FLOAT_IMM: return;
    case AT_IR_VAR: {
        uint32_t id = e->u.var->id;
        AT_ASSERT(id < w->n_vars);
        if (w->let_val[id]) {
            linearize(w, w->let_val[id], scale, depth + 1);
            return;
        }
        if (!w->present[id]) {
            w->present[id] = 1;
            w->coef[id] = 0;
            w->touched[w->n_touched++] = id;
        }
        w->coef[id] = sat_add(w->coef[id], scale);
        return;
    }
    case AT_IR_BINARY: {
        const at_ir_expr *a = e->u.bin.a, *b = e->u.bin.b;
        switch (e->u.bin.op) {
        case AT_IR_ADD:
            linearize(w, a, scale, depth + 1);
            linearize(w, b, scale, depth + 1);
            return;
        case AT_IR_SUB:
            linearize(w, a, scale, depth + 1);
            linearize(w, b, -scale, depth + 1);
            return;
        case AT_IR_MUL:
            if (b->kind == AT_IR_INT_IMM) {
                linearize(w, a, sat_mul(scale, b->u.int_val), depth + 1);
                return;
            }
            if (a->kind == AT_IR_INT_IMM) {
                linearize(w, b, sat_mul(scale, a->u.int_val), depth + 1);
                return;
            }
            break;
        case AT_IR_DIV: case AT_IR_MOD: case AT_IR_MIN: case AT_IR_MAX: case AT_IR_EQ: case AT_IR_NE:
        case AT_IR_LT: case AT_IR_LE: case AT_IR_GT: case AT_IR_GE: case AT_IR_AND: case AT_IR_OR:
        case AT_IR_BIT_AND: case AT_IR_BIT_OR: case AT_IR_BIT_XOR: case AT_IR_SHL: case AT_IR_SHR:
        case AT_IR_BINOP_COUNT: break;
        }
        linearize(w, a, scale, depth + 1);
        linearize(w, b, scale, depth + 1);
        return;
    }
    case AT_IR_UNARY:
        linearize(w, e->u.un.a, e->u.un.op == AT_IR_NEG ? -scale : scale, depth + 1);
        return;
    case AT_IR_SELECT:
        linearize(w, e->u.select.cond, scale, depth + 1);
        linearize(w, e->u.select.t, scale, depth + 1);
        linearize(w, e->u.select.f, scale, depth + 1);
        return;
    case AT_IR_CAST: linearize(w, e->u.cast.a, scale, depth + 1); return;
    case AT_IR_LOAD: linearize(w, e->u.load.index, scale, depth + 1); return;
    case AT_IR_BROADCAST: linearize(w, e->u.broadcast.a, scale, depth + 1); return;
    case AT_IR_LANE: linearize(w, e->u.lane.a, scale, depth + 1); return;
    case AT_IR_VECTOR:
        for (size_t i = 0; i < e->u.vector.n; i++) linearize(w, e->u.vector.elems[i], scale, depth + 1);
        return;
    case AT_IR_CALL:
        for (size_t i = 0; i < e->u.call.n_args; i++) linearize(w, e->u.call.args[i], scale, depth + 1);
        return;
    case AT_IR_EXPR_KIND_COUNT: break;
    }
}

/* EnterMem_: name the access, parse its index, give every loop on the stack a pattern. */
static void enter_mem(walker *w, const at_ir_buffer *buf, const at_ir_expr *index)
{
    at_tuner_touch *t = w->t;
    size_t b = 0;
    while (b < w->n_bufs && strcmp(w->bufs[b].name, buf->name) != 0) b++;
    if (b == w->n_bufs) {
        if (!grow(w, (void **)&w->bufs, &w->cap_bufs, w->n_bufs + 1, sizeof *w->bufs)) return;
        w->bufs[w->n_bufs++] = (bufcount){buf->name, 0};
    }
    size_t len = strlen(buf->name) + 24;
    char *name = at_malloc(len);
    if (!name || !grow(w, (void **)&t->access_names, &w->cap_names, t->n_access + 1, sizeof *t->access_names)) {
        at_free(name);
        if (w->st == AT_OK) w->st = AT_OOM();
        return;
    }
    snprintf(name, len, "%s_%zu", buf->name, w->bufs[b].count++);
    size_t a = t->n_access++;
    t->access_names[a] = name;

    w->n_touched = 0;
    linearize(w, index, 1, 0);
    for (size_t i = 0; i < w->n_stack; i++) {
        at_tuner_touch_loop *l = &t->loops[w->stack[i]];
        /* capacity is implicit: 4, then doubled whenever n_touch reaches a power of two */
        size_t n = l->n_touch;
        if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
            void *q = at_realloc(l->touch, (n ? 2 * n : 4) * sizeof *l->touch);
            if (!q) {
                w->st = AT_OOM();
                break;
            }
            l->touch = q;
        }
        uint32_t id = l->var->id;
        int64_t stride = 0;
        if (w->present[id]) stride = w->coef[id] != 0 ? w->coef[id] : 1;
        l->touch[l->n_touch++] = (at_tuner_touch_pattern){
            .access = a, .stride = stride, .mod = -1, .count = 1, .reuse = 1, .thread_count = 0, .thread_reuse = 0};
    }
    for (size_t i = 0; i < w->n_touched; i++) w->present[w->touched[i]] = 0;
}

static void count_arith(walker *w, const at_ir_expr *e)
{
    if (w->n_stack == 0 || !at_ir_type_is_float(e->type)) return;
    at_tuner_touch_loop *l = &w->t->loops[w->stack[w->n_stack - 1]];
    switch (e->u.bin.op) {
    case AT_IR_ADD:
    case AT_IR_SUB: l->add_ct++; break;
    case AT_IR_MUL: l->mul_ct++; break;
    case AT_IR_DIV:
    case AT_IR_MOD: l->div_ct++; break;
    case AT_IR_MIN: case AT_IR_MAX: case AT_IR_EQ: case AT_IR_NE: case AT_IR_LT: case AT_IR_LE:
    case AT_IR_GT: case AT_IR_GE: case AT_IR_AND: case AT_IR_OR: case AT_IR_BIT_AND: case AT_IR_BIT_OR:
    case AT_IR_BIT_XOR: case AT_IR_SHL: case AT_IR_SHR: case AT_IR_BINOP_COUNT: break;
    }
}

static void visit_expr(walker *w, const at_ir_expr *e)
{
    if (!e || w->st != AT_OK) return;
    switch (e->kind) {
    case AT_IR_INT_IMM:
    case AT_IR_FLOAT_IMM:
    case AT_IR_VAR: return;
    case AT_IR_BINARY:
        count_arith(w, e);
        visit_expr(w, e->u.bin.a);
        visit_expr(w, e->u.bin.b);
        return;
    case AT_IR_UNARY: visit_expr(w, e->u.un.a); return;
    case AT_IR_SELECT:
        visit_expr(w, e->u.select.cond);
        visit_expr(w, e->u.select.t);
        visit_expr(w, e->u.select.f);
        return;
    case AT_IR_CAST: visit_expr(w, e->u.cast.a); return;
    case AT_IR_LOAD:
        enter_mem(w, e->u.load.buf, e->u.load.index);
        visit_expr(w, e->u.load.index);
        return;
    case AT_IR_BROADCAST: visit_expr(w, e->u.broadcast.a); return;
    case AT_IR_LANE: visit_expr(w, e->u.lane.a); return;
    case AT_IR_VECTOR:
        for (size_t i = 0; i < e->u.vector.n; i++) visit_expr(w, e->u.vector.elems[i]);
        return;
    case AT_IR_CALL:
        for (size_t i = 0; i < e->u.call.n_args; i++) visit_expr(w, e->u.call.args[i]);
        return;
    case AT_IR_EXPR_KIND_COUNT: break;
    }
}

/* EnterItervar_; a virtual thread whose variable was seen before is only marked for skipping. */
static void enter_loop(walker *w, const at_ir_var *var, int64_t length, at_tuner_touch_ann ann)
{
    at_tuner_touch *t = w->t;
    AT_ASSERT(var->id < w->n_vars);
    if (ann == AT_TUNER_TOUCH_VTHREAD && w->var_seen[var->id]) {
        if (grow(w, (void **)&w->skip, &w->cap_skip, w->n_skip + 1, sizeof *w->skip))
            w->skip[w->n_skip++] = w->n_stack;
        return;
    }
    if (!grow(w, (void **)&w->stack, &w->cap_stack, w->n_stack + 1, sizeof *w->stack)) return;
    if (!grow(w, (void **)&t->loops, &w->cap_loops, t->n_loops + 1, sizeof *t->loops)) return;
    w->stack[w->n_stack++] = t->n_loops;
    w->topdown = sat_mul(w->topdown, length);
    w->var_seen[var->id] = 1;
    t->loops[t->n_loops++] = (at_tuner_touch_loop){
        .var = var, .length = length, .nest_level = (int)w->n_stack, .ann = ann, .topdown = w->topdown};
}

/* ExitItervar_ (spec §5.3 steps 1-5). */
static void exit_loop(walker *w)
{
    at_tuner_touch *t = w->t;
    if (w->n_skip && w->skip[w->n_skip - 1] == w->n_stack) {
        w->n_skip--;
        return;
    }
    AT_ASSERT(w->n_stack > 0);
    at_tuner_touch_loop *v = &t->loops[w->stack[w->n_stack - 1]];
    for (size_t k = 0; k < v->n_touch; k++) {
        size_t a = v->touch[k].access;
        bool moves = v->touch[k].stride != 0;
        for (size_t i = 0; i < w->n_stack; i++) {
            at_tuner_touch_pattern *p = tail_pattern(&t->loops[w->stack[i]], v, k);
            AT_ASSERT(p->access == a);
            if (moves)
                p->count = sat_mul(p->count, v->length);
            else
                p->reuse = sat_mul(p->reuse, v->length);
        }
    }
    w->n_stack--;
    if (v->length != 0) w->topdown /= v->length;
    int64_t bottomup = -1;
    for (size_t k = 0; k < v->n_touch; k++) {
        int64_t cr = sat_mul(v->touch[k].count, v->touch[k].reuse);
        if (cr > bottomup) bottomup = cr;
    }
    v->bottomup = bottomup;

    int level = parallel_level(v->ann);
    if (w->n_stack > 0 && parallel_level(t->loops[w->stack[w->n_stack - 1]].ann) == level + 1) {
        for (size_t k = 0; k < v->n_touch; k++) {
            for (size_t i = 0; i < w->n_stack; i++) {
                at_tuner_touch_loop *s = &t->loops[w->stack[i]];
                if (parallel_level(s->ann) != level + 1) continue;
                at_tuner_touch_pattern *p = tail_pattern(s, v, k);
                p->thread_reuse = -v->touch[k].reuse;
                p->thread_count = -v->touch[k].count;
            }
        }
    }
    for (size_t k = 0; k < v->n_touch; k++) {
        at_tuner_touch_pattern *p = &v->touch[k];
        if (p->thread_count < 0) {
            p->thread_count = p->count / (-p->thread_count);
            p->thread_reuse = p->thread_reuse < 0 ? p->reuse / (-p->thread_reuse) : 0;
        }
    }
}

static void visit_stmt(walker *w, const at_ir_stmt *s)
{
    if (!s || w->st != AT_OK) return;
    switch (s->kind) {
    case AT_IR_FOR:
        enter_loop(w, s->u.loop.var, s->u.loop.extent, ann_of(s->u.loop.kind));
        if (w->st != AT_OK) return;
        visit_stmt(w, s->u.loop.body);
        if (w->st != AT_OK) return;
        exit_loop(w);
        return;
    case AT_IR_STORE:
        enter_mem(w, s->u.store.buf, s->u.store.index);
        visit_expr(w, s->u.store.value);
        visit_expr(w, s->u.store.index);
        return;
    case AT_IR_SEQ:
        for (size_t i = 0; i < s->u.seq.n; i++) visit_stmt(w, s->u.seq.items[i]);
        return;
    case AT_IR_IF:
        visit_expr(w, s->u.if_.cond);
        visit_stmt(w, s->u.if_.then_s);
        visit_stmt(w, s->u.if_.else_s);
        return;
    case AT_IR_LET: {
        visit_expr(w, s->u.let.value);
        uint32_t id = s->u.let.var->id;
        AT_ASSERT(id < w->n_vars);
        const at_ir_expr *old = w->let_val[id];
        w->let_val[id] = s->u.let.value;
        visit_stmt(w, s->u.let.body);
        w->let_val[id] = old;
        return;
    }
    case AT_IR_PREFETCH: /* a hint: TVM's features see no access */
    case AT_IR_BARRIER: return;
    case AT_IR_STMT_KIND_COUNT: break;
    }
}

/* Stable merge sort of the access indexes by name, name_rank serving as scratch until it is
 * filled. Hand-unrolled templates (winograd's transforms) make thousands of accesses whose
 * names ("V_9" > "V_10") come in far from byte order, so an insertion sort's quadratic strcmp
 * calls were most of a feature extraction. */
static void sort_names(at_tuner_touch *t)
{
    size_t n = t->n_access, *a = t->names_sorted, *tmp = t->name_rank;
    char **nm = t->access_names;
    for (size_t i = 0; i < n; i++) a[i] = i;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t x = lo, y = mid, k = lo;
            while (x < mid && y < hi) tmp[k++] = strcmp(nm[a[y]], nm[a[x]]) < 0 ? a[y++] : a[x++];
            while (x < mid) tmp[k++] = a[x++];
            while (y < hi) tmp[k++] = a[y++];
        }
        memcpy(a, tmp, n * sizeof *a);
    }
    for (size_t r = 0; r < n; r++) t->name_rank[a[r]] = r;
}

/* Length of the buffer part of an access name "<buffer>_<n>". */
static size_t buffer_len(const char *access)
{
    return (size_t)(strrchr(access, '_') - access);
}

/* Distinct buffer names in byte order and each access's buffer. Walking accesses in name order
 * meets each buffer's accesses together except when one name prefixes another with '_' ("C"
 * and "C_local": "C_0" < "C_local_0" < "C_1"), so each name is searched among those so far. */
static at_status index_buffers(at_tuner_touch *t)
{
    t->access_buffer = at_malloc(t->n_access * sizeof *t->access_buffer);
    t->buffer_names = at_calloc(t->n_access, sizeof *t->buffer_names);
    if (!t->access_buffer || !t->buffer_names) return AT_OOM();
    for (size_t r = 0; r < t->n_access; r++) {
        const char *name = t->access_names[t->names_sorted[r]];
        size_t len = buffer_len(name), b = 0;
        while (b < t->n_buffers && !(strlen(t->buffer_names[b]) == len && !memcmp(t->buffer_names[b], name, len)))
            b++;
        if (b == t->n_buffers) {
            t->buffer_names[b] = at_strndup(name, len);
            if (!t->buffer_names[b]) return AT_OOM();
            t->n_buffers++;
        }
    }
    /* sort the names, then map every access to its buffer's rank */
    for (size_t i = 1; i < t->n_buffers; i++) {
        char *x = t->buffer_names[i];
        size_t j = i;
        while (j > 0 && strcmp(t->buffer_names[j - 1], x) > 0) {
            t->buffer_names[j] = t->buffer_names[j - 1];
            j--;
        }
        t->buffer_names[j] = x;
    }
    for (size_t a = 0; a < t->n_access; a++) {
        const char *name = t->access_names[a];
        size_t len = buffer_len(name), b = 0;
        while (!(strlen(t->buffer_names[b]) == len && !memcmp(t->buffer_names[b], name, len))) b++;
        t->access_buffer[a] = b;
    }
    return AT_OK;
}

at_status at_tuner_touch_analyze(const at_ir_program *p, at_tuner_touch **out)
{
    AT_ASSERT(p && out);
    *out = NULL;
    at_tuner_touch *t = at_calloc(1, sizeof *t);
    if (!t) return AT_OOM();
    walker w = {.t = t, .topdown = 1, .n_vars = p->n_vars, .st = AT_OK};
    size_t nv = p->n_vars ? p->n_vars : 1;
    w.var_seen = at_calloc(nv, 1);
    w.present = at_calloc(nv, 1);
    w.let_val = at_calloc(nv, sizeof *w.let_val);
    w.coef = at_calloc(nv, sizeof *w.coef);
    w.touched = at_calloc(nv, sizeof *w.touched);
    if (!w.var_seen || !w.present || !w.let_val || !w.coef || !w.touched) w.st = AT_OOM();
    for (size_t k = 0; k < p->n_kernels && w.st == AT_OK; k++) {
        w.n_stack = 0;
        w.n_skip = 0;
        w.topdown = 1;
        visit_stmt(&w, p->kernels[k].body);
    }
    if (w.st == AT_OK && t->n_access) {
        t->names_sorted = at_malloc(t->n_access * sizeof *t->names_sorted);
        t->name_rank = at_malloc(t->n_access * sizeof *t->name_rank);
        if (!t->names_sorted || !t->name_rank) {
            w.st = AT_OOM();
        } else {
            sort_names(t);
            w.st = index_buffers(t);
        }
    }
    at_free(w.var_seen);
    at_free(w.present);
    at_free(w.let_val);
    at_free(w.coef);
    at_free(w.touched);
    at_free(w.stack);
    at_free(w.skip);
    at_free(w.bufs);
    if (w.st != AT_OK) {
        at_tuner_touch_free(t);
        return w.st;
    }
    *out = t;
    return AT_OK;
}

void at_tuner_touch_free(at_tuner_touch *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->n_loops; i++) at_free(t->loops[i].touch);
    at_free(t->loops);
    for (size_t i = 0; i < t->n_access; i++) at_free(t->access_names[i]);
    at_free(t->access_names);
    at_free(t->names_sorted);
    at_free(t->name_rank);
    at_free(t->access_buffer);
    if (t->buffer_names)
        for (size_t i = 0; i < t->n_buffers; i++) at_free(t->buffer_names[i]);
    at_free(t->buffer_names);
    at_free(t);
}

void at_tuner_touch_itervar(const at_tuner_touch *t, float *out)
{
    memset(out, 0, AT_FEAT_ITERVAR_IR_LEN * sizeof *out);
    size_t n = t->n_loops < AT_FEAT_ITERVAR_LOOPS ? t->n_loops : AT_FEAT_ITERVAR_LOOPS;
    for (size_t i = 0; i < n; i++) {
        const at_tuner_touch_loop *l = &t->loops[i];
        float *row = out + i * AT_FEAT_LOOP_WIDTH;
        row[0] = (float)at_tuner_touch_log(l->length);
        row[1] = (float)l->nest_level;
        row[2] = (float)at_tuner_touch_log(l->topdown);
        row[3] = (float)at_tuner_touch_log(l->bottomup);
        row[4 + l->ann] = 1.0f;
        row[4 + AT_FEAT_ANN_WIDTH + 0] = (float)at_tuner_touch_log(l->add_ct);
        row[4 + AT_FEAT_ANN_WIDTH + 1] = (float)at_tuner_touch_log(l->mul_ct);
        row[4 + AT_FEAT_ANN_WIDTH + 2] = (float)at_tuner_touch_log(l->div_ct);
        bool filled[AT_FEAT_ITERVAR_BUFFERS] = {false};
        for (size_t k = 0; k < l->n_touch; k++) { /* increasing access index: first access first */
            const at_tuner_touch_pattern *p = &l->touch[k];
            size_t b = t->access_buffer[p->access];
            if (b >= AT_FEAT_ITERVAR_BUFFERS || filled[b]) continue;
            filled[b] = true;
            float *f = row + 4 + AT_FEAT_ANN_WIDTH + 3 + 6 * b;
            f[0] = (float)at_tuner_touch_log(p->stride);
            f[1] = (float)at_tuner_touch_log(p->mod);
            f[2] = (float)at_tuner_touch_log(p->count);
            f[3] = (float)at_tuner_touch_log(p->reuse);
            f[4] = (float)at_tuner_touch_log(p->thread_count);
            f[5] = (float)at_tuner_touch_log(p->thread_reuse);
        }
    }
}

/* Length of the raw buffer name of an access name: "A_shared_3" -> "A_shared", then cut at the
 * first '.' ("A.shared" -> "A"), as TVM strips the access number and the memory scope. */
static size_t raw_len(const char *name)
{
    const char *us = strrchr(name, '_');
    size_t n = us ? (size_t)(us - name) : strlen(name);
    const char *dot = memchr(name, '.', n);
    return dot ? (size_t)(dot - name) : n;
}

/* Points of one curve: the leading 0 and one per loop holding the access (more are dropped). */
#define CURVE_MAX_POINTS 256

static double log2_pos(int64_t x)
{
    return x > 0 ? log2((double)x) : 0.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* TVM's sample_curve: for xx = 0 .. n-1 the last point with x <= xx (+1e-6): y and xx - x. */
static float *sample_curve(const double *x, const double *y, size_t len, float *out)
{
    for (int i = 0; i < AT_FEAT_CURVE_SAMPLES; i++) {
        double xx = i;
        double yv = 0, dx = 0;
        for (size_t j = len; j-- > 0;) {
            if (xx > x[j] - 1e-6) {
                yv = y[j];
                dx = xx - x[j];
                break;
            }
        }
        *out++ = (float)yv;
        *out++ = (float)dx;
    }
    return out;
}

void at_tuner_touch_curve(const at_tuner_touch *t, float *out)
{
    memset(out, 0, AT_FEAT_CURVE_IR_LEN * sizeof *out);
    int max_depth = 0;
    for (size_t i = 0; i < t->n_loops; i++)
        if (t->loops[i].nest_level > max_depth) max_depth = t->loops[i].nest_level;
    /* innermost buffers: walking loops backwards, the first access of each raw buffer seen at
     * the deepest level; within a loop, accesses in name order (TVM's order is a hash map's) */
    size_t chosen[AT_FEAT_CURVE_BUFFERS * 4];
    size_t n_chosen = 0;
    const size_t cap = sizeof chosen / sizeof chosen[0];
    for (size_t i = t->n_loops; i-- > 0 && n_chosen < cap;) {
        const at_tuner_touch_loop *l = &t->loops[i];
        if (l->nest_level != max_depth) continue;
        for (size_t r = 0; r < t->n_access && n_chosen < cap; r++) {
            size_t a = t->names_sorted[r];
            bool in_loop = false;
            for (size_t k = 0; k < l->n_touch && !in_loop; k++) in_loop = l->touch[k].access == a;
            if (!in_loop) continue;
            const char *name = t->access_names[a];
            size_t rl = raw_len(name);
            bool dup = false;
            for (size_t c = 0; c < n_chosen && !dup; c++) {
                const char *other = t->access_names[chosen[c]];
                dup = raw_len(other) == rl && memcmp(other, name, rl) == 0;
            }
            if (!dup) chosen[n_chosen++] = a;
        }
    }
    /* slots in access-name order */
    for (size_t i = 1; i < n_chosen; i++) {
        size_t x = chosen[i], j = i;
        while (j > 0 && t->name_rank[chosen[j - 1]] > t->name_rank[x]) {
            chosen[j] = chosen[j - 1];
            j--;
        }
        chosen[j] = x;
    }
    if (n_chosen > AT_FEAT_CURVE_BUFFERS) n_chosen = AT_FEAT_CURVE_BUFFERS;
    for (size_t c = 0; c < n_chosen; c++) {
        size_t a = chosen[c], len = 1;
        double count[CURVE_MAX_POINTS], reuse[CURVE_MAX_POINTS], topdown[CURVE_MAX_POINTS];
        const size_t max_pts = sizeof count / sizeof count[0];
        count[0] = reuse[0] = topdown[0] = 0;
        for (size_t i = 0; i < t->n_loops && len < max_pts; i++) {
            const at_tuner_touch_loop *l = &t->loops[i];
            for (size_t k = 0; k < l->n_touch; k++) {
                if (l->touch[k].access != a) continue;
                reuse[len] = log2_pos(l->touch[k].reuse);
                count[len] = log2_pos(l->touch[k].count);
                topdown[len] = log2_pos(l->topdown);
                len++;
                break;
            }
        }
        qsort(count, len, sizeof *count, cmp_double);
        qsort(reuse, len, sizeof *reuse, cmp_double);
        qsort(topdown, len, sizeof *topdown, cmp_double);
        float *f = out + c * 8 * AT_FEAT_CURVE_SAMPLES;
        f = sample_curve(count, reuse, len, f);
        f = sample_curve(reuse, count, len, f);
        f = sample_curve(count, topdown, len, f);
        sample_curve(topdown, count, len, f);
    }
}
