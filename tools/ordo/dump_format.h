// The text dump format of LMDB's mdb_dump and mdb_load (VERSION=3), which
// `ordo dump` writes and `ordo load` reads. One block per tree:
//
//   VERSION=3
//   format=bytevalue          (or print: see byte_format.h)
//   database=NAME             (named trees only; absent for the default tree)
//   type=btree
//   mapsize=BYTES             (a map size LMDB can load the block into)
//   HEADER=END
//    6b6579                   (a key: a space, then the bytes)
//    76616c7565               (its value)
//   DATA=END
//
// A tree name that holds control characters is written in print form after
// a line `ordo_name=print` (mdb_load warns about the unknown keyword and
// loads the block under the escaped name). LMDB has no empty keys: mdb_load
// fails on one (MDB_BAD_VALSIZE). DumpWriter::lmdb_warnings() names both.
//
// Reading is strict: every error names its line, and nothing is skipped.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "ordo/byte_view.h"
#include "ordo/status.h"

namespace ordo::tool {

struct DumpHeader {
  int version = 3;
  bool print = false;                   // format=print
  std::optional<std::string> database;  // database=NAME (decoded)
  std::optional<uint64_t> mapsize;
  uint64_t first_line = 0;  // line number of its first line
  // Header keywords that were ignored, as "line N: keyword" (warnings).
  std::vector<std::string> ignored;
};

class DumpWriter {
 public:
  // Writes to `out` (not owned). `print`: format=print, else bytevalue.
  DumpWriter(std::FILE* out, bool print) : out_(out), print_(print) {}
  // Starts a block. `database`: the tree's name, or nullopt for the default
  // tree. `mapsize`: written when non-zero.
  Status begin(const std::optional<std::string>& database, uint64_t mapsize);
  Status record(ByteView key, ByteView value);
  Status end();

  // What the dump written so far holds that LMDB's mdb_load cannot load as
  // it is, one message per tree and kind: an empty key; a tree name with
  // control characters.
  const std::vector<std::string>& lmdb_warnings() const { return lmdb_warnings_; }

 private:
  Status put(const std::string& text);
  std::FILE* out_;
  bool print_;
  std::string line_;
  std::string block_label_;      // tree_label of the current block
  bool empty_key_seen_ = false;  // in the current block
  std::vector<std::string> lmdb_warnings_;
};

class DumpReader {
 public:
  // Reads from `in` (not owned).
  explicit DumpReader(std::FILE* in) : in_(in) {}
  ~DumpReader();
  DumpReader(const DumpReader&) = delete;
  DumpReader& operator=(const DumpReader&) = delete;

  // Reads the next block's header, through HEADER=END. false at the end of
  // the input (only between blocks). InvalidArgument "line N: ..." for a
  // malformed header: no VERSION line first, a VERSION above 3, an unknown
  // format or type, LMDB duplicate or integer-key flags (ordo trees hold
  // one value per key, compared as bytes), a data line or the end of input
  // before HEADER=END.
  Result<bool> next_block(DumpHeader* header);

  // Reads the next record of the block into `key` and `value`. false at
  // DATA=END. InvalidArgument "line N: ..." for a bad line (odd-length or
  // non-hex bytevalue, a bad print escape, a line that does not start with
  // a space, a key with no value line, the end of input before DATA=END).
  Result<bool> next_record(std::string* key, std::string* value);

  // Lines read so far; the line of the last key read.
  uint64_t line() const { return line_no_; }
  uint64_t key_line() const { return key_line_; }
  // Bytes read so far (for progress).
  uint64_t bytes_read() const { return bytes_read_; }

 private:
  // Reads one line without its '\n' into line_; false at the end of input.
  Result<bool> read_line();
  Status error(const std::string& what) const;
  Result<std::string> decode(std::string_view text) const;

  std::FILE* in_;
  char* buf_ = nullptr;
  size_t cap_ = 0;
  std::string_view line_;
  uint64_t line_no_ = 0;
  uint64_t key_line_ = 0;
  uint64_t bytes_read_ = 0;
  bool print_ = false;
};

}  // namespace ordo::tool
