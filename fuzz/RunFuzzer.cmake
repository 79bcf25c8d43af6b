# ctest's short fuzz run: FUZZER for RUNS mutations (fixed seed) from
# CORPUS and REGRESSIONS, new inputs in SCRATCH (emptied first).
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH})
execute_process(
  COMMAND ${FUZZER} -runs=${RUNS} -seed=1 -max_len=65536 -timeout=10
          -rss_limit_mb=4096 -print_final_stats=1
          ${SCRATCH} ${CORPUS} ${REGRESSIONS}
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${FUZZER} failed (${result})")
endif()
