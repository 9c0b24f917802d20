/* Test helpers: paths to fixtures and scratch directories, status assertions. */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"

void at_test_assert_ok(at_status s, const char *expr, const char *file, int line)
{
    if (s == AT_OK) return;
    print_error("%s returned %s: %s\n", expr, at_status_str(s), at_last_error());
    _fail(file, line);
}

static char path_buf[4096];

const char *at_test_shared_path(const char *rel)
{
    const char *base = getenv("AT_SHARED_DIR");
    snprintf(path_buf, sizeof path_buf, "%s/%s", base && *base ? base : "../shared", rel);
    return path_buf;
}

const char *at_test_source_path(const char *rel)
{
    const char *base = getenv("AT_SOURCE_DIR");
    snprintf(path_buf, sizeof path_buf, "%s/%s", base && *base ? base : ".", rel);
    return path_buf;
}

const char *at_test_tmpdir(const char *tag)
{
    const char *t = getenv("TMPDIR");
    snprintf(path_buf, sizeof path_buf, "%s/at_test_%s_XXXXXX", t && *t ? t : "/tmp", tag);
    if (!mkdtemp(path_buf)) {
        print_error("mkdtemp %s failed\n", path_buf);
        fail();
    }
    return path_buf;
}

char *at_test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = at_malloc(cap);
    for (;;) {
        if (!buf) break;
        if (n + 1 >= cap) {
            char *nb = at_realloc(buf, cap * 2);
            if (!nb) {
                at_free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        if (got == 0) break;
        n += got;
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

void at_test_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        print_error("cannot write %s\n", path);
        fail();
    }
    fputs(text, f);
    fclose(f);
}
