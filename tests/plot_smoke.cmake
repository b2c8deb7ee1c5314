# synaptic-plot-strategies on hand-written reports: the sample must give a
# real PNG (exit 0, well over an empty image's size); a point without
# accuracy must give exit 2 and an error naming that field, and no PNG.
#   cmake -DTOOL=path/to/synaptic-plot-strategies -DDATA=tests/data -DOUT=out.png -P plot_smoke.cmake
file(REMOVE ${OUT} ${OUT}.broken.png)
execute_process(
    COMMAND ${TOOL} ${DATA}/strategy_report_sample.json --out ${OUT}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "synaptic-plot-strategies exited with ${rc}\n${out}\n${err}")
endif()
file(SIZE ${OUT} size)
if(size LESS 10240)
    message(FATAL_ERROR "${OUT} is only ${size} bytes; expected a rendered chart over 10 KB")
endif()

execute_process(
    COMMAND ${TOOL} ${DATA}/strategy_report_broken.json --out ${OUT}.broken.png
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "strategies\\[1\\]\\.curve\\[3\\]\\.accuracy: missing")
    message(FATAL_ERROR "broken report: expected exit 2 naming strategies[1].curve[3].accuracy, got ${rc}\n${out}\n${err}")
endif()
if(EXISTS ${OUT}.broken.png)
    message(FATAL_ERROR "broken report still wrote ${OUT}.broken.png")
endif()
message(STATUS "plot smoke: ${OUT} is ${size} bytes")
