// Engine-internal entry points for tests: open or upgrade a database whose
// writes go through a given I/O backend (the fault-injecting one of the crash
// tests), and see how many Database::batch calls are queued.
#pragma once

#include <memory>
#include <string>

#include "ordo/database.h"
#include "ordo/io/file_options.h"

namespace ordo {

class DatabaseOpener {
 public:
  using BackendFactory = decltype(io::FileOptions::backend_factory);
  static Result<std::unique_ptr<Database>> open(const std::string& path, const Options& options,
                                                BackendFactory factory);
  // Database::upgrade with the file's writes through `factory`.
  static Result<UpgradeResult> upgrade(const std::string& path, uint64_t log_bytes,
                                       BackendFactory factory);
  // batch() calls queued on `db`, the one whose group is at work included.
  static size_t queued_batches(const Database& db);
};

}  // namespace ordo
