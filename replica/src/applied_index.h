// The applied index kept in the ordo file: tree kSystemTree, key
// "applied_index", value 8 big-endian bytes.
#pragma once

#include <cstdint>

#include "ordo/database.h"

namespace ordo::replica {

// The applied index the txn sees; 0 when the tree or key is missing (a new
// file). Corruption for a value that is not 8 bytes; else as Txn::get.
Result<uint64_t> read_applied_index(Txn& txn);

// Records `index` as applied in the write txn (creates the tree).
Status write_applied_index(WriteTxn& txn, uint64_t index);

}  // namespace ordo::replica
