# The command-line programs (tools/ordo, bench/ordo-bench), run as programs.
# The ordo tool's tests need only the tool (child processes are run by
# bench/ordo_bench/child_process.cc, compiled in); the bench driver's only
# when it is built.
find_package(nlohmann_json REQUIRED)

set(TOOLS_TEST_UTIL tools_test_util.cc ${PROJECT_SOURCE_DIR}/bench/ordo_bench/child_process.cc)

# Label `tools`; the slower ones (the live-writer copies, the LMDB round
# trip) also `slow`, still in every ctest run.
ordo_test(tools_test
  SOURCES tools_ordo_test.cc tools_dump_load_test.cc tools_copy_test.cc tools_inspect_test.cc
          ${TOOLS_TEST_UTIL}
  LIBS ordo_engine ordo_base nlohmann_json::nlohmann_json
  LABELS tools)
target_include_directories(tools_test PRIVATE ${PROJECT_SOURCE_DIR}/bench/ordo_bench)
target_compile_definitions(tools_test PRIVATE ORDO_TOOL_PATH="$<TARGET_FILE:ordo>")
add_dependencies(tools_test ordo)
ordo_label_tests(tools_test LABELS tools slow TESTS ToolCopyLiveTest.* ToolLmdbTest.*)

# The tool's byte formats and dump format, as a library test.
ordo_test(tools_format_test
  SOURCES tools_format_test.cc
  LIBS ordo_tool_formats
  LABELS tools)

if(ORDO_BUILD_BENCH)
  ordo_test(tools_bench_test
    SOURCES tools_bench_test.cc tools_test_util.cc
    LIBS ordo_bench_compare ordo_bench_kv nlohmann_json::nlohmann_json
    LABELS bench)
  target_compile_definitions(tools_bench_test PRIVATE ORDO_BENCH_PATH="$<TARGET_FILE:ordo-bench>")
  add_dependencies(tools_bench_test ordo-bench)

  # Every engine adapter of ordo-bench that this build has, against one model.
  ordo_test(bench_kv_engine_test
    SOURCES bench_kv_engine_test.cc tools_test_util.cc
    LIBS ordo_bench_kv ordo_bench_compare
    LABELS bench)

  # The linkbench model and the prefix scan of ordo-bench, as a library test.
  ordo_test(bench_linkbench_model_test
    SOURCES bench_linkbench_model_test.cc tools_test_util.cc
            ${PROJECT_SOURCE_DIR}/bench/ordo_bench/linkbench_graph.cc
            ${PROJECT_SOURCE_DIR}/bench/ordo_bench/rows.cc
    LIBS ordo_bench_kv ordo_bench_compare
    LABELS bench)
endif()
