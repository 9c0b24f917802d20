/* Template plugins: shared objects that add op kinds and templates at run time, so a template
 * author ships an operator without forking the tree (TVM's @autotvm.template in a user's own
 * script). `autotvm --plugin PATH.so` and AUTOTVM_PLUGIN_PATH load them before any command runs,
 * so every process the command forks (measurement builders, RPC sessions) sees them too.
 *
 * A plugin is one C file built against the installed headers (examples/plugin/):
 *
 *     #include "templates/plugin.h"
 *     AT_PLUGIN_DECLARE;                       exports at_plugin_abi_info (the versions below)
 *     AT_PLUGIN_EXPORT at_status at_plugin_init(const at_plugin_api *api)
 *     {
 *         at_op_kind k;
 *         AT_TRY(api->register_op(&my_op, &k)); a kind's at_op_def (templates/ops.h), args in u.ext
 *         my_tmpl.op = k;
 *         return api->register_template(&my_tmpl);
 *     }
 *
 * The host reads at_plugin_abi_info before calling anything: a plugin built against another
 * AT_PLUGIN_API_VERSION (or whose at_args / at_op_def / at_template differ in size) is refused
 * with one line naming both versions. Registered definitions are borrowed for the life of the
 * process (a plugin is never unloaded). A plugin template is looked up, tuned, measured, checked
 * and logged exactly as a built-in one; its op kind's arguments live in at_args.u.ext. */
#ifndef AT_TEMPLATES_PLUGIN_H
#define AT_TEMPLATES_PLUGIN_H

#include "templates/template.h"

/* Bumped whenever a struct a plugin fills or reads changes layout or meaning. */
#define AT_PLUGIN_API_VERSION 1u

/* What a plugin was built against; the host compares every field with its own. */
typedef struct at_plugin_abi {
    unsigned api_version;
    unsigned args_size, op_def_size, template_size;
} at_plugin_abi;

#define AT_PLUGIN_ABI_SYMBOL "at_plugin_abi_info"
#define AT_PLUGIN_INIT_SYMBOL "at_plugin_init"

/* Marks at_plugin_init exported in a plugin built with hidden visibility. */
#define AT_PLUGIN_EXPORT __attribute__((visibility("default")))

/* Put once at file scope in a plugin. */
#define AT_PLUGIN_DECLARE                                                                              \
    __attribute__((visibility("default"))) extern const at_plugin_abi at_plugin_abi_info;              \
    const at_plugin_abi at_plugin_abi_info = {AT_PLUGIN_API_VERSION, (unsigned)sizeof(at_args),        \
                                              (unsigned)sizeof(at_op_def), (unsigned)sizeof(at_template)}

typedef struct at_plugin_api {
    unsigned    api_version; /* AT_PLUGIN_API_VERSION of the host */
    const char *path;        /* the plugin's file, for messages */
    /* Adds op kind def (borrowed; every member but tiny/typical required, a name no kind has);
     * *kind gets its value (>= AT_OP_COUNT), which the kind's templates put in their .op.
     * AT_EINVAL (incomplete, name taken), AT_ENOMEM. */
    at_status (*register_op)(const at_op_def *def, at_op_kind *kind);
    /* Adds template t (borrowed; name, a valid target and op, define_space and schedule required,
     * a (name, target) no template has). AT_EINVAL, AT_ENOMEM. */
    at_status (*register_template)(const at_template *t);
} at_plugin_api;

/* The entry point every plugin exports. A failure (with its message) refuses the plugin. */
typedef at_status (*at_plugin_init_fn)(const at_plugin_api *api);
AT_PLUGIN_EXPORT at_status at_plugin_init(const at_plugin_api *api);

/* Loads the plugin at path and runs its at_plugin_init. AT_EIO (cannot be loaded: dlerror's
 * text), AT_EINVAL (not a plugin, incompatible API version, its init failed). */
at_status at_plugin_load(const char *path);

/* Loads every entry of a colon-separated list: a file is a plugin, a directory contributes its
 * *.so files in name order; empty entries are skipped. Stops at the first failure. */
at_status at_plugin_load_path_list(const char *list);

/* The registry's run-time extension (templates/registry_ext.c), also what at_plugin_api points
 * at: embedding programs may register definitions of their own the same way. Not thread-safe:
 * register before any thread looks templates up. */
at_status at_op_register(const at_op_def *def, at_op_kind *kind);
at_status at_tmpl_register(const at_template *t);

/* Number of op kinds registered at run time. */
size_t at_op_ext_count(void);

#endif
