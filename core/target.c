/* Target-string parsing: a faithful copy of TVM v0.18's FromRawString rules for the parts that
 * key records (kind, keys, model); attributes are kept as interpreted strings, never typed. */
#include "core/target.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

#define QUOTE '\''
#define ESCAPE '\\'

/* TVM v0.18's registered target kinds and their default keys (src/target/target_kind.cc and the
 * relay contrib kinds, none of which has default keys). */
static const char *const keys_cpu[] = {"cpu"};
static const char *const keys_cuda[] = {"cuda", "gpu"};
static const char *const keys_rocm[] = {"rocm", "gpu"};
static const char *const keys_opencl[] = {"opencl", "gpu"};
static const char *const keys_metal[] = {"metal", "gpu"};
static const char *const keys_vulkan[] = {"vulkan", "gpu"};
static const char *const keys_webgpu[] = {"webgpu", "gpu"};
static const char *const keys_sdaccel[] = {"sdaccel", "hls"};
static const char *const keys_aocl[] = {"aocl", "hls"};
static const char *const keys_hexagon[] = {"hexagon", "cpu"};

#define KEYS(a) a, sizeof a / sizeof a[0]

static const struct {
    const char        *kind;
    const char *const *keys;
    size_t             n_keys;
} kinds[] = {
    {"aocl", KEYS(keys_aocl)},       {"aocl_sw_emu", KEYS(keys_aocl)},
    {"c", KEYS(keys_cpu)},           {"ccompiler", NULL, 0},
    {"clml", NULL, 0},               {"cmsis-nn", NULL, 0},
    {"composite", NULL, 0},          {"cublas", NULL, 0},
    {"cuda", KEYS(keys_cuda)},       {"cudnn", NULL, 0},
    {"cutlass", NULL, 0},            {"ethos-u", NULL, 0},
    {"example_target_hook", NULL, 0}, {"ext_dev", NULL, 0},
    {"hexagon", KEYS(keys_hexagon)}, {"hybrid", NULL, 0},
    {"llvm", KEYS(keys_cpu)},        {"metal", KEYS(keys_metal)},
    {"mrvl", NULL, 0},               {"nvptx", KEYS(keys_cuda)},
    {"opencl", KEYS(keys_opencl)},   {"rocm", KEYS(keys_rocm)},
    {"sdaccel", KEYS(keys_sdaccel)}, {"stackvm", KEYS(keys_cpu)},
    {"tensorrt", NULL, 0},           {"test", NULL, 0},
    {"vulkan", KEYS(keys_vulkan)},   {"webgpu", KEYS(keys_webgpu)},
};

bool at_target_kind_default_keys(const char *kind, const char *const **keys, size_t *n)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (!strcmp(kinds[i].kind, kind)) {
            *keys = kinds[i].keys;
            *n = kinds[i].n_keys;
            return true;
        }
    }
    return false;
}

/* A growable list of owned strings. */
typedef struct strlist {
    char **items;
    size_t n, cap;
} strlist;

static void strlist_fini(strlist *l)
{
    for (size_t i = 0; i < l->n; i++) at_free(l->items[i]);
    at_free(l->items);
    memset(l, 0, sizeof *l);
}

/* Takes s (freed on failure). */
static at_status strlist_push(strlist *l, char *s)
{
    if (!s) return AT_OOM();
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        char **p = at_realloc(l->items, cap * sizeof *p);
        if (!p) {
            at_free(s);
            return AT_OOM();
        }
        l->items = p;
        l->cap = cap;
    }
    l->items[l->n++] = s;
    return AT_OK;
}

/* TVM's SplitString: words separated by sep outside single quotes; escapes and quotes are kept
 * in the words; empty words dropped; an unterminated quote is an error. */
static at_status split_words(const char *s, size_t len, char sep, strlist *out)
{
    size_t start = 0, i = 0;
    int quoted = 0;
    while (i < len) {
        if (s[i] == sep && !quoted) {
            if (i > start) AT_TRY(strlist_push(out, at_strndup(s + start, i - start)));
            start = ++i;
        } else if (s[i] == ESCAPE && i + 1 < len) {
            i += 2;
        } else {
            if (s[i] == QUOTE) quoted = !quoted;
            i++;
        }
    }
    if (quoted) return AT_FAIL(AT_EPARSE, "mismatched quotes in target string");
    if (len > start) AT_TRY(strlist_push(out, at_strndup(s + start, len - start)));
    return AT_OK;
}

static bool is_quoted(const char *s, size_t n)
{
    if (n < 2 || s[0] != QUOTE || s[n - 1] != QUOTE) return false;
    bool escaping = false;
    for (size_t i = 1; i + 1 < n; i++) {
        if (escaping)
            escaping = false;
        else if (s[i] == ESCAPE)
            escaping = true;
        else if (s[i] == QUOTE)
            return false;
    }
    return true;
}

/* TVM's Interpret (enclosing quotes removed, escapes resolved outside quotes), then, as for
 * string attributes, surrounding spaces stripped. NULL on allocation failure. */
static char *interpret(const char *s)
{
    size_t n = strlen(s), start = 0, end = n;
    if (is_quoted(s, n)) start++, end--;
    char *r = at_malloc(n + 1);
    if (!r) return NULL;
    size_t k = 0;
    bool inside = false, escaping = false;
    for (size_t i = start; i < end; i++) {
        char c = s[i];
        if (escaping) {
            escaping = false;
        } else if (c == ESCAPE) {
            escaping = true;
            if (!inside) continue;
        } else if (c == QUOTE) {
            inside = !inside;
        }
        r[k++] = c;
    }
    r[k] = '\0';
    size_t a = 0, b = k;
    while (a < b && r[a] == ' ') a++;
    while (b > a && r[b - 1] == ' ') b--;
    memmove(r, r + a, b - a);
    r[b - a] = '\0';
    return r;
}

void at_target_fini(at_target *t)
{
    if (!t) return;
    at_free(t->kind);
    for (size_t i = 0; i < t->n_keys; i++) at_free(t->keys[i]);
    at_free(t->keys);
    at_free(t->model);
    at_free(t->device);
    for (size_t i = 0; i < t->n_attrs; i++) {
        at_free(t->attrs[i].name);
        at_free(t->attrs[i].value);
    }
    at_free(t->attrs);
    memset(t, 0, sizeof *t);
}

const char *at_target_attr_value(const at_target *t, const char *name)
{
    for (size_t i = 0; i < t->n_attrs; i++)
        if (!strcmp(t->attrs[i].name, name)) return t->attrs[i].value;
    return NULL;
}

bool at_target_has_key(const at_target *t, const char *key)
{
    for (size_t i = 0; i < t->n_keys; i++)
        if (!strcmp(t->keys[i], key)) return true;
    return false;
}

/* Appends key unless already present (TVM's DeduplicateKeys keeps the first). */
static at_status add_key(at_target *t, size_t cap, const char *key)
{
    if (at_target_has_key(t, key)) return AT_OK;
    AT_ASSERT(t->n_keys < cap);
    char *k = at_strdup(key);
    if (!k) return AT_OOM();
    t->keys[t->n_keys++] = k;
    return AT_OK;
}

/* Splits an interpreted -keys value into keys (TVM parses it as an array of strings). */
static at_status parse_key_list(const char *raw, strlist *keys)
{
    char *v = interpret(raw);
    if (!v) return AT_OOM();
    strlist parts = {0};
    at_status st = split_words(v, strlen(v), ',', &parts);
    at_free(v);
    for (size_t i = 0; st == AT_OK && i < parts.n; i++) st = strlist_push(keys, interpret(parts.items[i]));
    strlist_fini(&parts);
    return st;
}

static at_status parse_attrs(const strlist *w, at_target *t, strlist *user_keys, bool *has_keys)
{
    t->attrs = at_calloc(w->n, sizeof *t->attrs);
    if (!t->attrs) return AT_OOM();
    for (size_t i = 1; i < w->n;) {
        const char *s = w->items[i];
        size_t dashes = 0;
        while (s[dashes] == '-') dashes++;
        if (dashes == 0) return AT_FAIL(AT_EPARSE, "target attribute keys start with '-', got '%s'", s);
        if (!s[dashes]) return AT_FAIL(AT_EPARSE, "not a target attribute key: '%s'", s);
        s += dashes;
        const char *eq = strchr(s, '=');
        const char *next = i + 1 < w->n ? w->items[i + 1] : "";
        size_t key_len;
        const char *value;
        if (eq) {
            key_len = (size_t)(eq - s);
            value = eq + 1;
            if (key_len == 0 || !*value)
                return AT_FAIL(AT_EPARSE, "empty target attribute key or value in '%s'", w->items[i]);
            i += 1;
        } else if (next[0] && next[0] != '-') {
            key_len = strlen(s);
            value = next;
            i += 2;
        } else {
            key_len = strlen(s);
            value = "1";
            i += 1;
        }
        char *name = at_strndup(s, key_len);
        if (!name) return AT_OOM();
        bool dup = !strcmp(name, "kind") || (!strcmp(name, "keys") && *has_keys) ||
                   at_target_attr_value(t, name) != NULL;
        if (dup) {
            at_status st = AT_FAIL(AT_EPARSE, "target attribute '%s' appears more than once", name);
            at_free(name);
            return st;
        }
        if (!strcmp(name, "keys")) {
            at_free(name);
            *has_keys = true;
            AT_TRY(parse_key_list(value, user_keys));
            continue;
        }
        char *v = interpret(value);
        if (!v) {
            at_free(name);
            return AT_OOM();
        }
        t->attrs[t->n_attrs].name = name;
        t->attrs[t->n_attrs].value = v;
        t->n_attrs++;
    }
    return AT_OK;
}

static at_status build_keys(at_target *t, const strlist *user_keys, bool has_keys)
{
    const char *const *defaults = NULL;
    size_t n_defaults = 0;
    AT_ASSERT(at_target_kind_default_keys(t->kind, &defaults, &n_defaults));
    if (has_keys) n_defaults = 0;
    size_t cap = user_keys->n + 1 + n_defaults;
    t->keys = at_calloc(cap, sizeof *t->keys);
    if (!t->keys) return AT_OOM();
    for (size_t i = 0; i < user_keys->n; i++) AT_TRY(add_key(t, cap, user_keys->items[i]));
    if (t->device) AT_TRY(add_key(t, cap, t->device));
    for (size_t i = 0; i < n_defaults; i++) AT_TRY(add_key(t, cap, defaults[i]));
    return AT_OK;
}

static at_status parse_into(const char *text, at_target *t, strlist *words, strlist *user_keys)
{
    size_t len = strlen(text);
    AT_TRY(split_words(text, len, ' ', words));
    if (words->n == 0) return AT_FAIL(AT_EPARSE, "empty target string");
    const char *const *dk;
    size_t ndk;
    if (!at_target_kind_default_keys(words->items[0], &dk, &ndk))
        return AT_FAIL(AT_EPARSE, "unknown target kind '%s'", words->items[0]);
    if (!(t->kind = at_strdup(words->items[0]))) return AT_OOM();
    bool has_keys = false;
    AT_TRY(parse_attrs(words, t, user_keys, &has_keys));
    const char *device = at_target_attr_value(t, "device");
    if (device && !(t->device = at_strdup(device))) return AT_OOM();
    const char *model = at_target_attr_value(t, "model");
    if (!(t->model = at_strdup(model ? model : "unknown"))) return AT_OOM();
    return build_keys(t, user_keys, has_keys);
}

at_status at_target_parse(const char *text, at_target *out)
{
    memset(out, 0, sizeof *out);
    at_target t = {0};
    strlist words = {0}, user_keys = {0};
    at_status st = parse_into(text, &t, &words, &user_keys);
    strlist_fini(&words);
    strlist_fini(&user_keys);
    if (st != AT_OK) {
        at_target_fini(&t);
        return st;
    }
    *out = t;
    return AT_OK;
}

at_status at_target_copy(at_target *dst, const at_target *src)
{
    memset(dst, 0, sizeof *dst);
    at_target t = {0};
    if (!(t.kind = at_strdup(src->kind)) || !(t.model = at_strdup(src->model))) goto oom;
    if (src->device && !(t.device = at_strdup(src->device))) goto oom;
    if (src->n_keys) {
        if (!(t.keys = at_calloc(src->n_keys, sizeof *t.keys))) goto oom;
        for (; t.n_keys < src->n_keys; t.n_keys++)
            if (!(t.keys[t.n_keys] = at_strdup(src->keys[t.n_keys]))) goto oom;
    }
    if (src->n_attrs) {
        if (!(t.attrs = at_calloc(src->n_attrs, sizeof *t.attrs))) goto oom;
        for (; t.n_attrs < src->n_attrs; t.n_attrs++) {
            at_target_attr *a = &t.attrs[t.n_attrs];
            a->name = at_strdup(src->attrs[t.n_attrs].name);
            a->value = at_strdup(src->attrs[t.n_attrs].value);
            if (!a->name || !a->value) {
                t.n_attrs++; /* so fini frees the half-made pair */
                goto oom;
            }
        }
    }
    *dst = t;
    return AT_OK;
oom:
    at_target_fini(&t);
    return AT_OOM();
}

static int cmp_attr(const void *a, const void *b)
{
    const at_target_attr *const *x = a, *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

void at_target_write_canonical(const at_target *t, at_strbuf *sb)
{
    at_strbuf_puts(sb, t->kind);
    if (t->n_keys) {
        at_strbuf_puts(sb, " -keys=");
        for (size_t i = 0; i < t->n_keys; i++) {
            if (i) at_strbuf_putc(sb, ',');
            at_strbuf_puts(sb, t->keys[i]);
        }
    }
    if (!t->n_attrs) return;
    const at_target_attr **sorted = at_malloc(t->n_attrs * sizeof *sorted);
    if (!sorted) {
        sb->failed = 1;
        return;
    }
    for (size_t i = 0; i < t->n_attrs; i++) sorted[i] = &t->attrs[i];
    qsort(sorted, t->n_attrs, sizeof *sorted, cmp_attr);
    for (size_t i = 0; i < t->n_attrs; i++) at_strbuf_printf(sb, " -%s=%s", sorted[i]->name, sorted[i]->value);
    at_free(sorted);
}
