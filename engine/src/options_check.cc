#include "options_check.h"

#include <string>

#include "ordo/btree/page_format.h"

namespace ordo::engine {

Status check_options(const Options& options) {
  if (options.page_size_bytes != 0 && !btree::valid_page_size(options.page_size_bytes)) {
    return Status::invalid_argument("page size " + std::to_string(options.page_size_bytes) +
                                    " is not a power of two from 4096 to 65536");
  }
  if (options.txn_memory_budget_bytes < (1ull << 20)) {
    return Status::invalid_argument("txn_memory_budget_bytes must be at least 1 MiB");
  }
  if (!(options.append_fill >= 0.5 && options.append_fill <= 1.0)) {
    return Status::invalid_argument("append_fill must be between 0.5 and 1.0");
  }
  if (options.io_backend != IoBackend::kAuto && options.io_backend != IoBackend::kUring &&
      options.io_backend != IoBackend::kPosix) {
    return Status::invalid_argument("unknown io_backend " +
                                    std::to_string(static_cast<int>(options.io_backend)));
  }
  if (options.commit_protocol != CommitProtocol::kTwoSync &&
      options.commit_protocol != CommitProtocol::kOneSync &&
      options.commit_protocol != CommitProtocol::kLog) {
    return Status::invalid_argument("unknown commit_protocol " +
                                    std::to_string(static_cast<int>(options.commit_protocol)));
  }
  if (options.log_bytes != 0) {
    const uint64_t page =
        options.page_size_bytes != 0 ? options.page_size_bytes : btree::kDefaultPageSize;
    if (options.log_bytes < kMinLogBytes || options.log_bytes > kMaxLogBytes ||
        options.log_bytes % page != 0) {
      return Status::invalid_argument(
          "log_bytes " + std::to_string(options.log_bytes) +
          " must be a multiple of the page size from 64 KiB to 1 GiB (or 0 for the default)");
    }
  }
  if (options.run_reclaim_limit_pages == 0) {
    return Status::invalid_argument("run_reclaim_limit_pages must be at least 1");
  }
  if (options.extent_bytes == 0) return Status::invalid_argument("extent_bytes is 0");
  if (options.max_extent_bytes < options.extent_bytes) {
    return Status::invalid_argument(
        "max_extent_bytes (" + std::to_string(options.max_extent_bytes) +
        ") is below extent_bytes (" + std::to_string(options.extent_bytes) + ")");
  }
  if (options.id_node > 1023) {
    return Status::invalid_argument("id_node " + std::to_string(options.id_node) + " exceeds 1023");
  }
  return Status::ok();
}

}  // namespace ordo::engine
