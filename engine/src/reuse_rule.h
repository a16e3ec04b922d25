// The page reuse rule (docs/FORMAT.md "Page reuse rule"): which free-tree
// entries a write txn may take pages from.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "free_entry.h"
#include "ordo/assert.h"
#include "ordo/io/page_file.h"
#include "ordo/status.h"

namespace ordo::engine {

class ReuseRule {
 public:
  // `snapshot_txn`: the newest committed txn (the snapshot the write txn
  // starts from). `checkpoint_txn`: the last checkpoint made durable, the
  // state open falls back to after a crash and replays the log on.
  // `reader_snapshots`: snapshot txn ids of this process's live read txns.
  // `file`: asked for other processes' reader slots, first when an entry
  // needs it (a txn that reclaims nothing makes no query).
  static ReuseRule make(uint64_t snapshot_txn, uint64_t checkpoint_txn,
                        std::vector<uint64_t> reader_snapshots, const io::PageFile& file);

  // Entries freed after this txn are not reusable yet: the previous meta
  // (kept whole for recovery) may reach their pages. The one exception is an
  // entry of pages its txn recorded unused (written_by == freed_by). Entries
  // sort by freeing txn, then writing txn, so those come last.
  uint64_t last_freeing_txn() const { return last_; }

  // True when the entry's pages wait for a checkpoint or for the next
  // commit, whatever the readers: freed after last_freeing_txn(), or freed
  // after the checkpoint while written at or before it (the checkpoint's state
  // reaches them, and open may replay the log on it).
  bool recent(const FreeEntry& entry) const;

  // True when recent() holds for the checkpoint's sake alone: freed after the
  // checkpoint, written at or before it, by txns up to last_freeing_txn().
  // Such an entry stays unusable until the next checkpoint, whatever readers do.
  bool waits_for_checkpoint(const FreeEntry& entry) const;
  uint64_t checkpoint_txn() const { return checkpoint_; }

  // Free-tree keys below `key` belong to entries that wait for the checkpoint
  // (a scan of the previous txn, under the same checkpoint, found them so):
  // reclaiming starts at `key` rather than rescanning them at every commit.
  void skip_entries_before(std::string key) { held_before_ = std::move(key); }
  const std::string& held_before() const { return held_before_; }

  // True when no snapshot still in use can reach the entry's pages: it holds
  // pages its txn recorded unused (written_by == freed_by), or it is not
  // recent() and no reader here or in another process reads a snapshot in
  // [written_by, freed_by). IOError when a reader-slot query fails.
  Result<bool> reusable(const FreeEntry& entry) const;

 private:
  ReuseRule(uint64_t snapshot_txn, uint64_t last, uint64_t checkpoint,
            std::vector<uint64_t> readers, const io::PageFile& file)
      : last_(last),
        checkpoint_(checkpoint),
        readers_(std::move(readers)),
        file_(&file),
        snapshot_txn_(snapshot_txn) {
    ORDO_DCHECK(std::is_sorted(readers_.begin(), readers_.end()));  // make() sorted them
  }

  uint64_t last_;
  uint64_t checkpoint_;
  std::vector<uint64_t> readers_;  // sorted
  const io::PageFile* file_;
  // Whether another process holds a reader slot below the txn's snapshot,
  // asked once, when the first entry needs it. Readers that start meanwhile
  // read that snapshot or a newer one, which reaches no page of an entry the
  // rule can find reusable, so one query serves the txn.
  Result<bool> other_readers() const;
  enum class OtherReaders : uint8_t { kUnknown, kNone, kSome };
  mutable OtherReaders other_readers_ = OtherReaders::kUnknown;
  uint64_t snapshot_txn_ = 0;
  std::string held_before_;
};

}  // namespace ordo::engine
