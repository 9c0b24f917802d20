/* libcurl adapter: one GET of a pack into a file descriptor. The only file that sees CURLcode;
 * every transfer has a connect timeout, a total timeout and a low-speed limit, so an offline or
 * stalled mirror fails quickly instead of hanging the tuner. */
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "tophub/internal.h"
#include "tophub/tophub.h"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_OK;

/* curl_global_init is not thread-safe before 7.84; do it once, whoever comes first. */
static void init_curl(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

typedef struct sink {
    int    fd;
    size_t bytes;
    int    write_errno; /* set when write() failed */
    bool   too_big;     /* the body passed AT_TOPHUB_MAX_BYTES */
} sink;

static size_t on_data(char *data, size_t size, size_t nmemb, void *user)
{
    sink *s = user;
    size_t n = size * nmemb;
    if (s->bytes + n > (size_t)AT_TOPHUB_MAX_BYTES) {
        s->too_big = true;
        return 0;
    }
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(s->fd, data + done, n - done);
        if (w < 0) {
            if (errno == EINTR) continue;
            s->write_errno = errno;
            return 0;
        }
        done += (size_t)w;
    }
    s->bytes += n;
    return n;
}

/* How each libcurl failure is reported: our status and a short category before curl's text. */
static const struct {
    CURLcode    code;
    at_status   status;
    const char *what;
} failures[] = {
    {CURLE_COULDNT_CONNECT, AT_EIO, "cannot connect"},
    {CURLE_COULDNT_RESOLVE_HOST, AT_EIO, "cannot resolve host"},
    {CURLE_COULDNT_RESOLVE_PROXY, AT_EIO, "cannot resolve proxy"},
    {CURLE_OPERATION_TIMEDOUT, AT_ETIMEOUT, "timed out"},
    {CURLE_PARTIAL_FILE, AT_EIO, "body cut short"},
    {CURLE_RECV_ERROR, AT_EIO, "connection broken"},
    {CURLE_SEND_ERROR, AT_EIO, "connection broken"},
    {CURLE_GOT_NOTHING, AT_EIO, "empty reply from server"},
    {CURLE_WEIRD_SERVER_REPLY, AT_EIO, "malformed reply from server"},
    {CURLE_PEER_FAILED_VERIFICATION, AT_EIO, "TLS certificate rejected"},
    {CURLE_SSL_CACERT_BADFILE, AT_EIO, "cannot read the CA file"},
    {CURLE_SSL_CONNECT_ERROR, AT_EIO, "TLS handshake failed"},
    /* the location's own scheme is checked before; this is a redirect to file:, ftp: ... */
    {CURLE_UNSUPPORTED_PROTOCOL, AT_EIO, "protocol not allowed (redirects may go to http/https only)"},
    {CURLE_URL_MALFORMAT, AT_EINVAL, "malformed URL"},
    {CURLE_FILE_COULDNT_READ_FILE, AT_ENOTFOUND, "no such file"},
    {CURLE_TOO_MANY_REDIRECTS, AT_EIO, "too many redirects"},
    {CURLE_BAD_CONTENT_ENCODING, AT_EIO, "bad content encoding"},
    {CURLE_OUT_OF_MEMORY, AT_ENOMEM, "out of memory"},
};

static at_status report(CURLcode rc, const char *errbuf)
{
    const char *text = errbuf[0] ? errbuf : curl_easy_strerror(rc);
    for (size_t i = 0; i < sizeof failures / sizeof failures[0]; i++)
        if (failures[i].code == rc) return AT_FAIL(failures[i].status, "%s: %s", failures[i].what, text);
    return AT_FAIL(AT_EIO, "libcurl error %d: %s", (int)rc, text);
}

at_status at_tophub_download(const char *url, int fd, const at_tophub_dl_opts *o, size_t *bytes_out)
{
    AT_ASSERT(url && o && bytes_out);
    *bytes_out = 0;
    pthread_once(&curl_once, init_curl);
    if (curl_init_rc != CURLE_OK)
        return AT_FAIL(AT_EIO, "libcurl initialisation failed: %s", curl_easy_strerror(curl_init_rc));
    CURL *h = curl_easy_init();
    if (!h) return AT_FAIL(AT_ENOMEM, "out of memory (curl_easy_init)");

    char errbuf[CURL_ERROR_SIZE];
    errbuf[0] = '\0';
    sink s = {.fd = fd};
    CURLcode rc = CURLE_OK;
    /* Every option must take: a silently ignored timeout or protocol limit is a security bug. */
#define SET(opt, val)                                           \
    do {                                                        \
        if (rc == CURLE_OK) rc = curl_easy_setopt(h, opt, val); \
    } while (0)
    SET(CURLOPT_ERRORBUFFER, errbuf);
    SET(CURLOPT_URL, url);
    SET(CURLOPT_PROTOCOLS_STR, "http,https,file");
    SET(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    SET(CURLOPT_FOLLOWLOCATION, 1L);
    SET(CURLOPT_MAXREDIRS, 5L);
    SET(CURLOPT_FAILONERROR, 1L);
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
    SET(CURLOPT_TIMEOUT_MS, o->timeout_ms);
    SET(CURLOPT_LOW_SPEED_LIMIT, 100L);
    SET(CURLOPT_LOW_SPEED_TIME, o->low_speed_time_s);
    SET(CURLOPT_SSL_VERIFYPEER, 1L);
    SET(CURLOPT_SSL_VERIFYHOST, 2L);
    if (o->ca_file) SET(CURLOPT_CAINFO, o->ca_file);
    SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)AT_TOPHUB_MAX_BYTES);
    SET(CURLOPT_ACCEPT_ENCODING, "");
    SET(CURLOPT_USERAGENT, "autotvm-c-tophub/1");
    SET(CURLOPT_WRITEFUNCTION, on_data);
    SET(CURLOPT_WRITEDATA, &s);
#undef SET
    if (rc != CURLE_OK) {
        at_status st = AT_FAIL(AT_EIO, "libcurl rejected an option: %s", curl_easy_strerror(rc));
        curl_easy_cleanup(h);
        return st;
    }

    rc = curl_easy_perform(h);
    at_status st = AT_OK;
    if (rc == CURLE_HTTP_RETURNED_ERROR) {
        long code = 0;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
        st = AT_FAIL(code == 404 || code == 410 ? AT_ENOTFOUND : AT_EIO, "HTTP %ld%s", code,
                     code == 404 ? " (no such file on the mirror)" : "");
    } else if (rc == CURLE_WRITE_ERROR && s.too_big) {
        st = AT_FAIL(AT_EIO, "body larger than %ld bytes", AT_TOPHUB_MAX_BYTES);
    } else if (rc == CURLE_FILESIZE_EXCEEDED) {
        st = AT_FAIL(AT_EIO, "body larger than %ld bytes", AT_TOPHUB_MAX_BYTES);
    } else if (rc == CURLE_WRITE_ERROR && s.write_errno) {
        st = AT_FAIL(AT_EIO, "cannot write the temp file: %s", strerror(s.write_errno));
    } else if (rc != CURLE_OK) {
        st = report(rc, errbuf);
    }
    curl_easy_cleanup(h);
    if (st == AT_OK) *bytes_out = s.bytes;
    return st;
}

const char *at_tophub_curl_version(void)
{
    return curl_version_info(CURLVERSION_NOW)->version;
}
