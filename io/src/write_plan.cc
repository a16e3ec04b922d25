#include "write_plan.h"

#include <algorithm>
#include <limits>
#include <string>

#include "ordo/assert.h"

namespace ordo::io {
namespace {

constexpr uint64_t kMaxFileOffset = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

std::string describe(const WriteSpan& span) {
  return "span at offset " + std::to_string(span.offset_bytes) + " of " +
         std::to_string(span.size_bytes) + " bytes";
}

Status check_span(const WriteSpan& span) {
  if (span.data == nullptr) return Status::invalid_argument(describe(span) + " has no data");
  if (span.offset_bytes > kMaxFileOffset || span.size_bytes > kMaxFileOffset - span.offset_bytes) {
    return Status::invalid_argument(describe(span) + " ends past the largest file offset");
  }
  return Status::ok();
}

}  // namespace

Status WritePlan::build(std::span<const WriteSpan> spans, size_t max_iovecs_per_run) {
  ORDO_ASSERT(max_iovecs_per_run >= 1);
  sorted_.clear();
  iovecs_.clear();
  runs_.clear();
  for (const WriteSpan& span : spans) {
    if (span.size_bytes == 0) continue;
    ORDO_RETURN_IF_ERROR(check_span(span));
    sorted_.push_back(span);
  }
  std::sort(sorted_.begin(), sorted_.end(),
            [](const WriteSpan& a, const WriteSpan& b) { return a.offset_bytes < b.offset_bytes; });

  iovecs_.reserve(sorted_.size());
  uint64_t previous_end = 0;
  for (const WriteSpan& span : sorted_) {
    const bool first = iovecs_.empty();
    if (!first && span.offset_bytes < previous_end) {
      const Status overlap =
          Status::invalid_argument(describe(span) + " overlaps the span before it (which ends at " +
                                   std::to_string(previous_end) + ")");
      iovecs_.clear();
      runs_.clear();
      return overlap;
    }
    const bool extends_run =
        !first && span.offset_bytes == previous_end && runs_.back().iov_count < max_iovecs_per_run;
    if (!extends_run) {
      runs_.push_back(WriteRun{span.offset_bytes, iovecs_.size(), 0, 0});
    }
    WriteRun& run = runs_.back();
    iovecs_.push_back(iovec{const_cast<void*>(span.data), span.size_bytes});
    ++run.iov_count;
    run.size_bytes += span.size_bytes;
    previous_end = span.offset_bytes + span.size_bytes;
  }
  return Status::ok();
}

void advance_run(WriteRun& run, std::span<iovec> iovecs, uint64_t done_bytes) {
  ORDO_ASSERT(done_bytes <= run.size_bytes);
  run.offset_bytes += done_bytes;
  run.size_bytes -= done_bytes;
  while (done_bytes > 0) {
    iovec& first = iovecs[run.first_iov];
    if (done_bytes < first.iov_len) {
      first.iov_base = static_cast<char*>(first.iov_base) + done_bytes;
      first.iov_len -= done_bytes;
      return;
    }
    done_bytes -= first.iov_len;
    ++run.first_iov;
    --run.iov_count;
  }
}

}  // namespace ordo::io
