// write_commit: a commit's pages and meta page into the file, by either
// protocol, and what a failure leaves: the meta slot as it was before.
#pragma once

#include <span>
#include <vector>

#include "log_record.h"
#include "meta.h"
#include "ordo/byte_view.h"
#include "ordo/io/page_file.h"
#include "ordo/options.h"
#include "ordo/status.h"
#include "page_buffers.h"

namespace ordo::engine {

struct CommitWriteResult {
  Status status;
  // The failure leaves this handle unable to know what the file holds (a
  // failed sync, EIO from a write, or a meta slot that could not be put
  // back): later write txns must fail until the database is reopened.
  bool poison = false;
};

// Whether the txn of a meta being written is already committed.
enum class MetaTxn : uint8_t {
  kNew,        // a commit: until the meta is durable the txn may yet fail
  kCommitted,  // a checkpoint of a logged txn, durable in the log already
};

// A checkpoint commit: writes `pages`, then `meta` into its slot
// (slot_of_epoch(meta.log_epoch)), with fdatasync when
// `sync` (kOneSync: one batch and one sync behind both; kTwoSync: pages and
// their sync, then the meta and its own). For a kNew txn with `sync`, the
// meta's commit lock (PageFile::lock_commit) is held from before the meta is
// written until the commit is settled, so no other handle takes the meta
// while it may fail. A kCommitted txn takes no lock: its state is the
// logged one readers already take from the log, and a reader that takes
// the meta before its sync returned reads the same state.
//
// A failure after the meta may have reached the page cache (its write failed
// part way, or a sync failed) puts the slot's previous bytes back and, when
// `sync`, syncs them before returning, so that no reader, other handle or
// later open can take the failed meta; the error is returned and the handle
// is to be poisoned. A failure before the meta was written (a page write)
// leaves the slot untouched: Full then leaves the handle usable.
//
// Returns the first failure: Full (ENOSPC, EDQUOT, EFBIG), IOError (errno),
// Busy when the commit lock is held by another handle. When the slot cannot
// be put back the message says so (the lock of the failed meta then stays
// held for the life of `file`, so readers keep using the previous commit).
// REQUIRES: the caller is the file's one writer; `meta.page_size` is the
// file's page size.
// The meta page and the slot's old bytes live in two buffers of `buffers`.
CommitWriteResult write_commit(io::PageFile& file, PageBuffers& buffers,
                               std::span<const io::WriteSpan> pages, const Meta& meta,
                               CommitProtocol protocol, bool sync, MetaTxn txn = MetaTxn::kNew);

// A logged commit: writes `pages` into the page cache, then the log record of
// `meta` (flag kMetaFlagLogged) at `at` in the log area: `record` holds its
// operations after kLogOpsOffset bytes and is sealed in place
// (seal_log_record, stamped with `writer_nonce`), then made durable by
// itself (PageFile::write_durable) when `sync`; `*next` gets the position of
// the record after it (unchanged on a failure). With
// `sync` the meta's commit lock is held from before the record is written
// until it is settled, so no other handle takes the record while it may fail.
//
// A failure after bytes of the record may have reached the page cache puts
// the first block of the record's place back as it was (durably when `sync`)
// before the lock goes, so no reader or later open takes the failed record;
// the handle is then to be poisoned. A failed page write leaves the log
// untouched (Full leaves the handle usable).
// Returns Full, IOError or Busy as write_commit does.
// REQUIRES: the caller is the file's one writer; the record fits the log area.
CommitWriteResult write_logged_commit(io::PageFile& file, std::span<const io::WriteSpan> pages,
                                      const Meta& meta, const LogPosition& at,
                                      uint32_t writer_nonce, bool sync,
                                      std::vector<std::byte>& record, LogPosition* next);

}  // namespace ordo::engine
