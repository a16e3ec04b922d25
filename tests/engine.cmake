set(ENGINE_TEST_SOURCES
  engine_model_test.cc
  engine_basics_test.cc
  engine_bad_file_test.cc
  engine_crash_test.cc
  engine_space_test.cc
  io_test_util.cc
)
# The engine suite runs once per I/O backend.
ordo_test(engine_test SOURCES ${ENGINE_TEST_SOURCES} LIBS ordo_engine ordo_btree ordo_io PkgConfig::URING PkgConfig::XXHASH
  LABELS engine ENV ORDO_IO=posix PREFIX "posix.")
gtest_discover_tests(engine_test DISCOVERY_TIMEOUT 60 TEST_PREFIX "uring."
  PROPERTIES LABELS engine ENVIRONMENT ORDO_IO=uring)
