/* autotvm records check LOG (space part): every record whose template this build knows is mapped
 * back onto its space, rebuilt from the record's workload: the workload must parse and write back
 * byte for byte, every knob value must be one of its knob's entities, and the index those
 * entities give must be the record's index. Spaces are built once per workload (a hash table keyed
 * by task name and workload text), so a log of many records per workload checks quickly. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/records_check.h"
#include "core/alloc.h"
#include "core/json.h"
#include "core/strbuf.h"
#include "records/log.h"
#include "templates/template.h"

/* One workload seen in the log: its task, or the reason it has none. */
typedef struct wkl {
    char    *key; /* task name + '\n' + args text; NULL for an empty slot */
    at_task *task;
    char    *error;
} wkl;

typedef struct wkl_table {
    wkl   *slots;
    size_t cap, n;
} wkl_table;

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void table_fini(wkl_table *t)
{
    for (size_t i = 0; i < t->cap; i++) {
        at_free(t->slots[i].key);
        at_task_free(t->slots[i].task);
        at_free(t->slots[i].error);
    }
    at_free(t->slots);
}

static at_status table_grow(wkl_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 64;
    wkl *slots = at_calloc(cap, sizeof *slots);
    if (!slots) return AT_OOM();
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].key) continue;
        size_t j = fnv1a(t->slots[i].key) & (cap - 1);
        while (slots[j].key) j = (j + 1) & (cap - 1);
        slots[j] = t->slots[i];
    }
    at_free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return AT_OK;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = at_malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* The target family of a record's target kind; false for kinds no template family covers. */
static bool family_of(const char *kind, at_target_family *out)
{
    static const struct {
        const char      *kind;
        at_target_family family;
    } kinds[] = {{"opencl", AT_TARGET_OPENCL}, {"cuda", AT_TARGET_OPENCL}, {"llvm", AT_TARGET_LLVM}, {"ext_dev", AT_TARGET_VTA}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(kind, kinds[i].kind)) {
            *out = kinds[i].family;
            return true;
        }
    return false;
}

/* Builds the task of a workload: parses args, creates the task, and checks that the workload
 * writes back as the log has it. On failure *error describes why (owned by the caller). */
static at_status build_task(const at_template *tm, const char *args_json, at_task **task, char **error)
{
    *task = NULL;
    *error = NULL;
    cJSON *j = NULL;
    at_args args;
    at_status st = at_json_parse(args_json, strlen(args_json), &j);
    if (st == AT_OK) st = at_op_args_from_json(tm->op, j, &args);
    at_json_free(j);
    at_task *t = NULL;
    if (st == AT_OK) st = at_task_new(tm, &args, &t);
    if (st == AT_ENOMEM) return st;
    at_strbuf sb;
    at_strbuf_init(&sb);
    if (st != AT_OK) {
        at_strbuf_printf(&sb, "workload: %s", at_last_error());
    } else {
        at_strbuf_putc(&sb, '[');
        at_op_args_write_json(&args, &sb);
        at_strbuf_putc(&sb, ']');
        if (at_strbuf_status(&sb) != AT_OK) {
            at_strbuf_fini(&sb);
            at_task_free(t);
            return AT_OOM();
        }
        if (strcmp(at_strbuf_cstr(&sb), args_json) != 0) {
            char *back = at_strbuf_take(&sb);
            at_strbuf_init(&sb);
            at_strbuf_printf(&sb, "workload writes back as %s", back ? back : "?");
            at_free(back);
            at_task_free(t);
            t = NULL;
        } else {
            at_strbuf_clear(&sb);
        }
    }
    if (at_strbuf_status(&sb) != AT_OK) {
        at_strbuf_fini(&sb);
        at_task_free(t);
        return AT_OOM();
    }
    if (!t) {
        *error = at_strbuf_take(&sb);
        if (!*error) return AT_OOM();
    }
    at_strbuf_fini(&sb);
    *task = t;
    return AT_OK;
}

/* The index of the entities the space matched (space index `index`) counted in the record's own
 * knob order: a log written by a TVM whose template defined the same knobs in another order
 * (dense_nopack.x86 before 0.7: tile_x, tile_y, tile_k) holds the index of that order, and TVM
 * applies such a record by knob name. */
static int64_t index_in_record_order(const at_space *s, const at_config *c, int64_t index)
{
    size_t n = at_space_n_knobs(s);
    if (n == 0 || n > 64 || at_config_len(c) != n) return index;
    int64_t pos[64];
    at_space_point_to_knobs(s, index, pos);
    int64_t out = 0, radix = 1;
    for (size_t i = 0; i < n; i++) {
        size_t k;
        if (!at_space_find_knob(s, at_config_at(c, i)->name, &k)) return index;
        out += pos[k] * radix;
        radix *= at_space_dim(s, k);
    }
    return out;
}

/* The slot of a record's workload, built on first sight. */
static at_status lookup(wkl_table *t, const at_template *tm, const at_rec *r, wkl **out)
{
    if ((t->n + 1) * 2 > t->cap) AT_TRY(table_grow(t));
    at_strbuf kb;
    at_strbuf_init(&kb);
    at_strbuf_printf(&kb, "%s\n%s\n%s", tm->name, at_target_family_name(tm->target), r->args_json);
    if (at_strbuf_status(&kb) != AT_OK) {
        at_strbuf_fini(&kb);
        return AT_OOM();
    }
    const char *key = at_strbuf_cstr(&kb);
    size_t j = fnv1a(key) & (t->cap - 1);
    while (t->slots[j].key && strcmp(t->slots[j].key, key) != 0) j = (j + 1) & (t->cap - 1);
    wkl *w = &t->slots[j];
    if (!w->key) {
        at_status st = build_task(tm, r->args_json, &w->task, &w->error);
        if (st == AT_OK && !(w->key = dup_str(key))) st = AT_OOM();
        if (st != AT_OK) {
            at_task_free(w->task);
            at_free(w->error);
            memset(w, 0, sizeof *w);
            at_strbuf_fini(&kb);
            return st;
        }
        t->n++;
    }
    at_strbuf_fini(&kb);
    *out = w;
    return AT_OK;
}

static const char usage[] =
    "usage: autotvm records check LOG\n"
    "\n"
    "For every record of LOG whose template this build knows, rebuilds the template's config space\n"
    "for the record's workload and checks that the workload writes back unchanged, that every knob\n"
    "value is one of the space's entities and that the index those entities give (counted in the\n"
    "space's knob order, or in the record's own when an older TVM defined the knobs in another\n"
    "order) is the record's index. Prints 'N/M records valid' (M = records of known templates) and one line per failure.\n"
    "Exits 1 when a record fails.\n";

int at_cmd_records_check(int argc, char **argv)
{
    const char *pos[1];
    size_t n_pos;
    int rc = at_cli_parse(argc, argv, NULL, 0, pos, 1, &n_pos, "records check");
    if (rc == AT_CLI_HELP) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (n_pos != 1) return at_cli_usage_error("records check", "missing the log file LOG");
    at_rec_log *log;
    at_status st = at_rec_log_load_file(pos[0], &log);
    if (st != AT_OK) return at_cli_fail(st);
    rc = at_cli_records_check_log(log);
    at_rec_log_free(log);
    return rc;
}

int at_cli_records_check_log(const at_rec_log *log)
{
    at_status st = AT_OK;
    wkl_table table = {0};
    size_t known = 0, valid = 0, unknown = 0;
    for (size_t i = 0; i < log->n && st == AT_OK; i++) {
        const at_rec *r = &log->recs[i];
        at_target_family fam;
        const at_template *tm = family_of(r->target.kind, &fam) ? at_tmpl_find(r->task_name, fam) : NULL;
        if (!tm) {
            unknown++;
            continue;
        }
        known++;
        wkl *w = NULL;
        st = lookup(&table, tm, r, &w);
        if (st != AT_OK) break;
        if (!w->task) {
            printf("  line %zu: %s %s: %s\n", r->line, r->task_name, r->args_json, w->error);
            continue;
        }
        int64_t index;
        at_status ist = at_space_index_of(at_task_space(w->task), r->config, &index);
        bool as_given = false;
        if (ist == AT_EPARSE && tm->entities_as_given) {
            /* the record's entities are applied as given; its index is not rebuilt from them */
            ist = at_space_index_of_as_given(at_task_space(w->task), r->config, &index);
            as_given = true;
        }
        if (ist == AT_EPARSE) {
            /* a pre-0.6 log pairing names and values out of order: valid when its values, read in
             * definition order, give the index it stored */
            at_config *pos = NULL;
            at_status pst =
                at_space_config_by_position_checked(at_task_space(w->task), r->config, tm->entities_as_given, &pos, &index);
            if (pst == AT_ENOMEM) ist = pst;
            if (pos) ist = AT_OK, as_given = true;
            at_config_free(pos);
        }
        if (ist == AT_ENOMEM) {
            st = ist;
            break;
        }
        if (ist != AT_OK) {
            printf("  line %zu: %s %s: %s\n", r->line, r->task_name, r->args_json, at_last_error());
        } else if (!as_given && index != at_config_index(r->config) &&
                   index_in_record_order(at_task_space(w->task), r->config, index) != at_config_index(r->config)) {
            printf("  line %zu: %s %s: index %" PRId64 ", but its entities give %" PRId64 "\n", r->line, r->task_name,
                   r->args_json, at_config_index(r->config), index);
        } else {
            valid++;
        }
    }
    table_fini(&table);
    if (st != AT_OK) return at_cli_fail(st);
    printf("%zu/%zu records valid", valid, known);
    if (unknown) printf(" (%zu records of templates this build lacks skipped)", unknown);
    putchar('\n');
    return valid == known ? 0 : 1;
}
