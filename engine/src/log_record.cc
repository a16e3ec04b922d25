#include "log_record.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "ordo/assert.h"
#include "ordo/btree/endian.h"

namespace ordo::engine {

using btree::load_u32;
using btree::load_u64;
using btree::store_u32;
using btree::store_u64;

uint64_t log_record_bytes(uint64_t ops_bytes) {
  const uint64_t bytes = kLogHeaderBytes + kMetaBytes + ops_bytes;
  ORDO_ASSERT(bytes > ops_bytes);  // ops are bounded by the log area, far from overflow
  return (bytes + kLogBlockBytes - 1) / kLogBlockBytes * kLogBlockBytes;
}

LogPosition seal_log_record(const Meta& meta, const LogPosition& at, uint32_t writer_nonce,
                            std::vector<std::byte>& record) {
  ORDO_ASSERT(at.offset_bytes % kLogBlockBytes == 0 && at.txn_id == meta.txn_id);
  ORDO_ASSERT((meta.flags & kMetaFlagLogged) != 0 && writer_nonce != 0);
  ORDO_ASSERT(record.size() >= kLogOpsOffset);  // room for the header and meta in front
  const uint64_t body_bytes = record.size() - kLogHeaderBytes;
  const uint64_t total = log_record_bytes(record.size() - kLogOpsOffset);
  record.resize(total);  // the new bytes (the padding) are zeros
  std::byte* out = record.data();
  std::byte* body = out + kLogHeaderBytes;
  // encode_meta zeroes a whole page: encode into a page, keep kMetaBytes.
  std::byte page[btree::kMinPageSize];
  Meta m = meta;
  const uint32_t page_size = m.page_size;
  m.page_size = btree::kMinPageSize;
  encode_meta(m, page);
  store_u32(page + kMetaOffPageSize, page_size);
  store_u64(page + kMetaChecksumOffset, XXH3_64bits(page, kMetaChecksumOffset));
  std::memcpy(body, page, kMetaBytes);
  std::memset(out, 0, kLogHeaderBytes);
  std::memcpy(out + kLogOffMagic, kLogMagic, sizeof kLogMagic);
  store_u64(out + kLogOffEpoch, meta.log_epoch);
  store_u64(out + kLogOffTxnId, meta.txn_id);
  store_u64(out + kLogOffOffset, at.offset_bytes);
  store_u32(out + kLogOffBodyBytes, static_cast<uint32_t>(body_bytes));
  store_u32(out + kLogOffWriterNonce, writer_nonce);
  store_u64(out + kLogOffBodyChecksum, XXH3_64bits(body, body_bytes));
  store_u64(out + kLogOffLink, at.link);
  store_u64(out + kLogOffHeaderChecksum, XXH3_64bits(out, kLogOffHeaderChecksum));
  return LogPosition{at.offset_bytes + total, at.txn_id + 1, XXH3_64bits(out, kLogHeaderBytes),
                     true};
}

namespace {

// The record at `at` of the log area when it is the one expected: epoch of
// `checkpoint`, txn, offset and link of `at`, whole and checksummed, its meta
// valid and of this file.
bool read_record(const io::PageFile& file, const Meta& checkpoint, const LogPosition& at,
                 uint32_t version, LogRecord* out) {
  const uint64_t area = log_area_bytes(checkpoint);
  const uint64_t offset = at.offset_bytes;
  if (offset + kLogBlockBytes > area) return false;
  const uint64_t base = checkpoint.log_first_page * checkpoint.page_size;
  const std::byte* h = file.data(base + offset, kLogBlockBytes);
  if (h == nullptr) return false;
  if (std::memcmp(h + kLogOffMagic, kLogMagic, sizeof kLogMagic) != 0) return false;
  if (load_u64(h + kLogOffHeaderChecksum) != XXH3_64bits(h, kLogOffHeaderChecksum)) return false;
  if (load_u64(h + kLogOffEpoch) != checkpoint.log_epoch ||
      load_u64(h + kLogOffTxnId) != at.txn_id || load_u64(h + kLogOffOffset) != offset) {
    return false;
  }
  // The chain: a record with a writer nonce names the header before it; one
  // without (written before records carried them) only follows another such.
  const bool has_nonce = load_u32(h + kLogOffWriterNonce) != 0;
  if (has_nonce ? load_u64(h + kLogOffLink) != at.link
                : at.after_nonce || load_u64(h + kLogOffLink) != 0) {
    return false;
  }
  const uint64_t body_bytes = load_u32(h + kLogOffBodyBytes);
  if (body_bytes < kMetaBytes) return false;
  const uint64_t total = log_record_bytes(body_bytes - kMetaBytes);
  if (total > area - offset) return false;
  const std::byte* rec = file.data(base + offset, total);
  if (rec == nullptr) return false;
  const std::byte* body = rec + kLogHeaderBytes;
  if (load_u64(h + kLogOffBodyChecksum) != XXH3_64bits(body, body_bytes)) return false;
  std::string text;
  Meta m;
  const MetaProblem problem =
      version == kV3FormatVersion ? decode_v3_meta(body, &m, &text) : decode_meta(body, &m, &text);
  if (problem != MetaProblem::kNone) return false;
  if (m.txn_id != at.txn_id || (m.flags & kMetaFlagLogged) == 0 ||
      m.page_size != checkpoint.page_size || m.log_epoch != checkpoint.log_epoch ||
      m.log_first_page != checkpoint.log_first_page || m.log_pages != checkpoint.log_pages) {
    return false;
  }
  out->meta = m;
  out->offset_bytes = offset;
  out->bytes = total;
  out->ops = ByteView(body + kMetaBytes, body_bytes - kMetaBytes);
  out->next =
      LogPosition{offset + total, at.txn_id + 1, XXH3_64bits(h, kLogHeaderBytes), has_nonce};
  return true;
}

}  // namespace

LogScan scan_log(const io::PageFile& file, const Meta& checkpoint, const LogPosition& from,
                 const std::function<bool(const LogRecord&)>& visit, uint32_t version) {
  ORDO_ASSERT(version == kFormatVersion || version == kV3FormatVersion);  // ours, not the file's
  // Records start on block boundaries; txn ids after a checkpoint start at 1 or more.
  ORDO_ASSERT(from.offset_bytes % kLogBlockBytes == 0 && from.txn_id > checkpoint.txn_id);
  LogScan scan;
  scan.next = from;
  scan.last_txn = from.txn_id - 1;
  if (checkpoint.log_pages == 0) return scan;
  LogRecord rec;
  while (read_record(file, checkpoint, scan.next, version, &rec)) {
    // read_record() took only the expected txn, whole blocks.
    ORDO_ASSERT(rec.meta.txn_id == scan.next.txn_id && rec.bytes % kLogBlockBytes == 0);
    ORDO_ASSERT(rec.next.offset_bytes == scan.next.offset_bytes + rec.bytes);
    scan.records++;
    scan.next = rec.next;
    scan.last_txn = rec.meta.txn_id;
    if (!visit(rec)) break;
  }
  return scan;
}

LogScan scan_next_epoch(const io::PageFile& file, const Meta& checkpoint) {
  if (checkpoint.log_pages == 0) return LogScan{};
  const std::byte* h = file.data(checkpoint.log_first_page * checkpoint.page_size, kLogHeaderBytes);
  if (h == nullptr || std::memcmp(h + kLogOffMagic, kLogMagic, sizeof kLogMagic) != 0 ||
      load_u64(h + kLogOffHeaderChecksum) != XXH3_64bits(h, kLogOffHeaderChecksum) ||
      load_u64(h + kLogOffEpoch) != checkpoint.log_epoch + 1) {
    return LogScan{};
  }
  // The newer checkpoint's meta is gone; its records name its txn.
  const uint64_t first_txn = load_u64(h + kLogOffTxnId);
  if (first_txn <= checkpoint.txn_id) return LogScan{};
  Meta newer = checkpoint;
  newer.log_epoch++;
  newer.txn_id = first_txn - 1;
  return scan_log(file, newer, LogPosition::after(newer), [](const LogRecord&) { return true; });
}

Status prewrite_log(io::PageFile& file, const Meta& meta) {
  constexpr uint64_t kPieceBytes = 1 << 20;
  const uint64_t total = log_area_bytes(meta);
  ORDO_ASSERT(meta.log_pages == 0 || meta.log_first_page >= kFirstDataPage);  // not a meta slot
  std::vector<std::byte> zeros(std::min(total, kPieceBytes));
  for (uint64_t done = 0; done < total;) {
    const uint64_t n = std::min<uint64_t>(zeros.size(), total - done);
    const io::WriteSpan span{meta.log_first_page * meta.page_size + done, zeros.data(), n};
    ORDO_RETURN_IF_ERROR(file.write(std::span<const io::WriteSpan>(&span, 1), false));
    done += n;
  }
  return Status::ok();
}

}  // namespace ordo::engine
