set(ENGINE_TEST_SOURCES
  engine_model_test.cc
  engine_basics_test.cc
  engine_bad_file_test.cc
  engine_crash_test.cc
  engine_space_test.cc
  engine_check_test.cc
  engine_commit_test.cc
  engine_rightmost_path_test.cc
  engine_cursor_test.cc
  engine_lifetime_test.cc
  engine_copy_test.cc
  engine_inspect_test.cc
  io_test_util.cc
)
# Readers in other threads beside the writer: label `concurrency` (the TSan run).
set(ENGINE_CONCURRENCY_TESTS
  ConcurrencyTest.*
  EngineTest.ConcurrentReadersSeeWholeCommits
  EngineTest.ReadersBesideAGrowingWriter
  EngineTest.ReadSnapshotIgnoresLaterCommits
  LifetimeTest.DatabaseDestroyedWhileThreadsRead
  LifetimeTest.TryAndTimedBeginWriteWhileAnotherThreadWrites
  LifetimeTest.WriteTxnMayEndOnAnotherThread
  LifetimeTest.OpenWaitsForAnotherWritableHandle
  LifetimeTest.SecondBeginWriteOnTheSameThreadIsBusy
)
# The engine suite runs once per I/O backend.
ordo_test(engine_test SOURCES ${ENGINE_TEST_SOURCES} LIBS ordo_engine ordo_btree ordo_io PkgConfig::URING PkgConfig::XXHASH
  LABELS engine ENV ORDO_IO=posix PREFIX "posix." CONCURRENCY ${ENGINE_CONCURRENCY_TESTS})
gtest_discover_tests(engine_test DISCOVERY_TIMEOUT 60 TEST_PREFIX "uring."
  PROPERTIES LABELS engine ENVIRONMENT ORDO_IO=uring)
ordo_label_tests(engine_test PREFIX "uring." LABELS concurrency TESTS ${ENGINE_CONCURRENCY_TESTS})

# docs/FORMAT.md against the layout constants.
ordo_test(format_test SOURCES format_test.cc LIBS ordo_engine ordo_btree LABELS format)
target_include_directories(format_test PRIVATE ${PROJECT_SOURCE_DIR}/engine/src)
target_compile_definitions(format_test PRIVATE ORDO_FORMAT_MD="${PROJECT_SOURCE_DIR}/docs/FORMAT.md")

# Fuzz corpus and regressions replayed in every build (tests/fuzz).
add_subdirectory(fuzz)
ordo_test(fuzz_replay_test SOURCES fuzz/fuzz_replay_test.cc LIBS ordo_fuzz_body LABELS fuzz)
target_include_directories(fuzz_replay_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
target_compile_definitions(fuzz_replay_test PRIVATE ORDO_FUZZ_DIR="${CMAKE_CURRENT_SOURCE_DIR}/fuzz")

# Heap allocations per put: replaces the global operator new, so its own binary.
ordo_test(alloc_test SOURCES engine_alloc_test.cc io_test_util.cc
  LIBS ordo_engine ordo_btree ordo_io PkgConfig::URING PkgConfig::XXHASH LABELS engine)

# The C API (ordo/ordo.h): GoogleTest calling only its C functions, and a C11
# program (tests/consumer/c) built with -pedantic -Werror and run on a fresh directory.
ordo_test(c_api_test SOURCES engine_c_api_test.cc LIBS ordo_engine LABELS engine
  CONCURRENCY CApiTest.TimedBeginWriteWhileAnotherThreadWrites)
enable_language(C)
add_executable(c_api_consumer consumer/c/consumer.c)
set_target_properties(c_api_consumer PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_compile_options(c_api_consumer PRIVATE -Wall -Wextra -pedantic -Werror)
target_link_libraries(c_api_consumer PRIVATE ordo_engine)
add_test(NAME c_api_consumer
  COMMAND sh -c "dir=$(mktemp -d) && \"$0\" \"$dir\"; rc=$?; rm -rf \"$dir\"; exit $rc"
          $<TARGET_FILE:c_api_consumer>)
set_tests_properties(c_api_consumer PROPERTIES LABELS engine)

# A program linking ordo keeps libc's malloc and libstdc++'s operator new: its own
# binary, since it inspects the process's symbol bindings.
ordo_test(host_malloc_test SOURCES engine_host_malloc_test.cc
  LIBS ordo_engine ${CMAKE_DL_LIBS} LABELS engine)
target_include_directories(host_malloc_test PRIVATE ${PROJECT_SOURCE_DIR}/engine/src)
if(TARGET mimalloc)
  target_compile_definitions(host_malloc_test PRIVATE
    "ORDO_MIMALLOC_SONAME=\"$<TARGET_SONAME_FILE_NAME:mimalloc>\"")
endif()
