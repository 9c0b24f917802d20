/* Target strings as TVM v0.18 parses them ("opencl -device=mali -model=rk3399"): kind, keys and
 * model, which key the best-record tables (spec/autotvm_core.md §2.8). Plain data. */
#ifndef AT_CORE_TARGET_H
#define AT_CORE_TARGET_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"
#include "core/strbuf.h"

/* One "-name=value" attribute; value as TVM interprets it (quotes and escapes resolved, string
 * values stripped of surrounding spaces; a bare "-flag" has value "1"). */
typedef struct at_target_attr {
    char *name;
    char *value;
} at_target_attr;

typedef struct at_target {
    char           *kind;    /* "opencl", "llvm", "ext_dev", ... (one of TVM v0.18's kinds) */
    char          **keys;    /* n_keys target keys in query order, duplicates removed */
    size_t          n_keys;
    char           *model;   /* -model value, "unknown" when absent (TVM's target.model) */
    char           *device;  /* -device value, NULL when absent */
    at_target_attr *attrs;   /* n_attrs attributes other than -keys, in the order written */
    size_t          n_attrs;
} at_target;

/* Parses a target string exactly as TVM v0.18's Target(str) does for kind, keys and model:
 * tokens split on ' ' (single quotes group, backslash escapes), first token = kind, then
 * "-name=value", "-name value" (next token not starting with '-') or "-flag" (= "1"); one or two
 * leading dashes. Keys = -keys values (comma list) if given, then -device, then the kind's default
 * keys only when no -keys was given ("opencl" -> opencl,gpu; "llvm" -> cpu; "ext_dev" -> none ...),
 * later duplicates dropped. Attribute names are not checked against the kind, and no default
 * attributes are added. On success *out is filled (release with at_target_fini); on failure *out
 * is zeroed. Returns AT_OK, AT_EPARSE (detail says what: empty string, unknown kind 'x', mismatched
 * quotes, attribute key without '-', empty key or value, key given twice) or AT_ENOMEM. */
at_status at_target_parse(const char *text, at_target *out);

/* Frees everything a target owns and zeroes it; a zeroed target is fine. */
void at_target_fini(at_target *t);

/* Deep copy into *dst (not initialized before). AT_ENOMEM (dst zeroed) on failure. */
at_status at_target_copy(at_target *dst, const at_target *src);

/* Value of attribute name ("device", "model", "mtriple", ...), NULL when absent; borrowed until
 * at_target_fini. "keys" is not an attribute here: read t->keys. */
const char *at_target_attr_value(const at_target *t, const char *name);

/* True when key is one of t's keys. */
bool at_target_has_key(const at_target *t, const char *key);

/* Default keys of a TVM v0.18 target kind ("cuda" -> {"cuda", "gpu"}); *n = 0 for kinds without
 * any (ext_dev, hybrid). Returns false for an unknown kind. The array is static. */
bool at_target_kind_default_keys(const char *kind, const char *const **keys, size_t *n);

/* Appends an order-independent form: kind, " -keys=k1,k2" when there are keys, then every
 * attribute sorted by name as " -name=value". Two strings that differ only in attribute order
 * give the same text (the equivalence TVM gets from str(Target)); TVM's defaulted attributes are
 * not added, so this is not byte-equal to str(Target). Failure shows in sb->failed. */
void at_target_write_canonical(const at_target *t, at_strbuf *sb);

#endif
