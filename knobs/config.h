/* One point of a configuration space as logs store it: flat index, code hash and the ordered
 * list of knob entities ("config" of a v0.2 record, TVM's ConfigEntity.to_json_dict()). A config
 * read from a log is not tied to any space: knobs/space.h validates it against one. */
#ifndef AT_KNOBS_CONFIG_H
#define AT_KNOBS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json.h"
#include "core/status.h"
#include "core/strbuf.h"

/* The four knob kinds; their wire tags are frozen ("sp", "re", "an", "ot"). */
typedef enum at_knob_kind { AT_KNOB_SPLIT = 0, AT_KNOB_REORDER, AT_KNOB_ANNOTATE, AT_KNOB_OTHER, AT_KNOB_COUNT } at_knob_kind;

/* "sp", "re", "an", "ot"; AT_ASSERTs a valid kind. */
const char *at_knob_tag(at_knob_kind kind);

/* Kind of a wire tag; AT_EPARSE ("unknown knob tag 'xx'") for anything else. */
at_status at_knob_kind_from_tag(const char *tag, at_knob_kind *out);

/* A scalar value of an "ot" knob (define_knob candidates are ints in every TVM template, but
 * floats, bools, strings and null are legal JSON values there too). */
typedef enum at_val_kind { AT_VAL_NULL = 0, AT_VAL_BOOL, AT_VAL_INT, AT_VAL_FLOAT, AT_VAL_STR } at_val_kind;
typedef struct at_val {
    at_val_kind kind;
    bool        b;
    int64_t     i;
    double      f;
    const char *s; /* AT_VAL_STR: borrowed from whoever owns the value */
} at_val;

#define AT_VAL_OF_INT(x) ((at_val){.kind = AT_VAL_INT, .i = (x)})

/* Python equality of two values (1 == 1.0 == True, as workload tuples compare). */
bool at_val_equal(const at_val *a, const at_val *b);

/* One knob's chosen entity. Every pointer is owned by the config holding the entity. */
typedef struct at_entity {
    const char         *name;
    at_knob_kind        kind;
    size_t              n;    /* sp/re/an: number of items; ot: 0 */
    const int64_t      *ints; /* sp sizes (may start with -1), re permutation, an anchors
                                 (locate_cache); NULL for string annotations */
    const char *const  *anns; /* an: per-axis "none"/"unroll"/"vec"/"blockIdx.x"/...; else NULL */
    at_val              val;  /* ot: the value */
} at_entity;

typedef struct at_config at_config;

/* New config with no entities. code_hash may be NULL (logs write null). *out owned by the caller. */
at_status at_config_new(int64_t index, const char *code_hash, at_config **out);
void      at_config_free(at_config *c);

/* Append one entity (copies everything). AT_ENOMEM on allocation failure. */
at_status at_config_add_split(at_config *c, const char *name, const int64_t *sizes, size_t n);
at_status at_config_add_reorder(at_config *c, const char *name, const int64_t *perm, size_t n);
at_status at_config_add_annotate(at_config *c, const char *name, const char *const *anns, size_t n);
at_status at_config_add_anchors(at_config *c, const char *name, const int64_t *anchors, size_t n);
at_status at_config_add_other(at_config *c, const char *name, const at_val *val);
/* Appends a copy of an entity of any kind. */
at_status at_config_add_entity(at_config *c, const at_entity *e);

int64_t     at_config_index(const at_config *c);
void        at_config_set_index(at_config *c, int64_t index);
const char *at_config_code_hash(const at_config *c); /* NULL when null */
size_t      at_config_len(const at_config *c);       /* number of entities */
/* i-th entity in knob order (AT_ASSERT i < len); borrowed until at_config_free. */
const at_entity *at_config_at(const at_config *c, size_t i);
/* Entity by knob name, NULL when absent. */
const at_entity *at_config_find(const at_config *c, const char *name);

/* Typed reads by knob position, for templates: AT_ASSERT the kind and that out has room.
 * at_config_split copies n sizes. at_config_other_int reads an integer (or bool) value. */
void    at_config_split(const at_config *c, size_t knob, int64_t *sizes, size_t n);
int64_t at_config_other_int(const at_config *c, size_t knob);

/* Reads {"index": int, "code_hash": str|null, "entity": [[name, tag, value], ...]}. Unknown keys
 * are ignored. AT_EPARSE names the field ("config.entity[2]: unknown knob tag 'zz'"), or AT_ENOMEM. */
at_status at_config_from_json(const cJSON *obj, at_config **out);

/* Appends the config exactly as TVM's json.dumps(config.to_json_dict()) writes it. */
void at_config_write_json(const at_config *c, at_strbuf *sb);

/* Same index, code hash and entities (names, kinds, values), the identity pick-best uses. */
bool at_config_equal(const at_config *a, const at_config *b);

/* Deep copy. AT_ENOMEM on failure. */
at_status at_config_clone(const at_config *c, at_config **out);

#endif
