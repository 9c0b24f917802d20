/* Test helpers over a tracker (tests/support/test_rpc_support.h). */
#include "tests/support/test_rpc_support.h"

#include <poll.h>

#include "core/clock.h"
#include "core/json.h"
#include "rpc/client.h"
#include "tests/support/test_support.h"

void at_test_wait_registered(int tracker_port, int n_servers, double timeout_s)
{
    double end = at_clock_mono_s() + timeout_s;
    for (;;) {
        at_rpc_tclient_opts o = {.connect_timeout_ms = 2000, .retry_period_ms = 50};
        at_rpc_tclient *c;
        assert_ok(at_rpc_tclient_connect("127.0.0.1", tracker_port, &o, &c));
        cJSON *s;
        assert_ok(at_rpc_tclient_summary(c, &s));
        at_rpc_tclient_free(c);
        int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "server_info"));
        at_json_free(s);
        if (n == n_servers) return;
        if (at_clock_mono_s() > end) fail_msg("%d servers registered, waited for %d", n, n_servers);
        poll(NULL, 0, 20);
    }
}
