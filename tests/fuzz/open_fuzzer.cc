// libFuzzer entry point (clang -fsanitize=fuzzer,address); see docs/TESTING.md.
#include <cstddef>
#include <cstdint>

#include "fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ordo::fuzz::open_check_and_scan(data, size);
  return 0;
}
