/* The pieces every op kind's workload JSON and comma form are made of, written once: TVM's
 * serialize_args writes tensors as ["TENSOR", shape, dtype], tuples as lists, None as null. And
 * the sizes a convolution's or pooling's geometry derives from its window and padding. */
#include <stdlib.h>
#include <string.h>

#include "templates/internal.h"

void at_tmpl_write_ints(at_strbuf *sb, const int64_t *v, size_t n)
{
    at_strbuf_putc(sb, '[');
    for (size_t i = 0; i < n; i++) {
        if (i) at_strbuf_puts(sb, ", ");
        at_json_write_int(sb, v[i]);
    }
    at_strbuf_putc(sb, ']');
}

void at_tmpl_write_tensor(at_strbuf *sb, const int64_t *shape, size_t n, at_ir_type t)
{
    char tb[16];
    at_strbuf_puts(sb, "[\"TENSOR\", ");
    at_tmpl_write_ints(sb, shape, n);
    at_strbuf_puts(sb, ", ");
    at_json_write_string(sb, at_ir_type_str(t, tb));
    at_strbuf_putc(sb, ']');
}

void at_tmpl_write_dtype_or_null(at_strbuf *sb, at_ir_type t, bool null)
{
    char tb[16];
    if (null)
        at_strbuf_puts(sb, "null");
    else
        at_json_write_string(sb, at_ir_type_str(t, tb));
}

at_status at_tmpl_json_int(const cJSON *item, const char *what, int64_t *out)
{
    if (!item || !cJSON_IsNumber(item) || !at_json_number_is_int(item))
        return AT_FAIL(AT_EPARSE, "%s: expected an integer", what);
    return at_json_get_int64(item, out);
}

at_status at_tmpl_json_ints(const cJSON *item, const char *what, size_t n, size_t n_alt, int64_t *out, size_t *got)
{
    if (!cJSON_IsArray(item)) return AT_FAIL(AT_EPARSE, "%s: expected a list", what);
    size_t len = (size_t)cJSON_GetArraySize(item);
    if (len != n && (n_alt == 0 || len != n_alt)) {
        if (n_alt) return AT_FAIL(AT_EPARSE, "%s: expected %zu or %zu values, got %zu", what, n, n_alt, len);
        return AT_FAIL(AT_EPARSE, "%s: expected %zu values, got %zu", what, n, len);
    }
    for (size_t i = 0; i < len; i++) AT_TRY(at_tmpl_json_int(cJSON_GetArrayItem(item, (int)i), what, &out[i]));
    *got = len;
    return AT_OK;
}

at_status at_tmpl_json_tensor(const cJSON *item, const char *what, size_t rank, int64_t *shape, at_ir_type *dtype)
{
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 3 || !cJSON_IsString(cJSON_GetArrayItem(item, 0)) ||
        strcmp(cJSON_GetArrayItem(item, 0)->valuestring, "TENSOR") != 0)
        return AT_FAIL(AT_EPARSE, "%s: expected [\"TENSOR\", shape, dtype]", what);
    size_t got;
    AT_TRY(at_tmpl_json_ints(cJSON_GetArrayItem(item, 1), what, rank, 0, shape, &got));
    const cJSON *dt = cJSON_GetArrayItem(item, 2);
    if (!cJSON_IsString(dt)) return AT_FAIL(AT_EPARSE, "%s: expected a dtype string", what);
    return at_ir_type_parse(dt->valuestring, dtype);
}

at_status at_tmpl_json_dtype_or_null(const cJSON *item, const char *what, at_ir_type *dtype, bool *is_null)
{
    if (cJSON_IsNull(item)) {
        *is_null = true;
        return AT_OK;
    }
    if (!cJSON_IsString(item)) return AT_FAIL(AT_EPARSE, "%s: expected a dtype string or null", what);
    AT_TRY(at_ir_type_parse(item->valuestring, dtype));
    *is_null = false;
    return AT_OK;
}

at_status at_tmpl_json_string(const cJSON *item, const char *what, const char *want)
{
    if (!cJSON_IsString(item) || strcmp(item->valuestring, want) != 0)
        return AT_FAIL(AT_EPARSE, "%s: expected \"%s\"", what, want);
    return AT_OK;
}

at_status at_tmpl_json_bool(const cJSON *item, const char *what, bool *out)
{
    if (!cJSON_IsBool(item)) return AT_FAIL(AT_EPARSE, "%s: expected true or false", what);
    *out = cJSON_IsTrue(item);
    return AT_OK;
}

at_status at_tmpl_parse_list(const char *text, size_t max_ints, int64_t *ints, size_t *n_ints, const char **dtype)
{
    size_t n = 0;
    const char *dt = NULL, *p = text;
    while (*p) {
        char tok[32];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof tok) return AT_FAIL(AT_EPARSE, "bad argument list '%s'", text);
        memcpy(tok, p, len);
        tok[len] = '\0';
        char *end;
        long long x = strtoll(tok, &end, 10);
        if (*end == '\0') {
            if (n == max_ints) return AT_FAIL(AT_EPARSE, "bad argument list '%s': more than %zu integers", text, max_ints);
            ints[n++] = x;
        } else if (p[len] == '\0') {
            dt = p;
        } else {
            return AT_FAIL(AT_EPARSE, "bad argument list '%s': only the dtype, last, may be a name", text);
        }
        p += len;
        if (*p == ',') p++;
    }
    *n_ints = n;
    *dtype = dt;
    return AT_OK;
}

void at_tmpl_geom_window(at_conv2d_geom *g, const int64_t stride[2], const int64_t dilation[2], const int64_t pad[4])
{
    g->sh = stride[0];
    g->sw = stride[1];
    g->dh = dilation[0];
    g->dw = dilation[1];
    g->pt = pad[0];
    g->pl = pad[1];
    g->pb = pad[2];
    g->pr = pad[3];
}

void at_tmpl_geom_derive(at_conv2d_geom *g)
{
    g->khd = (g->kh - 1) * g->dh + 1;
    g->kwd = (g->kw - 1) * g->dw + 1;
    g->ihp = g->ih + g->pt + g->pb;
    g->iwp = g->iw + g->pl + g->pr;
    g->oh = g->sh > 0 && g->ihp >= g->khd ? (g->ihp - g->khd) / g->sh + 1 : 0;
    g->ow = g->sw > 0 && g->iwp >= g->kwd ? (g->iwp - g->kwd) / g->sw + 1 : 0;
}
