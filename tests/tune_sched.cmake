# tune/scheduler: the whole-network trial scheduler's arithmetic on fake latencies (unit).
if(TARGET at_tune)
  at_add_test(test_tune_sched LABELS unit DEPS tune)
endif()
