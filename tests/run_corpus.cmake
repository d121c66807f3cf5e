# Runs `fiacheck run` on every case of the corpus, both profiles; fails when
# any case is a finding or misses its intent (exit 1) or is bad input (exit 2).
file(GLOB_RECURSE cases ${CASEDIR}/*.case)
list(LENGTH cases n)
if(n EQUAL 0)
  message(FATAL_ERROR "no cases in ${CASEDIR}")
endif()
foreach(profile doc cann)
  execute_process(COMMAND ${FIACHECK} run --profile ${profile} ${cases}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "fiacheck run --profile ${profile}: exit ${rc}\n${out}\n${err}")
  endif()
endforeach()
message(STATUS "${n} corpus cases passed in both profiles")
