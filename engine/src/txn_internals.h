// Engine-internal access to a public txn's implementation, for the code that
// works on a whole snapshot from outside txn.cc: copies (copy.cc) and the
// inspection API (inspect.cc).
#pragma once

#include "ordo/database.h"
#include "txn_impl.h"

namespace ordo {

class TxnInternals {
 public:
  // The txn's implementation; TxnEnded once it ended.
  static Result<TxnImpl*> impl(Txn& txn) {
    if (!txn.impl_) return Status::txn_ended("txn already committed, aborted or moved from");
    return txn.impl_.get();
  }
};

}  // namespace ordo
