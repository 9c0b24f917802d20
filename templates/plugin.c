/* Loading template plugins (templates/plugin.h): dlopen, the ABI check, at_plugin_init. Plugins
 * are opened RTLD_LOCAL (two plugins may both define helpers of the same name) and never closed:
 * the registry borrows their definitions for the life of the process. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "core/strbuf.h"
#include "templates/plugin.h"

at_status at_plugin_load(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        return AT_FAIL(AT_EIO, "plugin %s: %s", path, e ? e : "cannot be loaded");
    }
    const at_plugin_abi *abi = dlsym(h, AT_PLUGIN_ABI_SYMBOL);
    at_plugin_init_fn    init;
    /* ISO C has no function-pointer conversion from void *; POSIX guarantees dlsym's works. */
    *(void **)&init = dlsym(h, AT_PLUGIN_INIT_SYMBOL);
    if (!abi || !init) {
        dlclose(h);
        return AT_FAIL(AT_EINVAL, "plugin %s: not an autotvm template plugin (no %s)", path,
                       abi ? AT_PLUGIN_INIT_SYMBOL : AT_PLUGIN_ABI_SYMBOL " (AT_PLUGIN_DECLARE)");
    }
    if (abi->api_version != AT_PLUGIN_API_VERSION) {
        unsigned v = abi->api_version;
        dlclose(h);
        return AT_FAIL(AT_EINVAL, "plugin %s: built against plugin API version %u, this autotvm has version %u", path,
                       v, AT_PLUGIN_API_VERSION);
    }
    if (abi->args_size != sizeof(at_args) || abi->op_def_size != sizeof(at_op_def) ||
        abi->template_size != sizeof(at_template)) {
        dlclose(h);
        return AT_FAIL(AT_EINVAL,
                       "plugin %s: plugin API version %u but other struct sizes (at_args %u, at_op_def %u, "
                       "at_template %u; this autotvm: %zu, %zu, %zu): rebuild it against these headers",
                       path, AT_PLUGIN_API_VERSION, abi->args_size, abi->op_def_size, abi->template_size,
                       sizeof(at_args), sizeof(at_op_def), sizeof(at_template));
    }
    const at_plugin_api api = {
        .api_version = AT_PLUGIN_API_VERSION,
        .path = path,
        .register_op = at_op_register,
        .register_template = at_tmpl_register,
    };
    at_status st = init(&api);
    if (st != AT_OK) {
        if (st == AT_ENOMEM) return st;
        return AT_FAIL_WRAP(AT_EINVAL, "plugin %s", path);
    }
    return AT_OK; /* what it registered stays: it is never unloaded */
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.so of dir in name order, so the registration order (and at_tmpl_at) is reproducible. */
static at_status load_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return AT_FAIL(AT_EIO, "plugin directory %s cannot be read", dir);
    char **names = NULL;
    size_t n = 0;
    at_status st = AT_OK;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".so") || e->d_name[0] == '.') continue;
        char **grown = at_realloc(names, (n + 1) * sizeof *grown);
        char *copy = grown ? at_strdup(e->d_name) : NULL;
        if (grown) names = grown;
        if (!copy) {
            st = AT_OOM();
            break;
        }
        names[n++] = copy;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        if (st == AT_OK) {
            at_strbuf p;
            at_strbuf_init(&p);
            at_strbuf_printf(&p, "%s/%s", dir, names[i]);
            st = at_strbuf_status(&p);
            if (st == AT_OK) st = at_plugin_load(p.data);
            at_strbuf_fini(&p);
        }
        at_free(names[i]);
    }
    at_free(names);
    return st;
}

at_status at_plugin_load_path_list(const char *list)
{
    char *copy = at_strdup(list);
    if (!copy) return AT_OOM();
    at_status st = AT_OK;
    for (char *entry = copy, *next; entry && st == AT_OK; entry = next) {
        next = strchr(entry, ':');
        if (next) *next++ = '\0';
        if (!*entry) continue;
        struct stat sb;
        st = stat(entry, &sb) == 0 && S_ISDIR(sb.st_mode) ? load_dir(entry) : at_plugin_load(entry);
    }
    at_free(copy);
    return st;
}
