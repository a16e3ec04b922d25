// libFuzzer entry point (clang -fsanitize=fuzzer,address); see docs/TESTING.md.
#include <cstddef>
#include <cstdint>

#include "wire_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ordo::fuzz::decode_client_protocol(data, size);
  return 0;
}
