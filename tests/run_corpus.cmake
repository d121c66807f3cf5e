# Runs `fiacheck run` on every case of the corpus, both profiles; fails when
# any case is a finding or misses its intent (exit 1) or is bad input (exit 2).
# -DSTATUS_ONLY_PROFILES="cann" runs those profiles with --status-only: the
# sanitizer build's corpus (CMakeLists.txt) computes the outputs once, in
# profile doc, since a profile changes only which statuses are expected and
# returned, not the arithmetic that the sanitizers watch; the statuses are
# still checked in both.
cmake_policy(SET CMP0057 NEW) # if(IN_LIST)
file(GLOB_RECURSE cases ${CASEDIR}/*.case)
list(LENGTH cases n)
if(n EQUAL 0)
  message(FATAL_ERROR "no cases in ${CASEDIR}")
endif()
foreach(profile doc cann)
  set(mode "")
  if(profile IN_LIST STATUS_ONLY_PROFILES)
    set(mode --status-only)
  endif()
  execute_process(COMMAND ${FIACHECK} run --profile ${profile} ${mode} ${cases}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "fiacheck run --profile ${profile} ${mode}: exit ${rc}\n${out}\n${err}")
  endif()
endforeach()
if(STATUS_ONLY_PROFILES)
  message(STATUS "${n} corpus cases passed in both profiles (statuses only in ${STATUS_ONLY_PROFILES})")
else()
  message(STATUS "${n} corpus cases passed in both profiles")
endif()
