# Runs `fiacheck run` on every case of the corpus, both profiles; fails when
# any case is a finding or misses its intent (exit 1) or is bad input (exit 2).
# The cases listed in ${CASEDIR}/../pending_fast.txt wait for fast/ (the
# file says why): they are left out of the run, and those the rules accept
# are computed by the reference alone (`fiacheck ref`, which must succeed).
file(GLOB_RECURSE cases ${CASEDIR}/*.case)
list(LENGTH cases n)
if(n EQUAL 0)
  message(FATAL_ERROR "no cases in ${CASEDIR}")
endif()
set(pending_file ${CASEDIR}/../pending_fast.txt)
set(pending "")
if(EXISTS ${pending_file})
  file(STRINGS ${pending_file} lines)
  foreach(line ${lines})
    string(STRIP "${line}" line)
    if(line STREQUAL "" OR line MATCHES "^#")
      continue()
    endif()
    if(NOT EXISTS ${CASEDIR}/${line})
      message(FATAL_ERROR "pending_fast.txt names ${line}, not a case")
    endif()
    list(APPEND pending ${CASEDIR}/${line})
  endforeach()
  list(REMOVE_ITEM cases ${pending})
endif()
foreach(profile doc cann)
  execute_process(COMMAND ${FIACHECK} run --profile ${profile} ${cases}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "fiacheck run --profile ${profile}: exit ${rc}\n${out}\n${err}")
  endif()
endforeach()
foreach(c ${pending})
  execute_process(COMMAND ${FIACHECK} ref ${c} --out ${CMAKE_CURRENT_BINARY_DIR}/pending.out
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  # exit 2 with "rejects" / "not modeled": a case the rules do not accept
  if(NOT rc EQUAL 0 AND NOT err MATCHES "rejects this case|not modeled")
    message(FATAL_ERROR "fiacheck ref ${c}: exit ${rc}\n${out}\n${err}")
  endif()
endforeach()
list(LENGTH pending np)
message(STATUS "${n} corpus cases: ${np} pending fast/ (reference only), the others passed in both profiles")
