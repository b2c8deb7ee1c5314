# Engine-only smoke test (no Qt needed): a short real training run through
# synaptic-node must exit 0 and write a report whose main-head accuracy
# clearly beats chance (0.10).
#   cmake -DNODE=path/to/synaptic-node -DREPORT=out.json -P node_smoke.cmake
execute_process(
    COMMAND ${NODE} train --epochs 1 --subset 4096 --test-subset 1000 --threads 2 --device cpu --report ${REPORT}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "synaptic-node exited with ${rc}\n${out}\n${err}")
endif()
file(READ ${REPORT} report)
string(JSON accuracy GET "${report}" test_accuracy)
string(JSON epochs GET "${report}" epochs)
if(NOT epochs EQUAL 1 OR accuracy LESS 0.6)
    message(FATAL_ERROR "expected 1 epoch and test_accuracy >= 0.6, got ${epochs} and ${accuracy}")
endif()
message(STATUS "node smoke: test_accuracy ${accuracy}")
