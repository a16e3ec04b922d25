// Digests and checks of database copy files (snapshot copies).
#pragma once

#include <cstdint>
#include <string>

#include "ordo/status.h"

namespace ordo::replica {

struct FileDigest {
  uint64_t size_bytes = 0;
  uint64_t xxh3 = 0;  // XXH3-64 of every byte
};

// Reads the whole file. NotFound when missing; IOError otherwise.
Result<FileDigest> digest_file(const std::string& path);

// Ok when the file at `path` has exactly `size_bytes` bytes hashing to
// `xxh3`; Corruption naming the mismatch; NotFound / IOError as digest_file.
Status verify_copy(const std::string& path, uint64_t size_bytes, uint64_t xxh3);

// Opens the file read-only as an ordo database and checks every page
// (Txn::check). Corruption naming the first problem; else as Database::open.
Status check_copy(const std::string& path);

// fsync of a directory, so that a rename in it is durable.
Status sync_dir(const std::string& dir);

}  // namespace ordo::replica
