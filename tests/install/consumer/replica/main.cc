// A user's program over ordo's replica, with no network: a write batch
// through its log-entry encoding and back, and a replica refused for a bad
// option before it opens anything. Prints what failed and exits 1 on any
// error.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ordo/replica.h"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "replica consumer: %s\n", what.c_str());
  std::exit(1);
}

}  // namespace

int main() {
  ordo::replica::WriteBatch batch;
  batch.create_tree("people");
  batch.put("people", "ada", "Lovelace");
  batch.del("", "gone");
  const std::string entry = batch.encode();
  if (entry.size() != batch.encoded_bytes()) fail("encoded_bytes differs from encode()");
  ordo::Result<ordo::replica::WriteBatch> decoded = ordo::replica::WriteBatch::decode(entry);
  if (!decoded.is_ok()) fail("decode: " + decoded.status().to_string());
  if (decoded->ops().size() != 3 || decoded->ops()[1].value != "Lovelace") {
    fail("decode gave other operations");
  }
  if (ordo::replica::WriteBatch::decode(entry.substr(0, entry.size() - 1)).is_ok()) {
    fail("a truncated entry decoded");
  }

  ordo::replica::ReplicaOptions options;  // id 0: refused before anything opens
  options.address = "127.0.0.1:7001";
  options.dir = "unused";
  auto replica = ordo::replica::Replica::open(options);
  if (replica.is_ok() || !replica.status().is_invalid_argument()) {
    fail("Replica::open with id 0 was not InvalidArgument");
  }
  std::printf("replica consumer: ok (%s)\n",
              ordo::replica::outcome_name(ordo::replica::Outcome::kApplied));
  return 0;
}
