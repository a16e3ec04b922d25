// Which processes hold the reader slots of a database file: the slots (see
// PageFile::lock_reader_slot) with the holders of each, for inspection.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ordo/status.h"

namespace ordo::io {

// One reader slot held on a file.
struct HeldReaderSlot {
  uint64_t txn_id = 0;    // the snapshot txn id the slot pins
  std::vector<int> pids;  // processes holding its lock, ascending; may be empty
};

// The reader slots any handle (of any process) holds on the file at `path`,
// as PageFile::held_reader_slots lists them (ascending, each once, at most
// the lowest PageFile::kMaxListedReaderSlots), each with the processes that
// hold its lock. Holders are found through /proc/<pid>/fdinfo of every
// descriptor open on the file: only processes the caller may inspect are
// seen, and where /proc cannot be read the lists are empty. Opens `path`
// read-only for the query (one open for both) and closes it.
// Returns NotFound when `path` does not exist; IOError (the errno, the call
// and the path) when open, fstat or fcntl fails.
// Thread-safety: safe from any thread; reads no shared state.
Result<std::vector<HeldReaderSlot>> reader_slot_holders(const std::string& path);

}  // namespace ordo::io
