/* Helpers shared by the cmocka tests: include this after cmocka's prerequisites. */
#ifndef AT_TESTS_SUPPORT_H
#define AT_TESTS_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/status.h"

/* Fails the test with the status text and this thread's error detail unless s == AT_OK. */
#define assert_ok(s) at_test_assert_ok((s), #s, __FILE__, __LINE__)
void at_test_assert_ok(at_status s, const char *expr, const char *file, int line);

/* Path of a file under the shared/ folder (AT_SHARED_DIR from ctest, else ../shared); static
 * buffer, valid until the next call. */
const char *at_test_shared_path(const char *rel);

/* Path under the source tree (AT_SOURCE_DIR from ctest, else "."); static buffer. */
const char *at_test_source_path(const char *rel);

/* A fresh empty directory for this test (under $TMPDIR); static buffer. */
const char *at_test_tmpdir(const char *tag);

/* Reads a whole file into an at_malloc'ed NUL-terminated buffer; NULL when unreadable. */
char *at_test_read_file(const char *path, size_t *len);

/* Writes text to a file, replacing it; fails the test on error. */
void at_test_write_file(const char *path, const char *text);

#endif
