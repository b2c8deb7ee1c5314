# bench/strategies --from on stored reports of real runs (tests/data/
# strategy_runs, copied from docs/bench): two seeds of synaptic and of
# hier_diloco are judged together (seed means, goals, exit 3 as goals are
# missed, a merged report); cells over different seeds are said to be; the
# filters keep what they name; a run repeated across reports, reports of
# different scenarios and options --from would ignore are refused, naming
# the file or the option.
#   cmake -DTOOL=path/to/synaptic-bench-strategies -DDATA=tests/data -DOUT=merged.json -P strategies_merge_smoke.cmake
set(runs ${DATA}/strategy_runs)
file(REMOVE ${OUT})
execute_process(
    COMMAND ${TOOL} --from ${runs}/synaptic-seed1.json,${runs}/synaptic-seed2.json,${runs}/hier_diloco-seed2.json,${runs}/hier_diloco-seed1.json
            --json ${OUT}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 3)
    message(FATAL_ERROR "merge: expected exit 3 (goals missed), got ${rc}\n${out}\n${err}")
endif()
# 0.8865 and 0.8803: the mean and spread of the two synaptic seeds.
if(NOT out MATCHES "seed\\(s\\) 1,2" OR NOT out MATCHES "synaptic +fp32 +1,2 +0\\.8834 +0\\.8803\\.\\.0\\.8865"
   OR NOT out MATCHES "hier_diloco +fp32 +1,2 +0\\.8903 +0\\.8882\\.\\.0\\.8924" OR out MATCHES "different seeds")
    message(FATAL_ERROR "merge: expected two-seed means 0.8834 (synaptic) and 0.8903 (hier_diloco)\n${out}")
endif()
if(NOT out MATCHES "WAN bytes to target: synaptic / hier_diloco")
    message(FATAL_ERROR "merge: the WAN goal against hier_diloco was not judged\n${out}")
endif()
file(READ ${OUT} report)
string(JSON nruns LENGTH "${report}" runs)
string(JSON seeds GET "${report}" seeds)
string(JSON curve LENGTH "${report}" runs 0 curve)
if(NOT nruns EQUAL 4 OR NOT seeds EQUAL 2 OR curve LESS 2)
    message(FATAL_ERROR "merged report: ${nruns} runs (want 4), ${seeds} seeds (want 2), ${curve} curve points")
endif()

# One hier_diloco seed against two of synaptic: said, and filters keep what they name.
execute_process(
    COMMAND ${TOOL} --from ${runs}/synaptic-seed1.json,${runs}/synaptic-seed2.json,${runs}/hier_diloco-seed1.json
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 3 OR NOT out MATCHES "cells ran over different seeds" OR NOT out MATCHES "hier_diloco +fp32 +1 +0\\.8924")
    message(FATAL_ERROR "uneven cells: expected exit 3 and a note on the seeds, got ${rc}\n${out}\n${err}")
endif()
execute_process(
    COMMAND ${TOOL} --from ${runs}/synaptic-seed1.json,${runs}/hier_diloco-seed1.json --strategies hier_diloco
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(out MATCHES "synaptic +fp32" OR NOT out MATCHES "hier_diloco +fp32")
    message(FATAL_ERROR "--strategies hier_diloco kept other runs or lost its own\n${out}\n${err}")
endif()
execute_process(
    COMMAND ${TOOL} --from ${runs}/synaptic-seed1.json --target 0.87
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--from takes only --strategies, --codecs and --json, not --target")
    message(FATAL_ERROR "--from with --target: expected exit 2 naming --target, got ${rc}\n${out}\n${err}")
endif()

execute_process(
    COMMAND ${TOOL} --from ${runs}/synaptic-seed1.json,${runs}/synaptic-seed1.json
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "synaptic-seed1\\.json: runs\\[0\\] repeats synaptic at fp32 seed 1, already read from .*synaptic-seed1\\.json runs\\[0\\]")
    message(FATAL_ERROR "a repeated run: expected exit 1 naming runs[0], got ${rc}\n${out}\n${err}")
endif()

execute_process(
    COMMAND ${TOOL} --from ${runs}/synaptic-seed1.json,${runs}/param_server-noniid-seed1.json
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "param_server-noniid-seed1\\.json: scenario is 'noniid', but 'default'")
    message(FATAL_ERROR "mixed scenarios: expected exit 1 naming the scenario, got ${rc}\n${out}\n${err}")
endif()
message(STATUS "strategies merge smoke: ${OUT}")
