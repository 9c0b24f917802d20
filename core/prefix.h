/* Where an installed autotvm keeps its files, found from the file that holds this code
 * (libautotvm.so, in <prefix>/<libdir>), so an installed tree works wherever it was unpacked:
 * <libdir>/autotvm/ (the LLVM plugin) and <datadir>/autotvm/ (shipped TopHub packs, docs). In the
 * build tree (code linked statically into an executable) nothing is found and callers use their
 * build-tree defaults. */
#ifndef AT_CORE_PREFIX_H
#define AT_CORE_PREFIX_H

#include <stdbool.h>
#include <stddef.h>

typedef enum at_install_dir { AT_INSTALL_LIBDIR = 0, AT_INSTALL_DATADIR } at_install_dir;

/* Writes <dir>/autotvm/<rel> into buf (cap bytes) and returns true when that file exists;
 * false (buf unspecified) when it does not, or when this code is not in an installed library. */
bool at_install_path(at_install_dir dir, const char *rel, char *buf, size_t cap);

#endif
