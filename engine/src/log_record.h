// Log records: one per logged commit, appended to the log area of the file
// (docs/FORMAT.md, "The log"). A record is a 64-byte header, then its body:
// the txn's meta (kMetaBytes, flag kMetaFlagLogged) and its operations
// (txn_log.h), padded with zeros to whole log blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "meta.h"
#include "ordo/byte_view.h"
#include "ordo/io/page_file.h"
#include "ordo/status.h"

namespace ordo::engine {

// Records start on log-block boundaries of the log area and fill whole blocks.
inline constexpr uint32_t kLogBlockBytes = 4096;
inline constexpr uint32_t kLogHeaderBytes = 64;
// "ORDOLOG1" as bytes.
inline constexpr uint8_t kLogMagic[8] = {'O', 'R', 'D', 'O', 'L', 'O', 'G', '1'};

// Header field offsets (bytes); docs/FORMAT.md has the same table.
inline constexpr uint32_t kLogOffMagic = 0;
inline constexpr uint32_t kLogOffEpoch = 8;
inline constexpr uint32_t kLogOffTxnId = 16;
inline constexpr uint32_t kLogOffOffset = 24;
inline constexpr uint32_t kLogOffBodyBytes = 32;
inline constexpr uint32_t kLogOffWriterNonce = 36;
inline constexpr uint32_t kLogOffBodyChecksum = 40;
inline constexpr uint32_t kLogOffLink = 48;
inline constexpr uint32_t kLogOffHeaderChecksum = 56;

// Bytes a record with `ops_bytes` of operations takes in the log area.
uint64_t log_record_bytes(uint64_t ops_bytes);

// Where a record goes in the log of one checkpoint, and what ties it to the
// record before it (docs/FORMAT.md, "Which records count"): a scan starts
// from one, and a writer keeps the one its next record takes.
struct LogPosition {
  uint64_t offset_bytes = 0;  // in the log area, a multiple of kLogBlockBytes
  uint64_t txn_id = 0;        // the record's txn id: one past the record before it
  // XXH3-64 of the header of the record before it; 0 for the first record
  // after the checkpoint.
  uint64_t link = 0;
  // The record before it carries a writer nonce (was written by this
  // format's code): a record without one may not follow it.
  bool after_nonce = false;

  // The first record after checkpoint `checkpoint`.
  static LogPosition after(const Meta& checkpoint) {
    return LogPosition{0, checkpoint.txn_id + 1, 0, false};
  }
};

// Where a record's operations start: after its header and its meta.
inline constexpr uint32_t kLogOpsOffset = kLogHeaderBytes + kMetaBytes;

// Makes `record` the record of `meta` (its txn id and epoch), to be placed at
// `at` (at.txn_id == meta.txn_id): `record` holds kLogOpsOffset bytes of any
// value, then the operations, which stay where they are (a txn's operations
// are written there as it runs, TxnLog); the header and meta are written in
// front and zeros after, to log_record_bytes(operations) bytes.
// `writer_nonce` (not 0) names the handle writing it, so that a record of an
// earlier life of the file never equals one written after it at the same
// place. Returns the position of the record after it.
LogPosition seal_log_record(const Meta& meta, const LogPosition& at, uint32_t writer_nonce,
                            std::vector<std::byte>& record);

// A record found in the log: the meta of its txn and its operations (a view
// into the file's mapping, valid while the file is open).
struct LogRecord {
  Meta meta;
  uint64_t offset_bytes = 0;  // in the log area
  uint64_t bytes = 0;         // log_record_bytes of it
  ByteView ops;
  LogPosition next;  // where the record after it goes
};

// The records written after checkpoint `checkpoint` (a meta slot's meta):
// epoch checkpoint.log_epoch, from position `from` (LogPosition::after(checkpoint)
// for all of them), each the next txn at the next offset, linked to the one
// before it, up to the first block that does not hold the expected record (a
// torn or never-written record, one of another epoch or of an earlier life of
// the log, the end of the log area). `visit` sees each in order and may stop
// the scan by returning false. Never fails on the log's contents: a damaged
// record ends the log.
struct LogScan {
  uint64_t records = 0;   // valid records seen
  LogPosition next;       // where the record after the last one seen goes
  uint64_t last_txn = 0;  // txn id of the last one seen, else from.txn_id - 1
};
// `version` kV3FormatVersion reads the records of a version 3 file (the
// upgrade).
LogScan scan_log(const io::PageFile& file, const Meta& checkpoint, const LogPosition& from,
                 const std::function<bool(const LogRecord&)>& visit,
                 uint32_t version = kFormatVersion);

// The records of the log epoch after `checkpoint`'s, when the log area
// starts with one: the log of a newer checkpoint than `checkpoint` (whose
// meta slot an open passed over). None (records 0) otherwise.
LogScan scan_next_epoch(const io::PageFile& file, const Meta& checkpoint);

// Writes zeros over the log area of `meta` in `file`, through the page cache
// (not synced: the caller syncs it with the meta that names the area), so
// records are never written into extents the file system has yet to convert
// from unwritten. IOError or Full as PageFile::write.
Status prewrite_log(io::PageFile& file, const Meta& meta);

}  // namespace ordo::engine
