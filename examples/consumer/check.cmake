# check.cmake - runs the program on a prompt and kiln-run's reference
# evaluator on the same model and options; their greedy tokens must agree.
execute_process(COMMAND ${EMULATOR} "${PROGRAM}" 1 5 9
  OUTPUT_VARIABLE got RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} failed (${rc})")
endif()
execute_process(COMMAND "${KILN_RUN}" "${MODEL}" ${REFERENCE_ARGS}
  --tokens=1,5,9 --generate=16
  OUTPUT_VARIABLE want RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kiln-run --reference failed (${rc})")
endif()
if(NOT got STREQUAL want)
  message(FATAL_ERROR "program printed\n  ${got}the reference evaluator\n  ${want}")
endif()
message(STATUS "greedy tokens match the reference: ${got}")
