/* A tiny HTTP/1.1 server on 127.0.0.1 for the TopHub tests: serves files from one directory on an
 * ephemeral port from a process forked off the test, and misbehaves on request. The first path
 * segment picks the behaviour, the rest names the file: GET /<mode>/<file>.
 *   ok       200 with the file and its Content-Length (404 when the file is missing)
 *   404      404 Not Found
 *   500      500 Internal Server Error
 *   huge     200 with a Content-Length of 100 MB (more than any pack may be)
 *   short    Content-Length of the whole file, then half of it, then close (body cut short)
 *   corrupt  200 with the file, one record line in the middle overwritten with garbage
 *   html     200 with an HTML page (a captive portal's answer)
 *   empty    200 with an empty body
 *   drip     200 with the file in 8 KiB pieces 3 ms apart (keeps a transfer in flight)
 *   stall    reads the request and never answers until the server stops
 *   tofile   302 redirect to file:///etc/hostname (must not be followed)
 * Tests only: failures abort the test. */
#ifndef AT_TESTS_TOPHUB_HTTP_SERVER_H
#define AT_TESTS_TOPHUB_HTTP_SERVER_H

typedef struct at_test_http at_test_http;

/* Starts serving root on 127.0.0.1:<ephemeral> (the port is listening when this returns). */
at_test_http *at_test_http_start(const char *root);

/* The port it listens on. */
int at_test_http_port(const at_test_http *s);

/* Requests received so far (each GET counted once its request line is read), all modes. */
long at_test_http_requests(const at_test_http *s);

/* Stops the server process (stalled connections end with it) and waits for it. NULL does nothing. */
void at_test_http_stop(at_test_http *s);

/* A 127.0.0.1 port with no listener (bound, then closed): connecting is refused. */
int at_test_closed_port(void);

/* A listener whose accept queue is full, so a new connection attempt hangs in SYN retransmits (an
 * unreachable mirror). *fds_out gets 2 descriptors to close afterwards. Returns the port. */
int at_test_blackhole_port(int fds_out[2]);

#endif
