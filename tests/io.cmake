# io layer: PageFile and the write backends, each suite run against POSIX and io_uring.
ordo_test(io_test
  SOURCES
    io_backend_test.cc
    io_page_file_test.cc
    io_write_plan_test.cc
    io_write_ordered_test.cc
    io_test_util.cc
  LIBS ordo_io PkgConfig::URING
  LABELS io
  CONCURRENCY *PageFileTest.DataIsSafeWhileTheWriterGrows/*
)
# White-box tests of the write planner include io/src headers.
target_include_directories(io_test PRIVATE ${PROJECT_SOURCE_DIR}/io/src)
