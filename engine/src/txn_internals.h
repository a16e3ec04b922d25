// Engine-internal access to a public txn's implementation, for the code that
// works on a whole snapshot from outside txn.cc: copies (copy.cc) and the
// inspection API (inspect.cc).
#pragma once

#include "ordo/database.h"
#include "txn_impl.h"

namespace ordo {

class TxnInternals {
 public:
  // What calls on an ended or reset txn return.
  static Status ended() {
    return Status::txn_ended("txn already committed, aborted, reset or moved from");
  }
  // The txn's implementation; TxnEnded once it ended or while it is reset.
  static Result<TxnImpl*> impl(Txn& txn) {
    if (!txn.impl_ || !txn.impl_->live()) return ended();
    return txn.impl_.get();
  }
};

}  // namespace ordo
