// MetaSlots: both meta slots (pages 0 and 1) as decoded from the mapping,
// and the choice of the newest valid one.
#pragma once

#include <string>

#include "meta.h"
#include "ordo/io/page_file.h"

namespace ordo::engine {

struct MetaSlots {
  Meta meta[2];
  MetaProblem problem[2] = {MetaProblem::kNoMagic, MetaProblem::kNoMagic};
  std::string text[2];  // the problem in words

  // Decodes both slots from `file`'s mapping as it is now. Slot 1 sits one
  // page in: without a valid slot 0 every supported page size is tried. A
  // slot is valid only when its checksum matches and its fields are
  // consistent with themselves, with its slot and with file.file_bytes()
  // (see check_meta_in_file()). `version` kV2FormatVersion decodes version 2
  // metas instead (decode_v2_meta()), for the upgrade.
  static MetaSlots read(const io::PageFile& file, uint32_t version = kFormatVersion);

  // The valid slot with the higher txn id, or -1 when neither is valid.
  int newest_valid() const;

  // Why open uses slot `pick` although the other slot holds a newer txn
  // whose meta was written whole (matching checksum) but is inconsistent
  // (is_inconsistent()): "meta 1 (txn 8) is unusable: <problem>; using meta 0
  // (txn 7)". Empty when the other slot is valid, older, torn or not a meta.
  std::string fallback_note(int pick) const;

  // True when the slot with the higher txn id among those written whole
  // needs pages past the end of the file (kBeyondFile): a truncated file, or
  // a read-only handle that saw a writer's meta before its growth.
  bool newest_beyond_file() const;

  // Why a file in which neither slot is valid cannot be opened:
  // VersionMismatch for a slot of another format version, NotOrdoFile when
  // neither slot has the magic, else Corruption naming both problems.
  Status no_valid_meta(const std::string& path) const;

  // The meta of the slot other than `pick` when it is valid, of an older txn
  // and of the same page size (the commit before it); else nullptr.
  const Meta* older_valid(int pick) const;
};

// Why a file of `file_bytes` at `path`, too short to hold a meta page, is no
// database: Corruption when it starts with the magic (a truncated database),
// else NotOrdoFile.
Status too_short_for_meta(const std::string& path, uint64_t file_bytes);

}  // namespace ordo::engine
