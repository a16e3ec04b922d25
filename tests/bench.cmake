# ordo-bench compare: its statistics as pure functions, and the whole command
# run against a fake child (compare_fake_runner.sh) and, tiny, the real one.
ordo_test(bench_compare_stats_test
  SOURCES bench_compare_stats_test.cc
  LIBS ordo_bench_compare
  LABELS bench)

ordo_test(bench_compare_command_test
  SOURCES bench_compare_command_test.cc tools_test_util.cc
  LIBS ordo_bench_compare nlohmann_json::nlohmann_json
  LABELS bench)
target_compile_definitions(bench_compare_command_test PRIVATE
  ORDO_BENCH_PATH="$<TARGET_FILE:ordo-bench>"
  FAKE_RUNNER_PATH="${CMAKE_CURRENT_SOURCE_DIR}/compare_fake_runner.sh")
add_dependencies(bench_compare_command_test ordo-bench)
