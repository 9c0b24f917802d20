/* Record line reader and writer. The reader keeps what it needs to write the line back byte for
 * byte (the target text as given, args/kwargs as canonical JSON text, int-vs-float lexemes);
 * the writer is a real JSON writer, never a sprintf template. */
#include "records/record.h"

#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/json.h"

void at_rec_init(at_rec *r)
{
    memset(r, 0, sizeof *r);
    at_result_init(&r->result);
}

void at_rec_fini(at_rec *r)
{
    if (!r) return;
    at_free(r->target_str);
    at_target_fini(&r->target);
    at_free(r->task_name);
    at_free(r->args_json);
    at_free(r->kwargs_json);
    at_config_free(r->config);
    at_result_fini(&r->result);
    at_free(r->tvm_version);
    at_free(r->text);
    at_rec_init(r);
}

/* json.loads keeps the last of duplicated keys (cJSON's lookup would return the first). */
static const cJSON *get_key(const cJSON *obj, const char *key)
{
    const cJSON *found = NULL;
    for (const cJSON *c = obj->child; c; c = c->next)
        if (c->string && !strcmp(c->string, key)) found = c;
    return found;
}

static size_t array_len(const cJSON *a)
{
    size_t n = 0;
    for (const cJSON *c = a->child; c; c = c->next) n++;
    return n;
}

/* A JSON value's canonical text, at_malloc'ed into *out. */
static at_status dump_json(const cJSON *item, char **out)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_json_write_value(&sb, item);
    if (sb.failed) {
        at_strbuf_fini(&sb);
        return AT_OOM();
    }
    *out = at_strbuf_take(&sb);
    return *out ? AT_OK : AT_OOM();
}

static at_status dup_str(const char *s, char **out)
{
    *out = at_strdup(s);
    return *out ? AT_OK : AT_OOM();
}

/* Parses the target with TVM decode's quirk: every "-target" becomes "-mtriple" first. */
static at_status parse_target(const char *text, at_target *out)
{
    const char *hit = strstr(text, "-target");
    if (!hit) return at_target_parse(text, out);
    at_strbuf sb;
    at_strbuf_init(&sb);
    const char *p = text;
    while ((hit = strstr(p, "-target")) != NULL) {
        at_strbuf_append(&sb, p, (size_t)(hit - p));
        at_strbuf_puts(&sb, "-mtriple");
        p = hit + strlen("-target");
    }
    at_strbuf_puts(&sb, p);
    at_status st = at_strbuf_status(&sb);
    if (st == AT_OK) st = at_target_parse(sb.data, out);
    at_strbuf_fini(&sb);
    return st;
}

static at_status finite_number(const cJSON *item, const char *what, double *v, bool *is_int)
{
    if (!cJSON_IsNumber(item)) return AT_FAIL(AT_EPARSE, "%s: expected a number", what);
    if (!isfinite(item->valuedouble)) return AT_FAIL(AT_EPARSE, "%s: number out of range", what);
    *v = item->valuedouble;
    if (is_int) *is_int = at_json_number_is_int(item);
    return AT_OK;
}

static at_status parse_input(const cJSON *input, at_rec *r)
{
    if (!input) return AT_FAIL(AT_EPARSE, "missing key \"input\"");
    if (!cJSON_IsArray(input) || array_len(input) != 4)
        return AT_FAIL(AT_EPARSE, "input: expected [target, task name, args, kwargs]");
    const cJSON *tgt = input->child, *name = tgt->next, *args = name->next, *kwargs = args->next;
    if (!cJSON_IsString(tgt)) return AT_FAIL(AT_EPARSE, "input[0]: expected the target string");
    if (!cJSON_IsString(name)) return AT_FAIL(AT_EPARSE, "input[1]: expected the task name");
    if (!cJSON_IsArray(args)) return AT_FAIL(AT_EPARSE, "input[2]: expected the task args array");
    AT_TRY(dup_str(tgt->valuestring, &r->target_str));
    at_status st = parse_target(r->target_str, &r->target);
    if (st == AT_EPARSE) return AT_FAIL_WRAP(AT_EPARSE, "input[0]: bad target string");
    AT_TRY(st);
    AT_TRY(dup_str(name->valuestring, &r->task_name));
    AT_TRY(dump_json(args, &r->args_json));
    return dump_json(kwargs, &r->kwargs_json);
}

static at_status parse_result(const cJSON *res, at_rec *r)
{
    if (!res) return AT_FAIL(AT_EPARSE, "missing key \"result\"");
    if (!cJSON_IsArray(res) || array_len(res) != 4)
        return AT_FAIL(AT_EPARSE, "result: expected [costs, error_no, all_cost, timestamp]");
    const cJSON *costs = res->child, *err = costs->next, *all = err->next, *ts = all->next;
    if (!cJSON_IsArray(costs)) return AT_FAIL(AT_EPARSE, "result[0]: expected the costs array");
    int64_t e;
    if (!cJSON_IsNumber(err) || at_json_get_int64(err, &e) != AT_OK || e < 0 || e >= AT_MEAS_ERR_COUNT)
        return AT_FAIL(AT_EPARSE, "result[1]: expected an error number 0..%d", AT_MEAS_ERR_COUNT - 1);
    r->result.err = (at_meas_err)e;
    size_t n = array_len(costs);
    if (n == 0 && e == AT_MEAS_OK) return AT_FAIL(AT_EPARSE, "result[0]: no costs for a successful measurement");
    double *c = n ? at_malloc(n * sizeof *c) : NULL;
    if (n && !c) return AT_OOM();
    size_t i = 0;
    for (const cJSON *x = costs->child; x; x = x->next, i++) {
        at_status st = finite_number(x, "result[0]", &c[i], NULL);
        /* a measured time is > 0 (TVM would let a negative one win pick-best) */
        if (st == AT_OK && e == AT_MEAS_OK && !(c[i] > 0))
            st = AT_FAIL(AT_EPARSE, "result[0][%zu]: cost %.17g s is not positive", i, c[i]);
        if (st != AT_OK) {
            at_free(c);
            return st;
        }
    }
    /* a failed measurement has no costs: the writer puts TVM's [1000000000.0] back */
    if (e == AT_MEAS_OK) {
        r->result.costs_s = c;
        r->result.n_costs = n;
    } else {
        at_free(c);
    }
    AT_TRY(finite_number(all, "result[2]", &r->result.all_cost_s, &r->result.all_cost_is_int));
    return finite_number(ts, "result[3]", &r->result.timestamp, &r->timestamp_is_int);
}

static at_status parse_root(const cJSON *root, at_rec *r)
{
    if (!cJSON_IsObject(root)) return AT_FAIL(AT_EPARSE, "a record must be a JSON object");
    const cJSON *v = get_key(root, "v");
    if (v && cJSON_IsNumber(v) && v->valuedouble == 0.1)
        return AT_FAIL(AT_EUNSUPPORTED, "AutoTVM log version 0.1 is no longer supported");
    AT_TRY(parse_input(get_key(root, "input"), r));
    const cJSON *cfg = get_key(root, "config");
    if (!cfg) return AT_FAIL(AT_EPARSE, "missing key \"config\"");
    AT_TRY(at_config_from_json(cfg, &r->config)); /* its details start with "config" */
    AT_TRY(parse_result(get_key(root, "result"), r));
    const cJSON *ver = get_key(root, "version");
    r->version = AT_REC_LOG_VERSION;
    if (ver) AT_TRY(finite_number(ver, "version", &r->version, &r->version_is_int));
    const cJSON *tv = get_key(root, "tvm_version");
    if (tv && !cJSON_IsString(tv)) return AT_FAIL(AT_EPARSE, "tvm_version: expected a string");
    return dup_str(tv ? tv->valuestring : AT_REC_TVM_VERSION, &r->tvm_version);
}

/* After a JSON parse error: Python's json.dumps writes NaN, Infinity and -Infinity for
 * non-finite floats (a NaN cost, say), which JSON does not allow. When the line holds such a
 * token outside a string, the error says so instead of "invalid JSON at column N"; otherwise
 * the parser's own detail stays. Returns AT_EPARSE. */
static at_status explain_non_finite(const char *line, size_t len)
{
    static const char *const words[] = {"-Infinity", "Infinity", "NaN"};
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        char ch = line[i];
        if (in_str) {
            if (ch == '\\') i++;
            else if (ch == '"') in_str = false;
            continue;
        }
        if (ch == '"') {
            in_str = true;
            continue;
        }
        for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
            size_t n = strlen(words[w]);
            if (len - i >= n && !memcmp(line + i, words[w], n))
                return AT_FAIL(AT_EPARSE,
                               "invalid JSON at column %zu: %s, a non-finite number (Python's json writes "
                               "NaN/Infinity for them; not JSON, and not a usable cost)",
                               i + 1, words[w]);
        }
    }
    return AT_EPARSE;
}

at_status at_rec_parse_line(const char *line, size_t len, at_rec *out)
{
    at_rec_init(out);
    const char *nul = memchr(line, '\0', len);
    if (nul) return AT_FAIL(AT_EPARSE, "NUL byte at column %zu", (size_t)(nul - line) + 1);
    cJSON *root = NULL;
    at_status pst = at_json_parse(line, len, &root);
    if (pst == AT_EPARSE) return explain_non_finite(line, len);
    AT_TRY(pst);
    at_rec r;
    at_rec_init(&r);
    at_status st = parse_root(root, &r);
    at_json_free(root);
    if (st != AT_OK) {
        at_rec_fini(&r);
        return st;
    }
    *out = r;
    return AT_OK;
}

at_status at_rec_make(const char *target_str, const char *task_name, const char *args_json,
                      const at_config *config, const at_result *result, at_rec *out)
{
    at_rec_init(out);
    at_rec r;
    at_rec_init(&r);
    cJSON *args = NULL;
    at_status st = dup_str(target_str, &r.target_str);
    if (st == AT_OK) st = parse_target(target_str, &r.target);
    if (st == AT_OK) st = dup_str(task_name, &r.task_name);
    if (st == AT_OK) st = at_json_parse(args_json, strlen(args_json), &args);
    if (st == AT_OK && !cJSON_IsArray(args)) st = AT_FAIL(AT_EPARSE, "task args must be a JSON array");
    if (st == AT_OK) st = dump_json(args, &r.args_json);
    if (st == AT_OK) st = dup_str("{}", &r.kwargs_json);
    if (st == AT_OK) st = at_config_clone(config, &r.config);
    if (st == AT_OK) st = at_result_copy(&r.result, result);
    if (st == AT_OK && r.result.err != AT_MEAS_OK) st = at_result_set_costs(&r.result, NULL, 0);
    if (st == AT_OK) st = dup_str(AT_REC_TVM_VERSION, &r.tvm_version);
    at_json_free(args);
    if (st != AT_OK) {
        at_rec_fini(&r);
        return st;
    }
    r.version = AT_REC_LOG_VERSION;
    *out = r;
    return AT_OK;
}

static at_status dup_opt(const char *s, char **out)
{
    *out = NULL;
    return s ? dup_str(s, out) : AT_OK;
}

at_status at_rec_copy(at_rec *dst, const at_rec *src)
{
    at_rec_init(dst);
    at_rec r = *src;
    r.target_str = r.task_name = r.args_json = r.kwargs_json = r.tvm_version = r.text = NULL;
    r.config = NULL;
    memset(&r.target, 0, sizeof r.target);
    at_result_init(&r.result);
    at_status st = dup_opt(src->target_str, &r.target_str);
    if (st == AT_OK) st = at_target_copy(&r.target, &src->target);
    if (st == AT_OK) st = dup_opt(src->task_name, &r.task_name);
    if (st == AT_OK) st = dup_opt(src->args_json, &r.args_json);
    if (st == AT_OK) st = dup_opt(src->kwargs_json, &r.kwargs_json);
    if (st == AT_OK && src->config) st = at_config_clone(src->config, &r.config);
    if (st == AT_OK) st = at_result_copy(&r.result, &src->result);
    if (st == AT_OK) st = dup_opt(src->tvm_version, &r.tvm_version);
    if (st == AT_OK) st = dup_opt(src->text, &r.text);
    if (st != AT_OK) {
        at_rec_fini(&r);
        return st;
    }
    *dst = r;
    return AT_OK;
}

static void write_number(at_strbuf *sb, double v, bool is_int)
{
    if (is_int && v == floor(v) && fabs(v) <= (double)AT_JSON_MAX_EXACT_INT)
        at_json_write_int(sb, (int64_t)v);
    else
        at_json_write_double(sb, v);
}

void at_rec_write(const at_rec *r, at_strbuf *sb)
{
    at_strbuf_puts(sb, "{\"input\": [");
    at_json_write_string(sb, r->target_str ? r->target_str : "");
    at_strbuf_puts(sb, ", ");
    at_json_write_string(sb, r->task_name ? r->task_name : "");
    at_strbuf_puts(sb, ", ");
    at_strbuf_puts(sb, r->args_json ? r->args_json : "[]");
    at_strbuf_puts(sb, ", ");
    at_strbuf_puts(sb, r->kwargs_json ? r->kwargs_json : "{}");
    at_strbuf_puts(sb, "], \"config\": ");
    AT_ASSERT(r->config);
    at_config_write_json(r->config, sb);
    at_strbuf_puts(sb, ", \"result\": [[");
    if (r->result.err == AT_MEAS_OK) {
        for (size_t i = 0; i < r->result.n_costs; i++) {
            if (i) at_strbuf_puts(sb, ", ");
            at_json_write_double(sb, r->result.costs_s[i]);
        }
    } else {
        at_json_write_double(sb, AT_FAILED_COST_S);
    }
    at_strbuf_puts(sb, "], ");
    at_json_write_int(sb, (int64_t)r->result.err);
    at_strbuf_puts(sb, ", ");
    write_number(sb, r->result.all_cost_s, r->result.all_cost_is_int);
    at_strbuf_puts(sb, ", ");
    write_number(sb, r->result.timestamp, r->timestamp_is_int);
    at_strbuf_puts(sb, "], \"version\": ");
    write_number(sb, r->version, r->version_is_int);
    at_strbuf_puts(sb, ", \"tvm_version\": ");
    at_json_write_string(sb, r->tvm_version ? r->tvm_version : AT_REC_TVM_VERSION);
    at_strbuf_putc(sb, '}');
}

char *at_rec_to_line(const at_rec *r)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_rec_write(r, &sb);
    at_strbuf_putc(&sb, '\n');
    return at_strbuf_take(&sb);
}

/* numpy's pairwise_sum for float64 (8 accumulators, blocks of 128), so that mean costs, and
 * therefore ties, come out bit-identical to TVM's np.mean. */
static double pairwise_sum(const double *a, size_t n)
{
    if (n < 8) {
        double res = 0.;
        for (size_t i = 0; i < n; i++) res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        for (size_t j = 0; j < 8; j++) r[j] = a[j];
        size_t i;
        for (i = 8; i < n - (n % 8); i += 8)
            for (size_t j = 0; j < 8; j++) r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += a[i];
        return res;
    }
    size_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

double at_rec_cost(const at_rec *r)
{
    if (r->result.err != AT_MEAS_OK || r->result.n_costs == 0) return AT_FAILED_COST_S;
    return pairwise_sum(r->result.costs_s, r->result.n_costs) / (double)r->result.n_costs;
}

bool at_rec_same_workload(const at_rec *a, const at_rec *b)
{
    return !strcmp(a->task_name, b->task_name) && !strcmp(a->args_json, b->args_json);
}
