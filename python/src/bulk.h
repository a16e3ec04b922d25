// The pieces of the bulk writes that Txn.put_columns (bulk.cc) and
// Txn.put_arrow (arrow.cc) share.
#pragma once

#include "byte_columns.h"
#include "state.h"

namespace ordo::python {

// Puts row i of `keys` and `values` for every row, in chunks with the GIL
// released, checking signals between chunks; every offset is checked
// first (bad ones change nothing). Errors name the row; `key_names` and
// `value_names` name the columns. Returns the rows. REQUIRES: `call` on the
// txn of `w`.
uint64_t insert_columns(TxnCall& call, WriteTxn& w, const Tree& t, const ByteColumn& keys,
                        const ByteColumn& values, bool append, const ColumnNames& key_names,
                        const ColumnNames& value_names);

// Runs the signal handlers (PyErr_CheckSignals); when one raised (Ctrl-C's
// KeyboardInterrupt), rolls the txn back (roll_back_interrupted) and raises it.
void check_interrupt(TxnState& s);
// Aborts the txn for an interrupt (a batch function's txn is left to batch()).
void roll_back_interrupted(TxnState& s);

}  // namespace ordo::python
