// The subcommands of the `ordo` tool. Each one prints its report on stdout
// (text, or one JSON object with --json), its errors on stderr, and returns
// the process exit code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "byte_format.h"
#include "ordo/options.h"

namespace ordo::tool {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;  // failed: cannot open, read or write, bad input, problems
inline constexpr int kExitUsage = 2;  // bad command line
// Done, with a warning: the command's change took effect and is durable, a
// step after it failed (load: the checkpoint after the commit).
inline constexpr int kExitDoneWithWarning = 3;

// The exit codes as --help lists them.
inline constexpr const char* kExitCodesHelp =
    "Exit codes:\n"
    "  0  success (check: the file is clean)\n"
    "  1  failure: the file cannot be opened or read, a key or tree is not found, bad input\n"
    "     (load: nothing was loaded), check found problems, an output cannot be written\n"
    "     (stdout closed: `| head`); the reason is on stderr\n"
    "  2  bad command line (unknown command or option, missing argument)\n"
    "  3  done, with a warning on stderr: the change took effect and is durable, a step\n"
    "     after it failed (load: every record was committed; the checkpoint after the\n"
    "     commit failed, so the records stay in the file's log until a writable open)";

// `ordo info FILE`: page size, format, file length, both meta pages, ID
// high-water marks, user trees and entries.
int run_info(const std::string& path, bool json);

// `ordo stat FILE`: shape and fill, overflow pages and key/value bytes of
// the default tree and every named tree; the internal trees apart.
int run_stat(const std::string& path, bool json);

// `ordo check FILE`: full integrity walk; exit 0 when clean, 1 with the list
// of problems (page number and what) otherwise.
int run_check(const std::string& path, bool json);

// `ordo trees FILE`: user trees with entry counts from the catalog (no walk).
int run_trees(const std::string& path, bool json);

// The tree a command reads or writes: the default tree unless --tree names
// one (given in print form: "\xx" escapes for any byte).
struct TreeOption {
  std::optional<std::string> name;  // as typed
};

struct GetOptions {
  std::string path;
  TreeOption tree;
  std::string key;  // as typed
  ByteFormat key_format = ByteFormat::kPrint;
  std::string value_format = "print";  // print, hex, uuid or raw
  bool json = false;
};
int run_get(const GetOptions& options);

struct ScanOptions {
  std::string path;
  TreeOption tree;
  std::optional<std::string> from, to, prefix;  // as typed, in key_format
  std::optional<uint64_t> limit;
  ByteFormat key_format = ByteFormat::kPrint;
  ByteFormat value_format = ByteFormat::kPrint;
  bool values = false;  // scan: keys and values; keys: keys only
  bool json = false;
};
int run_scan(const ScanOptions& options);

struct DumpOptions {
  std::string path;
  TreeOption tree;
  bool all = false;
  std::optional<std::string> output;  // -o; stdout when absent
  bool print = false;
  bool json = false;
};
int run_dump(const DumpOptions& options);

struct LoadOptions {
  std::string path;
  TreeOption tree;
  std::optional<std::string> input;  // -i; stdin when absent
  bool append = false;
  uint64_t batch = 0;                       // 0: one txn
  IoBackend io_backend = IoBackend::kAuto;  // --io
  bool json = false;
};
int run_load(const LoadOptions& options);

struct CopyCommandOptions {
  std::string source;
  std::string target;  // "-": stdout
  bool compact = false;
  bool force = false;
  bool json = false;
  std::optional<uint64_t> at;  // --at: copy this kept snapshot, not the last commit
};
int run_copy(const CopyCommandOptions& options);

int run_pages(const std::string& path, bool json);

struct PageOptions {
  std::string path;
  uint64_t page = 0;
  bool hex = false;
  ByteFormat key_format = ByteFormat::kPrint;
  bool json = false;
};
int run_page(const PageOptions& options);

// `ordo upgrade FILE`: a version 2 file converted to version 3 in place.
struct UpgradeOptions {
  std::string path;
  uint64_t log_bytes = 0;  // the log area; 0: the default (4 MiB)
  bool json = false;
};
int run_upgrade(const UpgradeOptions& options);

int run_free(const std::string& path, bool json);
int run_readers(const std::string& path, bool json);

}  // namespace ordo::tool

namespace ordo::tool {

// `ordo diff FILE --since TXN [--tree T]`: the changes to one tree between
// kept snapshot TXN and the last commit, in key order (ReadTxn::changes).
struct DiffOptions {
  std::string path;
  TreeOption tree;
  uint64_t since = 0;
  ByteFormat key_format = ByteFormat::kPrint;
  ByteFormat value_format = ByteFormat::kPrint;
  bool json = false;
};
int run_diff(const DiffOptions& options);

// `ordo snapshot keep|release|list FILE [TXN]`: keep the last commit,
// release kept snapshot TXN, or list the kept ones.
struct SnapshotOptions {
  std::string action;  // keep, release or list
  std::string path;
  uint64_t txn = 0;  // release
  bool json = false;
};
int run_snapshot(const SnapshotOptions& options);

// `ordo copy SRC DELTA --since TXN`: a delta file of the changes since kept
// snapshot TXN (ReadTxn::copy_delta_to) up to the last commit, or up to kept
// snapshot --at. --compact and --force do not apply.
int run_copy_delta(const CopyCommandOptions& options, uint64_t since);

// `ordo restore FILE DELTA`: applies a delta file (Database::apply_delta).
struct RestoreOptions {
  std::string path;
  std::string delta;
  bool json = false;
};
int run_restore(const RestoreOptions& options);

}  // namespace ordo::tool
