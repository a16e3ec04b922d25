# Compile and link options of ordo's own targets. They are directory properties of
# ordo's source tree: a project that adds ordo as a subdirectory keeps its flags,
# and the exported ordo::* targets carry none of these.

# Warnings; with ORDO_WERROR (tools/dev, CI) every warning fails the build.
add_compile_options(-Wall -Wextra -Wshadow -Wno-unused-parameter)
# Clang checks the locking written in the code (base/internal/ordo/base/thread_annotations.h).
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  add_compile_options(-Wthread-safety)
endif()
if(ORDO_WERROR)
  add_compile_options(-Werror)
endif()

# Sanitizer builds (docs/TESTING.md), applied to every target, compile and link:
#   -DORDO_SANITIZE=address  AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/)
#   -DORDO_SANITIZE=thread   ThreadSanitizer (build-tsan/)
# The sanitizer runtime owns malloc and operator new there; ordo's page buffers
# still come from mimalloc's API (engine/src/page_memory.cc), which ASan does not see into.
set(ORDO_SANITIZE "" CACHE STRING "Sanitizer build: empty, address (ASan+UBSan) or thread (TSan)")
set_property(CACHE ORDO_SANITIZE PROPERTY STRINGS "" address thread)
if(ORDO_SANITIZE STREQUAL "address")
  set(ORDO_SANITIZE_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
elseif(ORDO_SANITIZE STREQUAL "thread")
  set(ORDO_SANITIZE_FLAGS -fsanitize=thread -fno-omit-frame-pointer)
elseif(NOT ORDO_SANITIZE STREQUAL "")
  message(FATAL_ERROR "ORDO_SANITIZE must be empty, address or thread (got '${ORDO_SANITIZE}')")
endif()
if(ORDO_SANITIZE_FLAGS)
  message(STATUS "ordo: sanitizer build ${ORDO_SANITIZE}: ${ORDO_SANITIZE_FLAGS}")
  add_compile_options(${ORDO_SANITIZE_FLAGS})
  add_link_options(${ORDO_SANITIZE_FLAGS})
  # g++ 12's instrumented code gives false -Wmaybe-uninitialized (std::regex's
  # std::function in format_test); the normal build keeps the warning.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
endif()

option(ORDO_FUZZ "Build the libFuzzer targets (clang only)" OFF)
if(ORDO_FUZZ)
  # Instrument everything for coverage; only the fuzzer executable links libFuzzer's main.
  add_compile_options(-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address)
endif()

# Build time. Most of ordo's sources are tests, tools and benchmarks that each
# parse gtest, fmt, nlohmann/json, CLI11 and the engine's headers and optimize
# the same inline code again: ordo_unity_build(targets...) compiles a target's
# sources in batches of ORDO_UNITY_BATCH_SIZE (CMake's UNITY_BUILD). A source
# that cannot share a batch has SKIP_UNITY_BUILD_INCLUSION. The libraries are
# unity builds only in the sanitizer and fuzz builds, so the libraries that
# build/ installs are compiled one source at a time; tools/dev's benchmark
# build (build-bench/) sets ORDO_UNITY_BUILD=OFF.
option(ORDO_UNITY_BUILD "Compile ordo's tests, tools and benchmarks in batches (unity build)" ON)
set(ORDO_UNITY_BUILD_BATCH_SIZE 8 CACHE STRING "Sources per batch of a unity build")
function(ordo_unity_build)
  if(ORDO_UNITY_BUILD)
    set_target_properties(${ARGN} PROPERTIES
      UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${ORDO_UNITY_BUILD_BATCH_SIZE})
  endif()
endfunction()
# The test build's clients: tools/dev's build/ compiles the tests and the
# benchmark driver at -O1 -g1 (ORDO_TESTS_O1), half their compile time at -O2 -g.
# The libraries, tools and Python module keep the build type's flags, and
# benchmark figures come from build-bench/, which leaves this off.
option(ORDO_TESTS_O1 "Compile the tests and the benchmark driver at -O1 -g1" OFF)
function(ordo_tests_o1)
  if(ORDO_TESTS_O1)
    foreach(target IN LISTS ARGN)
      target_compile_options(${target} PRIVATE -O1 -g1)
    endforeach()
  endif()
endfunction()
# ordo_unity_build_library(targets...): as above, in sanitizer and fuzz builds only.
function(ordo_unity_build_library)
  if(ORDO_SANITIZE OR ORDO_FUZZ)
    ordo_unity_build(${ARGN})
  endif()
endfunction()
