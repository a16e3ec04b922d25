# The fault-injecting backend (io/testing): crash images and injected failures, then a
# smoke test of crash images through the engine (DatabaseOpener, engine/src).
ordo_test(fault_test
  SOURCES
    fault_backend_test.cc
    fault_engine_smoke_test.cc
    fault_engine_errors_test.cc
    copy_fault_test.cc
    io_test_util.cc
  LIBS ordo_io_fault ordo_engine ordo_btree ordo_io PkgConfig::URING PkgConfig::XXHASH
  LABELS fault
)
target_include_directories(fault_test PRIVATE ${PROJECT_SOURCE_DIR}/engine/src)

# Crash enumeration over the fault backend, both commit protocols.
ordo_test(crash_enumeration_test
  SOURCES crash_enumeration_test.cc io_test_util.cc
  LIBS ordo_io_fault ordo_engine ordo_btree ordo_io PkgConfig::URING PkgConfig::XXHASH
  LABELS crash
)
target_include_directories(crash_enumeration_test PRIVATE ${PROJECT_SOURCE_DIR}/engine/src)
