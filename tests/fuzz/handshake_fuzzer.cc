// libFuzzer entry point for the Raft port's handshake parser (clang
// -fsanitize=fuzzer,address); see docs/TESTING.md.
#include <cstddef>
#include <cstdint>

#include "handshake_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ordo::fuzz::parse_raft_handshake(data, size);
  return 0;
}
