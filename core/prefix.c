/* The installed tree's directories (core/prefix.h). dladdr names the file this function lives
 * in; only a file called libautotvm.so* counts, so an executable that links the modules
 * statically (the build tree's autotvm, the tests) never picks up files of an installed copy. */
#define _GNU_SOURCE /* dladdr */
#include "core/prefix.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef AT_INSTALL_LIBDIR_TO_DATADIR
#error "AT_INSTALL_LIBDIR_TO_DATADIR (the datadir relative to the libdir, e.g. ../share) must be defined"
#endif

static const char anchor; /* any object of this file: dladdr finds the file holding it */

bool at_install_path(at_install_dir dir, const char *rel, char *buf, size_t cap)
{
    Dl_info info;
    if (!dladdr(&anchor, &info) || !info.dli_fname) return false;
    const char *slash = strrchr(info.dli_fname, '/');
    if (!slash || strncmp(slash + 1, "libautotvm.so", 13) != 0) return false;
    int libdir_len = (int)(slash - info.dli_fname);
    int n = dir == AT_INSTALL_LIBDIR
                ? snprintf(buf, cap, "%.*s/autotvm/%s", libdir_len, info.dli_fname, rel)
                : snprintf(buf, cap, "%.*s/%s/autotvm/%s", libdir_len, info.dli_fname, AT_INSTALL_LIBDIR_TO_DATADIR, rel);
    return n > 0 && (size_t)n < cap && access(buf, R_OK) == 0;
}
