/* Test helpers for the tests that run a tracker and rpc-servers (linked as at_test_rpc_support). */
#ifndef AT_TESTS_SUPPORT_TEST_RPC_SUPPORT_H
#define AT_TESTS_SUPPORT_TEST_RPC_SUPPORT_H

/* Polls the tracker on 127.0.0.1:tracker_port until exactly n_servers servers are registered;
 * fails the test after timeout_s seconds, naming how many were. */
void at_test_wait_registered(int tracker_port, int n_servers, double timeout_s);

#endif
