// Recovery check for the one-sync commit protocol: the newest meta is
// trusted only when every page its txn wrote reads back intact.
#pragma once

#include <cstdint>

#include "meta.h"
#include "meta_slots.h"
#include "ordo/io/page_file.h"
#include "ordo/status.h"

namespace ordo::engine {

// Verifies the pages the txns after `previous` (every txn when null) up to
// that of `meta` wrote: from each root (default tree,
// catalog, free tree, and named trees the catalog changes of that txn name),
// descends only into pages stamped with the txn's id, and checks every child
// of such a page against the checksum its entry records (which catches a torn
// page whose header still shows an older txn). Overflow runs these pages
// refer to are checked when the txn may have written them: at or past the
// high-water mark of `previous` (the meta before, nullptr when there is none
// valid), or on pages free in it (a reused run).
// Work is proportional to the pages the txn wrote times the fan-out, plus
// one pass over the previous free tree when a run below that mark needs it;
// never the file. Returns Corruption naming the first page that fails.
Status verify_last_commit(const io::PageFile& file, const Meta& meta, const Meta* previous);

// The same check for every txn after `since_txn` up to meta's: descends into
// pages stamped with a txn id above `since_txn`, hashing every child of such a
// page against its entry, and hashes every overflow run those pages refer to.
// Used for logged commits, whose pages reach the disk only at the checkpoint
// after them. Work is proportional to the pages written since `since_txn`
// (times the fan-out) and their runs. Returns Corruption naming the first page
// that fails, or the file ending before meta's high-water mark.
Status verify_since(const io::PageFile& file, const Meta& meta, uint64_t since_txn);

// Whether open may trust slot `pick` of `slots` (its newest valid one) as it
// stands: Ok for a meta without kMetaFlagOneSync (its pages were durable
// before it was written); for a one-sync commit, verify_last_commit() with
// the older valid slot (MetaSlots::older_valid) as `previous`, and Corruption
// when the file ends before its high-water mark (its growth was not durable
// either).
Status verify_slot_commit(const io::PageFile& file, const MetaSlots& slots, int pick);

// The slot open uses when slot `pick`'s one-sync commit failed
// verify_slot_commit() with `problem`: the older valid slot, with `*note`
// saying why ("txn 8 was not durable (...); using txn 7"); or `problem`
// itself when there is none.
Result<int> fall_back_from(const MetaSlots& slots, int pick, const Status& problem,
                           std::string* note);

}  // namespace ordo::engine
