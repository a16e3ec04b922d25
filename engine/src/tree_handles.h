// TreeHandles: the engine's access to the private fields of a Tree handle.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "ordo/database.h"

namespace ordo {

class TreeHandles {
 public:
  static Tree make(uint64_t database_tag, uint32_t id, std::string name) {
    return Tree(database_tag, id, std::move(name));
  }
  static uint64_t database_tag(const Tree& tree) { return tree.database_tag_; }
  // Per open Database: 0 for the default tree, else fixed per name.
  static uint32_t id(const Tree& tree) { return tree.id_; }
};

}  // namespace ordo
