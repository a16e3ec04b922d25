#include "meta_slots.h"

#include <cstring>
#include <fstream>

#include "ordo/assert.h"
#include "ordo/btree/page_format.h"

namespace ordo::engine {

MetaSlots MetaSlots::read(const io::PageFile& file, uint32_t version) {
  // Ours, not the file's.
  ORDO_ASSERT(version == kFormatVersion || version == kV2FormatVersion ||
              version == kV3FormatVersion);
  const auto decode = version == kV2FormatVersion   ? decode_v2_meta
                      : version == kV3FormatVersion ? decode_v3_meta
                                                    : decode_meta;
  MetaSlots s;
  const std::byte* p0 = file.data(0, btree::kMinPageSize);
  if (p0 == nullptr) {
    s.text[0] = s.text[1] = "beyond the end of the file";
    return s;
  }
  s.problem[0] = decode(p0, &s.meta[0], &s.text[0]);
  s.text[1] = "beyond the end of the file";
  for (uint32_t ps = btree::kMinPageSize; ps <= btree::kMaxPageSize; ps *= 2) {
    if (s.problem[0] == MetaProblem::kNone && ps != s.meta[0].page_size) continue;
    const std::byte* p1 = file.data(ps, btree::kMinPageSize);
    if (p1 == nullptr) continue;
    Meta m;
    std::string text;
    MetaProblem pr = decode(p1, &m, &text);
    if (pr == MetaProblem::kNone && m.page_size != ps) {
      pr = MetaProblem::kBadPageSize;
      text = "page size field disagrees with the meta's position";
    }
    if (pr == MetaProblem::kNone || s.problem[1] == MetaProblem::kNoMagic) {
      s.problem[1] = pr;
      s.meta[1] = m;
      s.text[1] = text;
    }
    if (pr == MetaProblem::kNone) break;
  }
  if (s.problem[0] == MetaProblem::kNone && s.problem[1] == MetaProblem::kNone &&
      s.meta[0].page_size != s.meta[1].page_size) {
    s.problem[1] = MetaProblem::kBadPageSize;
    s.text[1] = "page size differs from meta 0";
  }
  for (int i = 0; i < 2; ++i) {
    if (s.problem[i] != MetaProblem::kNone) continue;
    ORDO_ASSERT(btree::valid_page_size(s.meta[i].page_size));  // decode_meta checked it
    s.problem[i] = check_meta_in_file(s.meta[i], i, file.file_bytes(), &s.text[i], version);
  }
  return s;
}

std::string MetaSlots::fallback_note(int pick) const {
  ORDO_ASSERT(pick == 0 || pick == 1);
  const int other = 1 - pick;
  if (!is_inconsistent(problem[other]) || meta[other].txn_id <= meta[pick].txn_id) return "";
  return "meta " + std::to_string(other) + " (txn " + std::to_string(meta[other].txn_id) +
         ") is unusable: " + text[other] + "; using meta " + std::to_string(pick) + " (txn " +
         std::to_string(meta[pick].txn_id) + ")";
}

bool MetaSlots::newest_beyond_file() const {
  for (int i = 0; i < 2; ++i) {
    if (problem[i] != MetaProblem::kBeyondFile) continue;
    const int other = 1 - i;
    const bool other_whole =
        problem[other] == MetaProblem::kNone || is_inconsistent(problem[other]);
    if (!other_whole || meta[other].txn_id < meta[i].txn_id) return true;
  }
  return false;
}

int MetaSlots::newest_valid() const {
  int pick = -1;
  for (int i = 0; i < 2; ++i) {
    if (problem[i] != MetaProblem::kNone) continue;
    // Two checkpoints of one txn (a checkpoint after its logged commit): the
    // later epoch.
    if (pick < 0 || meta[i].txn_id > meta[pick].txn_id ||
        (meta[i].txn_id == meta[pick].txn_id && meta[i].log_epoch > meta[pick].log_epoch)) {
      pick = i;
    }
  }
  ORDO_ASSERT(pick < 0 || problem[pick] == MetaProblem::kNone);
  return pick;
}

Status MetaSlots::no_valid_meta(const std::string& path) const {
  ORDO_ASSERT(newest_valid() < 0);
  for (int i = 0; i < 2; ++i) {
    if (problem[i] == MetaProblem::kBadVersion) {
      return Status::version_mismatch(path + ": unsupported " + text[i]);
    }
  }
  if (problem[0] == MetaProblem::kNoMagic && problem[1] == MetaProblem::kNoMagic) {
    return Status::not_ordo_file("not an ordo database: " + path +
                                 " (no ordo magic in either meta page)");
  }
  return Status::corruption("both meta pages are invalid: meta 0: " + text[0] +
                            "; meta 1: " + text[1]);
}

const Meta* MetaSlots::older_valid(int pick) const {
  ORDO_ASSERT(pick == 0 || pick == 1);
  const int other = 1 - pick;
  const bool valid = problem[other] == MetaProblem::kNone &&
                     meta[other].txn_id < meta[pick].txn_id &&
                     meta[other].page_size == meta[pick].page_size;
  return valid ? &meta[other] : nullptr;
}

Status too_short_for_meta(const std::string& path, uint64_t file_bytes) {
  // Shorter than one page, so not mapped: look at the magic directly.
  char head[sizeof kMagic] = {};
  std::ifstream(path, std::ios::binary).read(head, sizeof head);
  if (file_bytes >= sizeof head && std::memcmp(head, kMagic, sizeof head) == 0) {
    return Status::corruption("file is truncated to " + std::to_string(file_bytes) +
                              " bytes, shorter than its meta pages");
  }
  return Status::not_ordo_file("not an ordo database: " + path + " (" + std::to_string(file_bytes) +
                               " bytes, no ordo header)");
}

}  // namespace ordo::engine
