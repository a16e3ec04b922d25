// Checks of the pages a commit is about to write. A failure is a bug in
// ordo (it aborts, see ordo/assert.h), never damage in the file: every page
// checked here was built in memory by this txn.
#pragma once

#include <span>

#include "meta.h"
#include "ordo/btree/tree.h"
#include "ordo/io/backend.h"

namespace ordo::engine {

// `spans`: the txn's dirty pages, one page each. `roots`: the roots of the
// trees the txn changed (default tree, catalog, free tree, changed named
// trees), as the meta and the catalog record them.
// Always (ORDO_ASSERT, O(1) per page): each span is one whole page past the
// meta pages and below meta.page_high_water, a leaf or branch stamped with
// meta.txn_id (or `stamp_txn` when non-zero: a commit made as a later txn
// than it began as, WriteTxnImpl::commit_as) whose header counts lie inside
// the page.
// With ORDO_DCHECK on: each written page reachable from `roots` through
// written pages has sound cells and the checksum its parent (or its root
// record) holds: the checksums finalize computed describe the bytes written.
void check_pages_before_write(const Meta& meta, std::span<const btree::TreeRoot> roots,
                              std::span<const io::WriteSpan> spans, uint64_t stamp_txn = 0);

}  // namespace ordo::engine
