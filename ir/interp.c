/* IR interpreter: the conformance oracle's other half (STYLE 2.9). Each work-item keeps an
 * explicit statement stack, so the items of a work-group can run in lock step: every item runs
 * until it reaches a barrier or ends, then the next; a round where some items end while others
 * wait at a barrier is a divergent barrier. Values are computed per lane in int64 / double and
 * rounded to their type after every operation, as the device's arithmetic would. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "ir/internal.h"
#include "ir/ir.h"

typedef struct val {
    at_ir_type t;
    union {
        int64_t i[AT_IR_MAX_LANES];
        double  f[AT_IR_MAX_LANES];
    } u;
} val;

typedef struct frame {
    const at_ir_stmt *s;
    int64_t           i; /* loop counter, sequence position, or 0/1 "entered" */
} frame;

typedef struct item {
    frame         *stack;
    int            sp;
    bool           done;
    val           *env;  /* by var id */
    unsigned char *priv; /* this item's private buffers */
    int64_t        lid[3];
} item;

typedef struct ictx {
    const at_ir_program *p;
    const at_ir_kernel  *k;
    unsigned char      **base;     /* by buffer id: global or (this group's) local memory */
    size_t              *priv_off; /* by buffer id: offset in an item's private block */
    item                *cur;
    int64_t              gid[3];
} ictx;

/* ---- scalars -------------------------------------------------------------------------------- */

static double half_to_double(uint16_t h)
{
    int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double v;
    if (exp == 0)
        v = ldexp(mant, -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = ldexp(mant | 0x400, exp - 25);
    return (h & 0x8000) ? -v : v;
}

static uint16_t double_to_half(double d)
{
    float f = (float)d;
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    int exp = (int)((x >> 23) & 0xff) - 127 + 15;
    uint32_t mant = x & 0x7fffff;
    if (((x >> 23) & 0xff) == 0xff) return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
    if (exp >= 31) return (uint16_t)(sign | 0x7c00);
    if (exp <= 0) {
        if (exp < -10) return sign;
        mant |= 0x800000;
        uint32_t shift = (uint32_t)(14 - exp), h = mant >> shift, rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (h & 1))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)exp << 10) | (mant >> 13), rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++;
    return (uint16_t)(sign | h);
}

/* A float result rounded to its type's precision. */
static double round_float(at_ir_type t, double v)
{
    if (t.bits == 32) return (double)(float)v;
    if (t.bits == 16) return half_to_double(double_to_half(v));
    return v;
}

static void read_elem(at_ir_type t, const unsigned char *p, val *out, int lane)
{
    switch (t.code) {
    case AT_IR_TFLOAT:
        if (t.bits == 32) {
            float f;
            memcpy(&f, p, 4);
            out->u.f[lane] = f;
        } else if (t.bits == 64) {
            memcpy(&out->u.f[lane], p, 8);
        } else {
            uint16_t h;
            memcpy(&h, p, 2);
            out->u.f[lane] = half_to_double(h);
        }
        return;
    case AT_IR_TBOOL: out->u.i[lane] = *p != 0; return;
    case AT_IR_TINT:
    case AT_IR_TUINT: {
        uint64_t u = 0;
        memcpy(&u, p, t.bits / 8); /* little-endian host */
        out->u.i[lane] = at_ir_wrap_int(t, (int64_t)u);
        return;
    }
    default: AT_ASSERT(!"bad type code");
    }
}

static void write_elem(at_ir_type t, unsigned char *p, const val *v, int lane)
{
    switch (t.code) {
    case AT_IR_TFLOAT:
        if (t.bits == 32) {
            float f = (float)v->u.f[lane];
            memcpy(p, &f, 4);
        } else if (t.bits == 64) {
            memcpy(p, &v->u.f[lane], 8);
        } else {
            uint16_t h = double_to_half(v->u.f[lane]);
            memcpy(p, &h, 2);
        }
        return;
    case AT_IR_TBOOL: *p = v->u.i[lane] != 0; return;
    case AT_IR_TINT:
    case AT_IR_TUINT: {
        uint64_t u = (uint64_t)v->u.i[lane];
        memcpy(p, &u, t.bits / 8);
        return;
    }
    default: AT_ASSERT(!"bad type code");
    }
}

/* Fills n elements with a recognizable garbage pattern: NaN for floats, 0xA5 bytes otherwise. */
static void fill_garbage(at_ir_type t, unsigned char *p, int64_t n)
{
    size_t bytes = at_ir_type_bytes(t);
    if (t.code != AT_IR_TFLOAT) {
        memset(p, 0xA5, (size_t)n * bytes);
        return;
    }
    val nan = {.t = t, .u.f = {NAN}};
    for (int64_t i = 0; i < n; i++) write_elem(t, p + (size_t)i * bytes, &nan, 0);
}

/* ---- expressions ---------------------------------------------------------------------------- */

static at_status eval(ictx *c, const at_ir_expr *e, val *out);

static at_status int_binop(ictx *c, at_ir_binop op, at_ir_type t, int64_t x, int64_t y, int64_t *r)
{
    bool uns = t.code == AT_IR_TUINT;
    uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
    unsigned shift = (unsigned)((uint64_t)y & (uint64_t)(t.bits - 1));
    switch (op) {
    case AT_IR_ADD: *r = (int64_t)(ux + uy); break;
    case AT_IR_SUB: *r = (int64_t)(ux - uy); break;
    case AT_IR_MUL: *r = (int64_t)(ux * uy); break;
    case AT_IR_DIV:
    case AT_IR_MOD:
        if (y == 0) return AT_FAIL(AT_EINVAL, "kernel %s: integer division by zero", c->k->name);
        if (uns)
            *r = (int64_t)(op == AT_IR_DIV ? ux / uy : ux % uy);
        else if (y == -1)
            *r = op == AT_IR_DIV ? (int64_t)(0 - ux) : 0;
        else
            *r = op == AT_IR_DIV ? x / y : x % y;
        break;
    case AT_IR_MIN: *r = (uns ? ux < uy : x < y) ? x : y; break;
    case AT_IR_MAX: *r = (uns ? ux > uy : x > y) ? x : y; break;
    case AT_IR_EQ: *r = x == y; return AT_OK;
    case AT_IR_NE: *r = x != y; return AT_OK;
    case AT_IR_LT: *r = uns ? ux < uy : x < y; return AT_OK;
    case AT_IR_LE: *r = uns ? ux <= uy : x <= y; return AT_OK;
    case AT_IR_GT: *r = uns ? ux > uy : x > y; return AT_OK;
    case AT_IR_GE: *r = uns ? ux >= uy : x >= y; return AT_OK;
    case AT_IR_AND: *r = x && y; return AT_OK;
    case AT_IR_OR: *r = x || y; return AT_OK;
    case AT_IR_BIT_AND: *r = (int64_t)(ux & uy); break;
    case AT_IR_BIT_OR: *r = (int64_t)(ux | uy); break;
    case AT_IR_BIT_XOR: *r = (int64_t)(ux ^ uy); break;
    case AT_IR_SHL: *r = (int64_t)(ux << shift); break;
    case AT_IR_SHR:
        if (uns)
            *r = (int64_t)(((uint64_t)at_ir_wrap_int(t, x) & (t.bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << t.bits) - 1))) >> shift);
        else
            *r = x >> shift; /* arithmetic shift, as OpenCL's >> on signed types */
        break;
    case AT_IR_BINOP_COUNT:
    default: AT_ASSERT(!"bad binop");
    }
    *r = at_ir_wrap_int(t, *r);
    return AT_OK;
}

static double float_binop(at_ir_binop op, double x, double y, bool *is_cmp, int64_t *cmp)
{
    *is_cmp = true;
    switch (op) {
    case AT_IR_EQ: *cmp = x == y; return 0;
    case AT_IR_NE: *cmp = x != y; return 0;
    case AT_IR_LT: *cmp = x < y; return 0;
    case AT_IR_LE: *cmp = x <= y; return 0;
    case AT_IR_GT: *cmp = x > y; return 0;
    case AT_IR_GE: *cmp = x >= y; return 0;
    case AT_IR_ADD: *is_cmp = false; return x + y;
    case AT_IR_SUB: *is_cmp = false; return x - y;
    case AT_IR_MUL: *is_cmp = false; return x * y;
    case AT_IR_DIV: *is_cmp = false; return x / y;
    case AT_IR_MOD: *is_cmp = false; return fmod(x, y);
    case AT_IR_MIN: *is_cmp = false; return fmin(x, y);
    case AT_IR_MAX: *is_cmp = false; return fmax(x, y);
    case AT_IR_AND: case AT_IR_OR: case AT_IR_BIT_AND: case AT_IR_BIT_OR: case AT_IR_BIT_XOR:
    case AT_IR_SHL: case AT_IR_SHR: case AT_IR_BINOP_COUNT:
    default: AT_ASSERT(!"binop not defined on floats");
    }
    return 0;
}

typedef struct intrinsic {
    const char *name;
    int         n_args;
    double (*f1)(double);
    double (*f2)(double, double);
} intrinsic;

static double rsqrt_(double x) { return 1.0 / sqrt(x); }
static double exp10_(double x) { return pow(10.0, x); }
static double sigmoid_(double x) { return 1.0 / (1.0 + exp(-x)); }

static const intrinsic intrinsics[] = {
    {"acos", 1, acos, NULL},   {"asin", 1, asin, NULL},     {"atan", 1, atan, NULL},   {"atan2", 2, NULL, atan2},
    {"ceil", 1, ceil, NULL},   {"copysign", 2, NULL, copysign}, {"cos", 1, cos, NULL}, {"cosh", 1, cosh, NULL},
    {"erf", 1, erf, NULL},     {"exp", 1, exp, NULL},       {"exp10", 1, exp10_, NULL}, {"exp2", 1, exp2, NULL},
    {"fabs", 1, fabs, NULL},   {"floor", 1, floor, NULL},   {"fmax", 2, NULL, fmax},   {"fmin", 2, NULL, fmin},
    {"fmod", 2, NULL, fmod},   {"log", 1, log, NULL},       {"log10", 1, log10, NULL}, {"log2", 1, log2, NULL},
    {"pow", 2, NULL, pow},     {"round", 1, round, NULL},   {"rsqrt", 1, rsqrt_, NULL}, {"sigmoid", 1, sigmoid_, NULL},
    {"sin", 1, sin, NULL},     {"sinh", 1, sinh, NULL},     {"sqrt", 1, sqrt, NULL},   {"tan", 1, tan, NULL},
    {"tanh", 1, tanh, NULL},   {"trunc", 1, trunc, NULL},
};

static at_status eval_call(ictx *c, const at_ir_expr *e, val *out)
{
    const char *name = e->u.call.name;
    size_t n = e->u.call.n_args;
    val a[3];
    if (n > 3) return AT_FAIL(AT_EINVAL, "kernel %s: intrinsic %s with %zu arguments", c->k->name, name, n);
    for (size_t i = 0; i < n; i++) {
        AT_TRY(eval(c, e->u.call.args[i], &a[i]));
        if (a[i].t.lanes != e->type.lanes)
            return AT_FAIL(AT_EINVAL, "kernel %s: intrinsic %s: argument lanes differ from the result's", c->k->name, name);
    }
    out->t = e->type;
    int lanes = e->type.lanes;
    bool flt = at_ir_type_is_float(e->type);
    if ((!strcmp(name, "fma") || !strcmp(name, "mad")) && n == 3 && flt) {
        for (int l = 0; l < lanes; l++) out->u.f[l] = round_float(e->type, fma(a[0].u.f[l], a[1].u.f[l], a[2].u.f[l]));
        return AT_OK;
    }
    if (!strcmp(name, "clamp") && n == 3) {
        for (int l = 0; l < lanes; l++) {
            if (flt)
                out->u.f[l] = fmin(fmax(a[0].u.f[l], a[1].u.f[l]), a[2].u.f[l]);
            else
                out->u.i[l] = a[0].u.i[l] < a[1].u.i[l] ? a[1].u.i[l] : a[0].u.i[l] > a[2].u.i[l] ? a[2].u.i[l] : a[0].u.i[l];
        }
        return AT_OK;
    }
    if (!strcmp(name, "abs") && n == 1 && !flt) {
        for (int l = 0; l < lanes; l++) out->u.i[l] = at_ir_wrap_int(e->type, a[0].u.i[l] < 0 ? -a[0].u.i[l] : a[0].u.i[l]);
        return AT_OK;
    }
    for (size_t i = 0; i < sizeof intrinsics / sizeof intrinsics[0]; i++) {
        if (strcmp(intrinsics[i].name, name) || (size_t)intrinsics[i].n_args != n || !flt) continue;
        for (int l = 0; l < lanes; l++)
            out->u.f[l] = round_float(e->type, n == 1 ? intrinsics[i].f1(a[0].u.f[l]) : intrinsics[i].f2(a[0].u.f[l], a[1].u.f[l]));
        return AT_OK;
    }
    return AT_FAIL(AT_EINVAL, "kernel %s: unknown intrinsic %s/%zu", c->k->name, name, n);
}

static at_status elem_ptr(ictx *c, const at_ir_buffer *b, int64_t index, int lanes, const char *what,
                          unsigned char **out)
{
    if (index < 0 || index > b->size - lanes)
        return AT_FAIL(AT_EINVAL, "kernel %s: %s %s[%lld%s] out of bounds 0..%lld", c->k->name, what, b->name,
                       (long long)index, lanes > 1 ? ":+lanes" : "", (long long)(b->size - 1));
    size_t off = (size_t)index * at_ir_type_bytes(b->elem);
    if (b->scope == AT_IR_PRIVATE)
        *out = c->cur->priv + c->priv_off[b->id] + off;
    else
        *out = c->base[b->id] + off;
    return AT_OK;
}

static int64_t to_int(at_ir_type from, const val *v, int l)
{
    if (from.code != AT_IR_TFLOAT) return v->u.i[l];
    double d = trunc(v->u.f[l]);
    if (isnan(d)) return 0;
    if (d >= 9.2233720368547758e18) return INT64_MAX;
    if (d <= -9.2233720368547758e18) return INT64_MIN;
    return (int64_t)d;
}

static double to_double(at_ir_type from, const val *v, int l)
{
    if (from.code == AT_IR_TFLOAT) return v->u.f[l];
    if (from.code == AT_IR_TUINT && from.bits == 64) return (double)(uint64_t)v->u.i[l];
    return (double)v->u.i[l];
}

static bool scalar_int_operands(const at_ir_expr *e)
{
    at_ir_type t = e->u.bin.a->type;
    return t.lanes == 1 && at_ir_type_is_int(t);
}

/* Scalar integer expressions (index arithmetic, the bulk of the work) without val temporaries. */
static at_status eval_i(ictx *c, const at_ir_expr *e, int64_t *out)
{
    switch (e->kind) {
    case AT_IR_INT_IMM: *out = e->u.int_val; return AT_OK;
    case AT_IR_VAR: *out = c->cur->env[e->u.var->id].u.i[0]; return AT_OK;
    case AT_IR_BINARY:
        if (scalar_int_operands(e)) {
            int64_t a, b;
            AT_TRY(eval_i(c, e->u.bin.a, &a));
            AT_TRY(eval_i(c, e->u.bin.b, &b));
            return int_binop(c, e->u.bin.op, e->u.bin.a->type, a, b, out);
        }
        break;
    case AT_IR_FLOAT_IMM: case AT_IR_UNARY: case AT_IR_SELECT: case AT_IR_CAST: case AT_IR_LOAD:
    case AT_IR_BROADCAST: case AT_IR_LANE: case AT_IR_VECTOR: case AT_IR_CALL: case AT_IR_EXPR_KIND_COUNT:
    default: break;
    }
    val v;
    AT_TRY(eval(c, e, &v));
    *out = v.u.i[0];
    return AT_OK;
}

/* The operators with temporaries live in their own functions, so eval's frame stays small:
 * expression trees are deep and eval recurses once per node. */
static at_status eval_binary(ictx *c, const at_ir_expr *e, val *out)
{
    if (scalar_int_operands(e)) {
        out->t = e->type;
        return eval_i(c, e, &out->u.i[0]);
    }
    val b;
    AT_TRY(eval(c, e->u.bin.a, out)); /* a lands in out and is combined lane by lane in place */
    AT_TRY(eval(c, e->u.bin.b, &b));
    at_ir_type t = e->u.bin.a->type;
    out->t = e->type;
    for (int l = 0; l < e->type.lanes; l++) {
        if (t.code == AT_IR_TFLOAT) {
            bool is_cmp;
            int64_t cmp = 0;
            double r = float_binop(e->u.bin.op, out->u.f[l], b.u.f[l], &is_cmp, &cmp);
            if (is_cmp)
                out->u.i[l] = cmp;
            else
                out->u.f[l] = round_float(t, r);
        } else {
            int64_t r;
            AT_TRY(int_binop(c, e->u.bin.op, t, out->u.i[l], b.u.i[l], &r));
            out->u.i[l] = r;
        }
    }
    return AT_OK;
}

static at_status eval_select(ictx *c, const at_ir_expr *e, val *out)
{
    val cond, f;
    AT_TRY(eval(c, e->u.select.cond, &cond));
    if (cond.t.lanes == 1) return eval(c, cond.u.i[0] ? e->u.select.t : e->u.select.f, out);
    AT_TRY(eval(c, e->u.select.t, out));
    AT_TRY(eval(c, e->u.select.f, &f));
    for (int l = 0; l < e->type.lanes; l++)
        if (!cond.u.i[l]) out->u.i[l] = f.u.i[l]; /* same bits whether int or double */
    return AT_OK;
}

static at_status eval_cast(ictx *c, const at_ir_expr *e, val *out)
{
    val a;
    AT_TRY(eval(c, e->u.cast.a, &a));
    at_ir_type from = e->u.cast.a->type, to = e->type;
    out->t = to;
    for (int l = 0; l < e->type.lanes; l++) {
        if (to.code == AT_IR_TFLOAT)
            out->u.f[l] = round_float(to, to_double(from, &a, l));
        else if (to.code == AT_IR_TBOOL)
            out->u.i[l] = from.code == AT_IR_TFLOAT ? a.u.f[l] != 0 : a.u.i[l] != 0;
        else
            out->u.i[l] = at_ir_wrap_int(to, to_int(from, &a, l));
    }
    return AT_OK;
}

static at_status eval_load(ictx *c, const at_ir_expr *e, val *out)
{
    int64_t index;
    AT_TRY(eval_i(c, e->u.load.index, &index));
    unsigned char *p;
    int lanes = e->type.lanes;
    AT_TRY(elem_ptr(c, e->u.load.buf, index, lanes, "load from", &p));
    out->t = e->type;
    size_t bytes = at_ir_type_bytes(e->type);
    for (int l = 0; l < lanes; l++) read_elem(e->type, p + (size_t)l * bytes, out, l);
    return AT_OK;
}

static at_status eval_vector(ictx *c, const at_ir_expr *e, val *out)
{
    val a;
    out->t = e->type;
    for (size_t i = 0; i < e->u.vector.n; i++) {
        AT_TRY(eval(c, e->u.vector.elems[i], &a));
        out->u.i[i] = a.u.i[0];
    }
    return AT_OK;
}

static at_status eval(ictx *c, const at_ir_expr *e, val *out)
{
    int lanes = e->type.lanes;
    switch (e->kind) {
    case AT_IR_INT_IMM:
        out->t = e->type;
        out->u.i[0] = e->u.int_val;
        return AT_OK;
    case AT_IR_FLOAT_IMM:
        out->t = e->type;
        out->u.f[0] = e->u.float_val;
        return AT_OK;
    case AT_IR_VAR: {
        const val *v = &c->cur->env[e->u.var->id];
        out->t = v->t;
        memcpy(out->u.i, v->u.i, (size_t)(v->t.lanes ? v->t.lanes : 1) * sizeof v->u.i[0]); /* only live lanes */
        return AT_OK;
    }
    case AT_IR_BINARY: return eval_binary(c, e, out);
    case AT_IR_UNARY:
        AT_TRY(eval(c, e->u.un.a, out));
        out->t = e->type;
        for (int l = 0; l < lanes; l++) {
            if (e->u.un.op == AT_IR_NOT)
                out->u.i[l] = !out->u.i[l];
            else if (e->u.un.op == AT_IR_BIT_NOT)
                out->u.i[l] = at_ir_wrap_int(e->type, ~out->u.i[l]);
            else if (e->type.code == AT_IR_TFLOAT)
                out->u.f[l] = -out->u.f[l];
            else
                out->u.i[l] = at_ir_wrap_int(e->type, (int64_t)(0 - (uint64_t)out->u.i[l]));
        }
        return AT_OK;
    case AT_IR_SELECT: return eval_select(c, e, out);
    case AT_IR_CAST: return eval_cast(c, e, out);
    case AT_IR_LOAD: return eval_load(c, e, out);
    case AT_IR_BROADCAST:
        AT_TRY(eval(c, e->u.broadcast.a, out));
        out->t = e->type;
        for (int l = 1; l < lanes; l++) out->u.i[l] = out->u.i[0];
        return AT_OK;
    case AT_IR_LANE: {
        AT_TRY(eval(c, e->u.lane.a, out));
        out->t = e->type;
        out->u.i[0] = out->u.i[e->u.lane.lane];
        return AT_OK;
    }
    case AT_IR_VECTOR: return eval_vector(c, e, out);
    case AT_IR_CALL: return eval_call(c, e, out);
    case AT_IR_EXPR_KIND_COUNT:
    default: AT_ASSERT(!"bad expression kind");
    }
    return AT_OK;
}

/* ---- statements ----------------------------------------------------------------------------- */

static void push(item *it, const at_ir_stmt *s)
{
    it->stack[it->sp].s = s;
    it->stack[it->sp].i = 0;
    it->sp++;
}

static at_status exec_store(ictx *c, const at_ir_stmt *s)
{
    int64_t idx;
    val v;
    AT_TRY(eval_i(c, s->u.store.index, &idx));
    AT_TRY(eval(c, s->u.store.value, &v));
    unsigned char *p;
    int lanes = v.t.lanes;
    AT_TRY(elem_ptr(c, s->u.store.buf, idx, lanes, "store to", &p));
    size_t bytes = at_ir_type_bytes(s->u.store.buf->elem);
    for (int l = 0; l < lanes; l++) write_elem(s->u.store.buf->elem, p + (size_t)l * bytes, &v, l);
    return AT_OK;
}

/* Runs the current item until it ends or reaches a barrier (*at_barrier). */
static at_status step(ictx *c, bool *at_barrier)
{
    item *it = c->cur;
    *at_barrier = false;
    while (it->sp > 0) {
        frame *f = &it->stack[it->sp - 1];
        const at_ir_stmt *s = f->s;
        switch (s->kind) {
        case AT_IR_FOR: {
            val *v = &it->env[s->u.loop.var->id];
            v->t = s->u.loop.var->type;
            if (at_ir_for_kind_is_binding(s->u.loop.kind)) {
                if (f->i) {
                    it->sp--;
                    break;
                }
                f->i = 1;
                int d = at_ir_binding_dim(s->u.loop.kind);
                v->u.i[0] = s->u.loop.kind <= AT_IR_BLOCK_Z ? c->gid[d] : it->lid[d];
                push(it, s->u.loop.body);
            } else if (f->i < s->u.loop.extent) {
                v->u.i[0] = f->i++;
                push(it, s->u.loop.body);
            } else {
                it->sp--;
            }
            break;
        }
        case AT_IR_SEQ:
            if (f->i < (int64_t)s->u.seq.n)
                push(it, s->u.seq.items[f->i++]);
            else
                it->sp--;
            break;
        case AT_IR_IF: {
            if (f->i) {
                it->sp--;
                break;
            }
            f->i = 1;
            val cond;
            AT_TRY(eval(c, s->u.if_.cond, &cond));
            if (cond.u.i[0])
                push(it, s->u.if_.then_s);
            else if (s->u.if_.else_s)
                push(it, s->u.if_.else_s);
            break;
        }
        case AT_IR_LET:
            if (f->i) {
                it->sp--;
                break;
            }
            f->i = 1;
            AT_TRY(eval(c, s->u.let.value, &it->env[s->u.let.var->id]));
            push(it, s->u.let.body);
            break;
        case AT_IR_STORE:
            it->sp--;
            AT_TRY(exec_store(c, s));
            break;
        case AT_IR_PREFETCH: it->sp--; break; /* a hint only */
        case AT_IR_BARRIER:
            it->sp--;
            *at_barrier = true;
            return AT_OK;
        case AT_IR_STMT_KIND_COUNT:
        default: AT_ASSERT(!"bad statement kind");
        }
    }
    it->done = true;
    return AT_OK;
}

static int stmt_depth(const at_ir_stmt *s)
{
    int d = 0;
    switch (s->kind) {
    case AT_IR_FOR: d = stmt_depth(s->u.loop.body); break;
    case AT_IR_LET: d = stmt_depth(s->u.let.body); break;
    case AT_IR_SEQ:
        for (size_t i = 0; i < s->u.seq.n; i++) {
            int x = stmt_depth(s->u.seq.items[i]);
            d = x > d ? x : d;
        }
        break;
    case AT_IR_IF:
        d = stmt_depth(s->u.if_.then_s);
        if (s->u.if_.else_s) {
            int x = stmt_depth(s->u.if_.else_s);
            d = x > d ? x : d;
        }
        break;
    case AT_IR_STORE:
    case AT_IR_PREFETCH:
    case AT_IR_BARRIER: break;
    case AT_IR_STMT_KIND_COUNT:
    default: AT_ASSERT(!"bad statement kind");
    }
    return d + 1;
}

static at_status run_kernel(const at_ir_program *p, size_t k, unsigned char **base, size_t n_ids)
{
    const at_ir_kernel *kn = &p->kernels[k];
    at_ir_launch l;
    at_ir_kernel_launch(p, k, &l);
    int64_t n_items = l.local[0] * l.local[1] * l.local[2];
    if (n_items > 65536) return AT_FAIL(AT_EINVAL, "kernel %s: %lld work-items per group is too many to interpret", kn->name, (long long)n_items);
    int depth = stmt_depth(kn->body) + 1;
    size_t n_vars = p->n_vars ? p->n_vars : 1, priv_bytes = 0, local_bytes = 0;
    size_t *priv_off = at_calloc(n_ids, sizeof *priv_off);
    size_t *local_off = at_calloc(n_ids, sizeof *local_off);
    for (size_t a = 0; a < kn->n_allocs; a++) {
        const at_ir_buffer *b = kn->allocs[a];
        size_t bytes = ((size_t)b->size * at_ir_type_bytes(b->elem) + 15) & ~(size_t)15;
        if (b->scope == AT_IR_PRIVATE) {
            if (priv_off) priv_off[b->id] = priv_bytes;
            priv_bytes += bytes;
        } else {
            if (local_off) local_off[b->id] = local_bytes;
            local_bytes += bytes;
        }
    }
    item *items = at_calloc((size_t)n_items, sizeof *items);
    frame *frames = at_calloc((size_t)n_items * (size_t)depth, sizeof *frames);
    val *env = at_calloc((size_t)n_items * n_vars, sizeof *env);
    unsigned char *priv = at_malloc((size_t)n_items * priv_bytes + 1);
    unsigned char *local = at_malloc(local_bytes + 1);
    at_status st = AT_OK;
    if (!priv_off || !local_off || !items || !frames || !env || !priv || !local) {
        st = AT_OOM();
        goto done;
    }
    for (size_t a = 0; a < kn->n_allocs; a++)
        if (kn->allocs[a]->scope == AT_IR_LOCAL) base[kn->allocs[a]->id] = local + local_off[kn->allocs[a]->id];
    for (int64_t t = 0; t < n_items; t++) {
        items[t].stack = frames + t * depth;
        items[t].env = env + (size_t)t * n_vars;
        items[t].priv = priv + (size_t)t * priv_bytes;
        items[t].lid[0] = t % l.local[0];
        items[t].lid[1] = t / l.local[0] % l.local[1];
        items[t].lid[2] = t / (l.local[0] * l.local[1]);
    }
    ictx c = {.p = p, .k = kn, .base = base, .priv_off = priv_off};
    for (int64_t gz = 0; gz < l.groups[2] && st == AT_OK; gz++)
        for (int64_t gy = 0; gy < l.groups[1] && st == AT_OK; gy++)
            for (int64_t gx = 0; gx < l.groups[0] && st == AT_OK; gx++) {
                c.gid[0] = gx;
                c.gid[1] = gy;
                c.gid[2] = gz;
                for (size_t a = 0; a < kn->n_allocs; a++) {
                    const at_ir_buffer *b = kn->allocs[a];
                    if (b->scope == AT_IR_LOCAL) fill_garbage(b->elem, local + local_off[b->id], b->size);
                }
                for (int64_t t = 0; t < n_items; t++) {
                    items[t].sp = 0;
                    items[t].done = false;
                    push(&items[t], kn->body);
                    for (size_t a = 0; a < kn->n_allocs; a++) {
                        const at_ir_buffer *b = kn->allocs[a];
                        if (b->scope == AT_IR_PRIVATE) fill_garbage(b->elem, items[t].priv + priv_off[b->id], b->size);
                    }
                }
                for (;;) {
                    int64_t waiting = 0, ended = 0;
                    for (int64_t t = 0; t < n_items && st == AT_OK; t++) {
                        if (items[t].done) continue;
                        bool at_barrier;
                        c.cur = &items[t];
                        st = step(&c, &at_barrier);
                        if (at_barrier)
                            waiting++;
                        else
                            ended++;
                    }
                    if (st != AT_OK || waiting == 0) break;
                    if (ended) {
                        st = AT_FAIL(AT_EINVAL, "kernel %s: divergent barrier: %lld work-items of group (%lld, %lld, %lld) ended while %lld wait",
                                     kn->name, (long long)ended, (long long)gx, (long long)gy, (long long)gz, (long long)waiting);
                        break;
                    }
                }
            }
done:
    at_free(priv_off);
    at_free(local_off);
    at_free(items);
    at_free(frames);
    at_free(env);
    at_free(priv);
    at_free(local);
    return st;
}

at_status at_ir_interp(const at_ir_program *p, void *const *bufs)
{
    size_t n_ids = p->n_bufs;
    for (size_t k = 0; k < p->n_kernels; k++) n_ids += p->kernels[k].n_allocs;
    size_t n_params = at_ir_program_n_params(p);
    unsigned char **base = at_calloc(n_ids + 1, sizeof *base);
    if (!base) return AT_OOM();
    at_status st = AT_OK;
    for (size_t i = 0; i < p->n_bufs; i++) {
        const at_ir_buffer *b = p->bufs[i];
        if (i < n_params) {
            base[i] = bufs[i];
            continue;
        }
        base[i] = at_malloc((size_t)b->size * at_ir_type_bytes(b->elem));
        if (!base[i]) {
            st = AT_OOM();
            break;
        }
        fill_garbage(b->elem, base[i], b->size);
    }
    for (size_t k = 0; k < p->n_kernels && st == AT_OK; k++) st = run_kernel(p, k, base, n_ids + 1);
    for (size_t i = n_params; i < p->n_bufs; i++) at_free(base[i]);
    at_free(base);
    return st;
}
