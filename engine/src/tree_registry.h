// TreeRegistry: the tree names one open Database has handed out handles for,
// each with an id fixed for the life of that Database, and the tag that tells
// its Tree handles from another Database's.
//
// Thread-safety: all functions are thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "ordo/base/thread_annotations.h"
#include "ordo/database.h"
#include "ordo/status.h"

namespace ordo::engine {

class TreeRegistry {
 public:
  // Takes a tag no other registry in this process has.
  TreeRegistry();

  // A handle for the tree named `name`; the default tree when empty. The same
  // name always gets the same id; ids are 1, 2, ... in order of first use.
  Tree handle(std::string_view name) ORDO_EXCLUDES(mu_);
  // Ok for the default tree and handles made here; InvalidArgument for one
  // made by another registry (another Database, or another open of the file).
  Status check(const Tree& tree) const;

 private:
  const uint64_t tag_;
  base::Mutex mu_;
  std::unordered_map<std::string, uint32_t> ids_ ORDO_GUARDED_BY(mu_);
};

}  // namespace ordo::engine
