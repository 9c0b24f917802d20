/* TopHub's version table, aliases and pack-name rules: static data matching TVM v0.18's
 * tophub.py (PACKAGE_VERSION, _alias); the only names ever turned into paths come from here or
 * pass at_tophub_pack_name_is_valid. */
#include <stdio.h>
#include <string.h>

#include "core/target.h"
#include "tophub/internal.h"
#include "tophub/tophub.h"

static const at_tophub_package packages[AT_TOPHUB_PACKAGE_COUNT] = {
    {"arm_cpu", "v0.08", "arm_cpu_v0.08"},
    {"llvm", "v0.04", "llvm_v0.04"},
    {"cuda", "v0.10", "cuda_v0.10"},
    {"rocm", "v0.05", "rocm_v0.05"},
    {"opencl", "v0.04", "opencl_v0.04"},
    {"mali", "v0.06", "mali_v0.06"},
    {"intel_graphics", "v0.02", "intel_graphics_v0.02"},
    {"vta", "v0.10", "vta_v0.10"},
    {"amd_apu", "v0.01", "amd_apu_v0.01"},
    {"adreno", "v0.01", "adreno_v0.01"},
};

/* TVM's table also maps amd_apu and adreno to themselves, which changes nothing. */
static const struct {
    const char *from, *to;
} aliases[] = {
    {"vtacpu", "vta"},
    {"webgpu", "opencl"},
    {"vulkan", "opencl"},
    {"nvptx", "cuda"},
};

const at_tophub_package *at_tophub_package_at(size_t i)
{
    AT_ASSERT(i < AT_TOPHUB_PACKAGE_COUNT);
    return &packages[i];
}

const char *at_tophub_alias(const char *name)
{
    AT_ASSERT(name);
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(name, aliases[i].from)) return aliases[i].to;
    return name;
}

const at_tophub_package *at_tophub_find(const char *name)
{
    const char *canon = at_tophub_alias(name);
    for (size_t i = 0; i < AT_TOPHUB_PACKAGE_COUNT; i++)
        if (!strcmp(canon, packages[i].backend)) return &packages[i];
    return NULL;
}

const at_tophub_package *at_tophub_find_pack(const char *pack)
{
    AT_ASSERT(pack);
    for (size_t i = 0; i < AT_TOPHUB_PACKAGE_COUNT; i++)
        if (!strcmp(pack, packages[i].pack)) return &packages[i];
    return NULL;
}

bool at_tophub_pack_name_is_valid(const char *pack)
{
    if (!pack || !pack[0] || pack[0] == '.') return false;
    size_t n = strlen(pack);
    if (n > 64 || strstr(pack, "..")) return false;
    for (size_t i = 0; i < n; i++) {
        char c = pack[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                  c == '.' || c == '-';
        if (!ok) return false;
    }
    return true;
}

static void add_candidate(const char *name, const at_tophub_package **out, size_t *n)
{
    const at_tophub_package *p = at_tophub_find(name);
    if (!p) return;
    for (size_t i = 0; i < *n; i++)
        if (out[i] == p) return;
    AT_ASSERT(*n < AT_TOPHUB_PACKAGE_COUNT);
    out[(*n)++] = p;
}

at_status at_tophub_candidates(const char *target, const at_tophub_package **out, size_t *n_out)
{
    AT_ASSERT(target && out && n_out);
    *n_out = 0;
    at_target t;
    at_status st = at_target_parse(target, &t);
    if (st != AT_OK) return AT_FAIL_WRAP(st, "tophub: target '%s'", target);
    size_t n = 0;
    /* TVM's order: Target.device, then Target.keys, then Target.kind */
    if (t.device && t.device[0]) add_candidate(t.device, out, &n);
    for (size_t i = 0; i < t.n_keys; i++) add_candidate(t.keys[i], out, &n);
    add_candidate(t.kind, out, &n);
    at_target_fini(&t);
    *n_out = n;
    return AT_OK;
}

bool at_tophub_is_pack_name(const char *s)
{
    if (!at_tophub_pack_name_is_valid(s)) return false;
    const char *v = strstr(s, "_v");
    if (!v) return false;
    for (const char *next; (next = strstr(v + 1, "_v")) != NULL;) v = next;
    const char *p = v + 2;
    size_t d1 = strspn(p, "0123456789");
    if (!d1 || p[d1] != '.') return false;
    size_t d2 = strspn(p + d1 + 1, "0123456789");
    return d2 && p[d1 + 1 + d2] == '\0';
}

void at_tophub_pack_backend(const char *pack, char *buf, size_t cap)
{
    size_t n = strlen(pack);
    if (at_tophub_is_pack_name(pack)) {
        const char *v = strstr(pack, "_v");
        for (const char *next; (next = strstr(v + 1, "_v")) != NULL;) v = next;
        n = (size_t)(v - pack);
    }
    snprintf(buf, cap, "%.*s", (int)n, pack);
}
