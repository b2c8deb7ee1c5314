# bench/strategies --from on stored reports of real runs (tests/data/
# strategy_runs, copied from docs/bench): two synaptic seeds and hier_diloco
# are judged together (seed means, goals, exit 3 as goals are missed, a
# merged report); a run repeated across reports and reports of different
# scenarios are refused with exit 1 and an error naming the file.
#   cmake -DTOOL=path/to/synaptic-bench-strategies -DDATA=tests/data -DOUT=merged.json -P strategies_merge_smoke.cmake
set(runs ${DATA}/strategy_runs)
file(REMOVE ${OUT})
execute_process(
    COMMAND ${TOOL} --from ${runs}/synaptic-seed1.json,${runs}/synaptic-seed2.json,${runs}/hier_diloco-seed1.json
            --json ${OUT}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 3)
    message(FATAL_ERROR "merge: expected exit 3 (goals missed), got ${rc}\n${out}\n${err}")
endif()
# 0.8865 and 0.8803: the mean and spread of the two synaptic seeds.
if(NOT out MATCHES "seed\\(s\\) 1,2" OR NOT out MATCHES "synaptic +fp32 +0\\.8834 +0\\.8803\\.\\.0\\.8865")
    message(FATAL_ERROR "merge: expected synaptic's two-seed mean 0.8834 (0.8803..0.8865)\n${out}")
endif()
if(NOT out MATCHES "WAN bytes to target: synaptic / hier_diloco")
    message(FATAL_ERROR "merge: the WAN goal against hier_diloco was not judged\n${out}")
endif()
file(READ ${OUT} report)
string(JSON nruns LENGTH "${report}" runs)
string(JSON seeds GET "${report}" seeds)
string(JSON curve LENGTH "${report}" runs 0 curve)
if(NOT nruns EQUAL 3 OR NOT seeds EQUAL 2 OR curve LESS 2)
    message(FATAL_ERROR "merged report: ${nruns} runs (want 3), ${seeds} seeds (want 2), ${curve} curve points")
endif()

execute_process(
    COMMAND ${TOOL} --from ${runs}/synaptic-seed1.json,${runs}/synaptic-seed1.json
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "synaptic-seed1\\.json: runs\\[0\\] repeats synaptic at fp32 seed 1")
    message(FATAL_ERROR "a repeated run: expected exit 1 naming runs[0], got ${rc}\n${out}\n${err}")
endif()

execute_process(
    COMMAND ${TOOL} --from ${runs}/synaptic-seed1.json,${runs}/param_server-noniid-seed1.json
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "param_server-noniid-seed1\\.json: scenario is noniid, but default")
    message(FATAL_ERROR "mixed scenarios: expected exit 1 naming the scenario, got ${rc}\n${out}\n${err}")
endif()
message(STATUS "strategies merge smoke: ${OUT}")
