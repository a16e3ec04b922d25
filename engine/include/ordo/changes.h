// ChangeCursor: the changes to one tree between an older snapshot and a read
// txn's snapshot, in key order (ReadTxn::changes in database.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "ordo/byte_view.h"
#include "ordo/status.h"

namespace ordo {

class ChangeCursorImpl;

// What ReadTxn::copy_delta_to wrote, or Database::apply_delta applied.
struct DeltaResult {
  uint64_t base_txn = 0;    // the state the delta applies to
  uint64_t target_txn = 0;  // the state it gives
  uint64_t trees = 0;       // trees changed, created or dropped
  uint64_t puts = 0;        // keys inserted or updated
  uint64_t deletes = 0;     // keys deleted
  uint64_t bytes = 0;       // size of the delta file
};

// Made by ReadTxn::changes(tree, since_txn). Each change is one key whose
// value differs between the two snapshots: inserted (no old value), deleted
// (no new value) or updated (both). Keys come in ascending byte order, each
// once; a key with the same value in both is never reported.
//
//   auto changes = txn->changes(tree, since);
//   if (!changes.is_ok()) return fail(changes.status());
//   for (;;) {
//     auto more = changes->next();
//     if (!more.is_ok()) return fail(more.status());
//     if (!*more) break;
//     use(changes->key(), changes->old_value(), changes->new_value());
//   }
//
// Work: subtrees the two snapshots share (same page, same checksum) are
// skipped unread, so a walk over all changes reads about the pages that
// changed times the tree's depth, not the tree.
//
// Views from key()/old_value()/new_value() stay valid until the txn ends or
// is reset. The cursor holds the older snapshot for its life (its pages are
// not reused, as for a read txn); destroying it lets go.
// Thread-safety: like its txn, one thread at a time.
class ChangeCursor {
 public:
  ChangeCursor(ChangeCursor&&) noexcept;
  ChangeCursor& operator=(ChangeCursor&&) noexcept;
  ~ChangeCursor();

  // Moves to the next change: true when there is one, false at the end
  // (key() etc. then empty). TxnEnded once the txn was committed, aborted,
  // reset or moved from; Corruption naming a damaged page (the cursor then
  // only returns that error).
  Result<bool> next();
  // The changed key; empty before the first next() and after the end.
  ByteView key() const;
  // The value at the older snapshot; nullopt when the key was inserted.
  std::optional<ByteView> old_value() const;
  // The value now; nullopt when the key was deleted.
  std::optional<ByteView> new_value() const;
  // The older snapshot's txn id, and the txn id read now.
  uint64_t since_txn() const;
  uint64_t txn_id() const;
  // Tree pages read so far (both snapshots): what the walk has cost.
  uint64_t pages_read() const;

 private:
  friend class ReadTxn;
  explicit ChangeCursor(std::unique_ptr<ChangeCursorImpl> impl);
  std::unique_ptr<ChangeCursorImpl> impl_;
};

}  // namespace ordo
