#include "ordo/io/testing/fault_log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "ordo/base/errno_status.h"

namespace ordo::io::testing {
namespace {

// Copies `src` to byte `offset` of `image`, growing it (zeros) to cover the end.
void put_bytes(std::vector<std::byte>& image, uint64_t offset, const std::byte* src,
               uint64_t size) {
  if (size == 0) return;
  if (image.size() < offset + size) image.resize(offset + size);
  std::memcpy(image.data() + offset, src, size);
}

void apply_write(std::vector<std::byte>& image, const FaultOp& op) {
  put_bytes(image, op.offset_bytes, op.data.data(), op.data.size());
}

// Applies only the sectors of `op` that `landed` marks.
void apply_torn_write(std::vector<std::byte>& image, const FaultOp& op,
                      const std::vector<bool>& landed) {
  const uint64_t first_sector = op.offset_bytes / kSectorBytes;
  const uint64_t end = op.end_bytes();
  for (size_t k = 0; k < landed.size(); ++k) {
    if (!landed[k]) continue;
    const uint64_t sector_start = (first_sector + k) * kSectorBytes;
    const uint64_t from = std::max(op.offset_bytes, sector_start);
    const uint64_t to = std::min(end, sector_start + kSectorBytes);
    if (from >= to) break;  // past the write
    put_bytes(image, from, op.data.data() + (from - op.offset_bytes), to - from);
  }
}

bool all_equal(const std::vector<bool>& mask, bool value) {
  return std::all_of(mask.begin(), mask.end(), [value](bool b) { return b == value; });
}

}  // namespace

Status FaultLog::start(int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  ops_.clear();
  initial_.clear();
  performed_writes_ = performed_syncs_ = failed_ = 0;
  cache_sync_.reset();
  cache_image_.clear();

  struct stat st;
  if (::fstat(fd, &st) != 0) return base::os_error("FaultLog::start: fstat", errno);
  std::vector<std::byte> bytes(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n =
        ::pread(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return base::os_error("FaultLog::start: pread at " + std::to_string(done), errno);
    if (n == 0) break;  // shrank meanwhile: keep what is there
    done += static_cast<size_t>(n);
  }
  bytes.resize(done);
  initial_ = std::move(bytes);
  return Status::ok();
}

std::vector<std::byte> FaultLog::initial_image() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return initial_;
}

size_t FaultLog::op_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ops_.size();
}

const FaultOp& FaultLog::op(size_t i) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ops_.at(i);
}

size_t FaultLog::write_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return performed_writes_;
}

size_t FaultLog::sync_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return performed_syncs_;
}

size_t FaultLog::failed_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failed_;
}

size_t FaultLog::pending_write_count(size_t after_ops) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return pending_writes(std::min(after_ops, ops_.size())).size();
}

std::vector<size_t> FaultLog::pending_write_ops(size_t after_ops) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return pending_writes(std::min(after_ops, ops_.size()));
}

std::optional<size_t> FaultLog::last_sync_before(size_t after_ops) const {
  for (size_t i = after_ops; i-- > 0;) {
    if (ops_[i].kind == FaultOp::Kind::kSync && !ops_[i].failed()) return i;
  }
  return std::nullopt;
}

std::vector<size_t> FaultLog::range_synced_writes(size_t after_ops) const {
  const std::optional<size_t> sync = last_sync_before(after_ops);
  std::vector<size_t> synced;
  for (size_t i = sync ? *sync + 1 : 0; i < after_ops; ++i) {
    const FaultOp& op = ops_[i];
    if (op.kind == FaultOp::Kind::kSyncRange && !op.failed() && (!sync || op.synced_op > *sync)) {
      synced.push_back(op.synced_op);
    }
  }
  return synced;
}

std::vector<size_t> FaultLog::pending_writes(size_t after_ops) const {
  const std::optional<size_t> sync = last_sync_before(after_ops);
  const std::vector<size_t> synced = range_synced_writes(after_ops);
  std::vector<size_t> pending;
  for (size_t i = sync ? *sync + 1 : 0; i < after_ops; ++i) {
    if (ops_[i].kind != FaultOp::Kind::kWrite || ops_[i].failed()) continue;
    if (std::find(synced.begin(), synced.end(), i) != synced.end()) continue;
    pending.push_back(i);
  }
  return pending;
}

std::vector<std::byte> FaultLog::durable_image(size_t after_ops) const {
  std::vector<std::byte> image = synced_image(after_ops);
  // Writes made durable by their own range sync since then, in issue order.
  for (size_t i : range_synced_writes(after_ops)) apply_write(image, ops_[i]);
  return image;
}

std::vector<std::byte> FaultLog::synced_image(size_t after_ops) const {
  const std::optional<size_t> sync = last_sync_before(after_ops);
  if (!sync) return initial_;
  size_t from = 0;
  if (cache_sync_ && *cache_sync_ <= *sync) {
    from = *cache_sync_ + 1;
  } else {
    cache_image_ = initial_;
  }
  for (size_t i = from; i < *sync; ++i) {
    if (ops_[i].kind == FaultOp::Kind::kWrite && !ops_[i].failed()) {
      apply_write(cache_image_, ops_[i]);
    }
  }
  cache_image_.resize(ops_[*sync].file_bytes);
  cache_sync_ = *sync;
  return cache_image_;
}

Result<std::vector<std::byte>> FaultLog::image(const CrashPoint& point) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (point.after_ops > ops_.size()) {
    return Status::invalid_argument("FaultLog::image: after_ops " +
                                    std::to_string(point.after_ops) + " > op count " +
                                    std::to_string(ops_.size()));
  }
  const std::vector<size_t> pending = pending_writes(point.after_ops);
  const CrashVariant& v = point.variant;
  const bool in_range = v.kind == CrashVariant::Kind::kPrefix ? v.index <= pending.size()
                        : v.kind == CrashVariant::Kind::kSubset
                            ? v.writes_landed.size() <= pending.size() &&
                                  (v.index >= v.writes_landed.size() ||
                                   (v.torn_from_bytes <= v.torn_to_bytes &&
                                    v.torn_to_bytes <= ops_[pending[v.index]].data.size()))
                            : v.index < pending.size();
  if (!in_range) {
    return Status::invalid_argument("FaultLog::image: " + point.to_string() + " but only " +
                                    std::to_string(pending.size()) + " writes are pending");
  }
  std::vector<std::byte> image = durable_image(point.after_ops);
  switch (v.kind) {
    case CrashVariant::Kind::kPrefix:
      for (size_t i = 0; i < v.index; ++i) apply_write(image, ops_[pending[i]]);
      break;
    case CrashVariant::Kind::kDropOne:
      for (size_t i = 0; i < pending.size(); ++i) {
        if (i != v.index) apply_write(image, ops_[pending[i]]);
      }
      break;
    case CrashVariant::Kind::kTorn:
      for (size_t i = 0; i < v.index; ++i) apply_write(image, ops_[pending[i]]);
      apply_torn_write(image, ops_[pending[v.index]], v.sectors_landed);
      break;
    case CrashVariant::Kind::kSubset:
      for (size_t i = 0; i < v.writes_landed.size(); ++i) {
        const FaultOp& op = ops_[pending[i]];
        if (i == v.index) {
          put_bytes(image, op.offset_bytes + v.torn_from_bytes, op.data.data() + v.torn_from_bytes,
                    v.torn_to_bytes - v.torn_from_bytes);
        } else if (v.writes_landed[i]) {
          apply_write(image, op);
        }
      }
      break;
  }
  return image;
}

std::vector<CrashPoint> FaultLog::crash_points(size_t from_op) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<CrashPoint> points;
  if (from_op > ops_.size()) return points;
  std::vector<size_t> pending = pending_writes(from_op);
  for (size_t k = from_op; k <= ops_.size(); ++k) {
    bool only_new_prefix = false;
    if (k > from_op) {
      const FaultOp& last = ops_[k - 1];
      if (last.failed()) continue;  // changed nothing: same states as after k - 1
      if (last.kind == FaultOp::Kind::kSync) {
        pending.clear();
      } else if (last.kind == FaultOp::Kind::kSyncRange) {
        // Its write is durable now: every variant of the others is a new state.
        pending.erase(std::remove(pending.begin(), pending.end(), last.synced_op), pending.end());
      } else {
        pending.push_back(k - 1);
        only_new_prefix = true;
      }
    }
    const size_t n = pending.size();
    for (size_t j = only_new_prefix ? n : 0; j <= n; ++j) {
      points.push_back({k, CrashVariant::prefix(j)});
    }
    for (size_t i = 0; i + 1 < n; ++i) points.push_back({k, CrashVariant::drop_one(i)});
    if (n == 0) continue;
    const FaultOp& torn = ops_[pending.back()];
    const size_t sectors = sectors_touched(torn.offset_bytes, torn.data.size());
    const std::vector<bool> masks[2] = {first_half_sectors(sectors), alternate_sectors(sectors)};
    for (int m = 0; m < 2; ++m) {
      if (all_equal(masks[m], true) || all_equal(masks[m], false)) continue;
      if (m == 1 && masks[1] == masks[0]) continue;
      points.push_back({k, CrashVariant::torn(n - 1, masks[m])});
    }
  }
  return points;
}

void FaultLog::fail_write_at(size_t nth_write, int err) {
  std::lock_guard<std::mutex> lock(mutex_);
  write_failures_[writes_admitted_ + nth_write] = err;
}

void FaultLog::fail_sync_at(size_t nth_sync, int err) {
  std::lock_guard<std::mutex> lock(mutex_);
  sync_failures_[syncs_admitted_ + nth_sync] = err;
}

void FaultLog::fail_writes_from(size_t nth_write, int err) {
  std::lock_guard<std::mutex> lock(mutex_);
  writes_fail_from_.emplace(writes_admitted_ + nth_write, err);
}

void FaultLog::fail_syncs_from(size_t nth_sync, int err) {
  std::lock_guard<std::mutex> lock(mutex_);
  syncs_fail_from_.emplace(syncs_admitted_ + nth_sync, err);
}

void FaultLog::enospc_after_bytes(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  space_bytes_ = bytes;
  space_used_bytes_ = 0;
}

void FaultLog::clear_failures() {
  std::lock_guard<std::mutex> lock(mutex_);
  write_failures_.clear();
  sync_failures_.clear();
  writes_fail_from_.reset();
  syncs_fail_from_.reset();
  space_bytes_.reset();
  space_used_bytes_ = 0;
}

int FaultLog::admit_write(uint64_t size_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t number = writes_admitted_++;
  if (auto it = write_failures_.find(number); it != write_failures_.end()) {
    const int err = it->second;
    write_failures_.erase(it);
    return err;
  }
  if (writes_fail_from_ && number >= writes_fail_from_->first) return writes_fail_from_->second;
  if (space_bytes_) {
    if (space_used_bytes_ + size_bytes > *space_bytes_) return ENOSPC;
    space_used_bytes_ += size_bytes;
  }
  return 0;
}

int FaultLog::admit_sync() {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t number = syncs_admitted_++;
  if (auto it = sync_failures_.find(number); it != sync_failures_.end()) {
    const int err = it->second;
    sync_failures_.erase(it);
    return err;
  }
  if (syncs_fail_from_ && number >= syncs_fail_from_->first) return syncs_fail_from_->second;
  return 0;
}

void FaultLog::record(FaultOp op) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (op.kind == FaultOp::Kind::kSyncRange) op.synced_op = ops_.size() - 1;
  if (op.failed()) {
    ++failed_;
  } else if (op.kind == FaultOp::Kind::kWrite) {
    ++performed_writes_;
  } else {
    ++performed_syncs_;
  }
  ops_.push_back(std::move(op));
}

}  // namespace ordo::io::testing
