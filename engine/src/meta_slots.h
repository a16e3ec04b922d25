// MetaSlots: both meta slots (pages 0 and 1) as decoded from the mapping,
// and the choice of the newest valid one.
#pragma once

#include <string>

#include "meta.h"
#include "ordo/io/page_file.h"

namespace ordo::engine {

struct MetaSlots {
  Meta meta[2];
  MetaProblem problem[2] = {MetaProblem::kNoMagic, MetaProblem::kNoMagic};
  std::string text[2];  // the problem in words

  // Decodes both slots from `file`'s mapping as it is now. Slot 1 sits one
  // page in: without a valid slot 0 every supported page size is tried.
  static MetaSlots read(const io::PageFile& file);

  // The valid slot with the higher txn id, or -1 when neither is valid.
  int newest_valid() const;
};

}  // namespace ordo::engine
