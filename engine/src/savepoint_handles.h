// SavepointHandles: the engine's access to the private fields of a
// Savepoint (WriteTxn::savepoint), for the txn and the C API.
#pragma once

#include <cstdint>

#include "ordo/database.h"

namespace ordo {

class SavepointHandles {
 public:
  static Savepoint make(uint64_t txn_tag, uint64_t serial) { return Savepoint(txn_tag, serial); }
  // Which write txn of this process took it; 0 for a default-made one.
  static uint64_t txn_tag(const Savepoint& sp) { return sp.txn_tag_; }
  // Its place in that txn: serials rise with each savepoint().
  static uint64_t serial(const Savepoint& sp) { return sp.serial_; }
};

}  // namespace ordo
