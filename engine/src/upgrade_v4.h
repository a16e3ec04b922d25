// The version 3 to version 4 step of Database::upgrade: every branch page
// rewritten with the entry counts of its children (docs/FORMAT.md, "Version
// history").
#pragma once

#include "meta.h"
#include "ordo/io/page_file.h"
#include "ordo/status.h"

namespace ordo::engine {

// For the version 3 state `v3` of `file` (a meta whose pages are all in the
// file): writes, at and past v3's page high-water mark, a version 4 branch
// page for every branch of every tree (default, catalog, named trees, free
// tree), a new catalog (its values name the new roots) and a new free tree
// that also lists every page left behind (old branches, old catalog and free
// tree pages) as freed by txn v3.txn_id + 1; grows the file and syncs it.
// Leaves and overflow runs stay where they are. Every page read is checked
// against the checksum its parent records. Returns the version 4 meta to
// write next: txn v3.txn_id + 1, log epoch v3.log_epoch + 1, flags 0.
// Nothing that a meta of the file reaches is written, so a failure or crash
// leaves the version 3 state as it was. Corruption names a damaged page.
Result<Meta> rewrite_for_v4(io::PageFile& file, const Meta& v3);

// The checks of rewrite_for_v4() alone, writing nothing: whether every tree
// page of `v3` (a version 2 or 3 state: the same tree pages) is in the file,
// checked against the checksum its parent records. Overflow runs are not
// read. Corruption names the first page that fails.
Status check_v3_state(const io::PageFile& file, const Meta& v3);

}  // namespace ordo::engine
