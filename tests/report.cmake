# report/: the tuning report page of a hand-written log (unit).
if(TARGET at_report)
  at_add_test(test_report LABELS unit DEPS report)
endif()
