// Owners of C API handles for tests: each freed by its C free function, also
// when an assertion fails.
#pragma once

#include <memory>

#include "ordo/ordo.h"

namespace ordo::testing {

struct DbCloser {
  void operator()(ordo_db* db) const { ordo_db_close(db); }
};
struct TxnFreer {
  void operator()(ordo_txn* txn) const { ordo_txn_free(txn); }
};
struct CursorFreer {
  void operator()(ordo_cursor* c) const { ordo_cursor_free(c); }
};
struct TreeFreer {
  void operator()(ordo_tree* t) const { ordo_tree_free(t); }
};
using CDb = std::unique_ptr<ordo_db, DbCloser>;
using CTxn = std::unique_ptr<ordo_txn, TxnFreer>;
using CCursor = std::unique_ptr<ordo_cursor, CursorFreer>;
using CTree = std::unique_ptr<ordo_tree, TreeFreer>;

}  // namespace ordo::testing
