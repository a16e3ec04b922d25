// `ordo load FILE [--tree T] [-i IN] [--append] [--batch N]`: records in
// the text format of LMDB's mdb_dump (dump_format.h) into the database at
// FILE (created when missing). Each block goes into the tree its database=
// line names (the default tree when it names none), or with --tree into T.
// All of it is one write txn, committed at the end: on any error (bad
// input, a key over the limit, no space, a failed commit or sync) nothing is
// loaded, and a file the load created is removed. --batch N commits every N
// records instead (an error then keeps the batches committed before it, and
// says which records those are).
// --append adds with WriteTxn::append (ascending keys after the tree's last
// key; with --append a key out of order is an error naming its line), else
// put (overwrites existing keys).
#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "command_registry.h"
#include "commands.h"
#include "dump_format.h"
#include "open_database.h"
#include "ordo/base/errno_status.h"
#include "progress.h"

namespace ordo::tool {
namespace {

// The file a load created, by its real path (not a symlink to it) and inode:
// a failed load removes it, and nothing else.
class CreatedFile {
 public:
  // Creates the missing file `path` empty (through a symlink: its target),
  // which Database::open then makes a database, so that a failure there
  // too leaves no file. When it cannot, nothing is created here and
  // Database::open reports why.
  explicit CreatedFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    const bool known = ::fstat(fd, &created_) == 0;
    ::close(fd);
    if (char* real = known ? ::realpath(path.c_str(), nullptr) : nullptr) {
      path_ = real;
      std::free(real);
    }
  }
  CreatedFile() = default;

  // Removes the file if it is still the one created; true when it did.
  bool remove() const {
    struct stat now;
    return !path_.empty() && ::lstat(path_.c_str(), &now) == 0 && now.st_dev == created_.st_dev &&
           now.st_ino == created_.st_ino && std::remove(path_.c_str()) == 0;
  }

 private:
  std::string path_;
  struct stat created_ {};
};

struct LoadOptions {
  std::string path;
  TreeOption tree;
  std::optional<std::string> input;  // -i; stdin when absent
  bool append = false;
  uint64_t batch = 0;                       // 0: one txn
  IoBackend io_backend = IoBackend::kAuto;  // --io
  bool json = false;
};

int run_load(const LoadOptions& o) {
  auto forced_name = tree_name(o.tree);
  if (!forced_name.is_ok()) {
    report_message(forced_name.status().message());
    return kExitUsage;
  }
  struct stat st;
  const bool existed = ::stat(o.path.c_str(), &st) == 0;
  if (existed && S_ISREG(st.st_mode) && (st.st_mode & 0222) == 0) {
    report_message(fmt::format("{}: the file is read-only (mode {:04o}); nothing was loaded",
                               o.path, st.st_mode & 07777));
    return kExitError;
  }
  std::FILE* in = stdin;
  uint64_t input_bytes = 0;
  const std::string input_name = o.input.value_or("stdin");
  if (o.input) {
    in = std::fopen(o.input->c_str(), "r");
    if (in == nullptr) {
      report_error(*o.input, Status::io_error(base::errno_text(errno), errno));
      return kExitError;
    }
    struct stat ist;
    if (::fstat(fileno(in), &ist) == 0 && S_ISREG(ist.st_mode)) input_bytes = ist.st_size;
  }
  static char buffer[1 << 20];
  std::setvbuf(in, buffer, _IOFBF, sizeof buffer);

  const CreatedFile created = existed ? CreatedFile() : CreatedFile(o.path);
  auto db_result = Database::open(o.path, Options{.io_backend = o.io_backend});
  if (!db_result.is_ok()) {
    const bool removed = created.remove();
    report_error(o.path, db_result.status());
    if (removed) {
      report_message(o.path + ": nothing was loaded; the file this load created was removed");
    }
    if (o.input) std::fclose(in);
    return kExitError;
  }
  std::unique_ptr<Database> db = std::move(db_result).value();
  const uint32_t max_key = db->max_key_bytes();

  DumpReader reader(in);
  Progress progress("loaded", input_bytes ? "bytes" : "records");
  uint64_t records = 0, committed_records = 0, blocks = 0, in_txn = 0;
  uint64_t last_txn = 0, committed_line = 0;
  std::string key, value;
  Status failure;
  bool commit_failed = false;
  bool changed = false;  // since the last commit: a tree created or a record added
  {
    auto txn = db->begin_write();
    if (!txn.is_ok()) failure = txn.status();
    while (failure.is_ok()) {
      DumpHeader header;
      auto more = reader.next_block(&header);
      if (!more.is_ok()) {
        failure = more.status();
        break;
      }
      if (!*more) break;
      for (const std::string& w : header.ignored) {
        report_message(input_name + ": " + w + ": unknown header keyword ignored");
      }
      blocks++;
      std::optional<std::string> name = *forced_name ? *forced_name : header.database;
      Tree tree;
      if (name) {
        auto t = txn->create_tree(*name);
        if (!t.is_ok()) {
          failure = t.status().with_context("line " + std::to_string(header.first_line) + ": " +
                                            tree_label(name));
          break;
        }
        tree = *t;
        changed = true;
      }
      for (;;) {
        auto got = reader.next_record(&key, &value);
        if (!got.is_ok()) {
          failure = got.status();
          break;
        }
        if (!*got) break;
        const std::string at = "line " + std::to_string(reader.key_line()) + ": ";
        if (key.size() > max_key) {
          failure = Status::invalid_argument(
              at +
              fmt::format("key of {} bytes exceeds the maximum of {} bytes", key.size(), max_key));
          break;
        }
        if (value.size() > db->max_value_bytes()) {
          failure = Status::invalid_argument(
              at + fmt::format("value of {} bytes exceeds the maximum of {} bytes", value.size(),
                               db->max_value_bytes()));
          break;
        }
        Status s = o.append ? txn->append(tree, key, value) : txn->put(tree, key, value);
        if (!s.is_ok()) {
          if (o.append && s.is_invalid_argument()) {
            s = Status::invalid_argument(
                "key does not sort after the previous key of " + tree_label(name) +
                " (--append needs ascending keys after the tree's last key)");
          }
          failure = s.with_context("line " + std::to_string(reader.key_line()));
          break;
        }
        records++;
        in_txn++;
        changed = true;
        if (records % 4096 == 0) {
          progress.update(input_bytes ? reader.bytes_read() : records, input_bytes);
        }
        if (o.batch != 0 && in_txn >= o.batch) {
          const uint64_t id = txn->txn_id();
          Status c = txn->commit();
          if (!c.is_ok()) {
            failure = c.with_context("commit");
            commit_failed = true;
            break;
          }
          last_txn = id;
          committed_records = records;
          committed_line = reader.key_line();
          in_txn = 0;
          changed = false;
          txn = db->begin_write();
          if (!txn.is_ok()) {
            failure = txn.status();
            break;
          }
        }
      }
    }
    // With --batch, a last txn with nothing in it is not committed (it would
    // only sync again).
    if (failure.is_ok() && (changed || last_txn == 0)) {
      const uint64_t id = txn->txn_id();
      Status c = txn->commit();
      if (c.is_ok()) {
        last_txn = id;
        committed_records = records;
      } else {
        failure = c.with_context("commit");
        commit_failed = true;
      }
    }
  }
  progress.finish();
  if (o.input) std::fclose(in);
  if (!failure.is_ok()) {
    const bool nothing = committed_records == 0;
    db.reset();
    const bool removed = nothing && created.remove();  // leave no trace of a failed load
    // A failed commit is the database file's failure (a write or sync), not the input's.
    report_error(commit_failed ? o.path : input_name, failure);
    if (!nothing) {
      report_message(
          fmt::format("{}: the first {} records were committed (--batch: through "
                      "line {} of {}, txn {}); the rest was not loaded",
                      o.path, committed_records, committed_line, input_name, last_txn));
    } else if (commit_failed) {
      report_message(o.path + ": nothing was loaded: the commit did not take effect, " +
                     (removed ? "and the file this load created was removed"
                              : "the database holds what it held before"));
    } else {
      report_message(o.path + ": nothing was loaded");
    }
    return kExitError;
  }
  // The loaded commits become a checkpoint: the file holds them in place, and
  // the next open replays nothing. The records are committed and durable
  // whether it succeeds or not: a failure is a warning, with an exit code of
  // its own.
  const Status cp = db->checkpoint();
  if (!cp.is_ok()) {
    report_error(o.path, cp.with_context("checkpoint (warning)"));
    report_message(
        fmt::format("{}: all {} records were committed (txn {}) and are durable in its log; the "
                    "checkpoint after the commit failed, so the next writable open of the file "
                    "applies them",
                    o.path, records, last_txn));
  }
  if (o.json) {
    nlohmann::ordered_json j;
    j["path"] = o.path;
    j["input"] = input_name;
    j["blocks"] = blocks;
    j["records"] = records;
    j["txn_id"] = last_txn;
    if (!cp.is_ok()) j["checkpoint_error"] = cp.to_string();
    print_line(json_text(j));
  } else {
    fmt::print("loaded {} records in {} blocks into {} (txn {})\n", records, blocks, o.path,
               last_txn);
  }
  if (!cp.is_ok()) return kExitDoneWithWarning;
  return kExitOk;
}

}  // namespace

void add_load_command(CommandRegistry& registry) {
  struct Args {
    FileArgs file;
    TreeFlag tree;
    LoadOptions options;
    std::string input;
    std::string io = "auto";
  };
  auto args = std::make_shared<Args>();
  CLI::App* command = registry.add_file_command(
      "load", "Records in mdb_dump text format into a database (created if missing), in one txn",
      args->file);
  add_tree_flag(command, args->tree,
                "Load every block into this tree (default: the tree each block names)");
  CLI::Option* input =
      command->add_option("-i,--input", args->input, "Read this file (default: stdin)");
  command->add_flag("--append", args->options.append,
                    "Bulk append (WriteTxn::append): keys must ascend, after the tree's last key");
  command
      ->add_option("--batch", args->options.batch,
                   "Commit every N records (an error keeps the batches before it)")
      ->check(unsigned_number<uint64_t>());
  command
      ->add_option("--io", args->io,
                   "Write backend (Options::io_backend): auto (POSIX), posix, or uring (an "
                   "error where io_uring cannot be set up)")
      ->check(CLI::IsMember({"auto", "posix", "uring"}));
  registry.set_action(command, [args, input] {
    LoadOptions o = args->options;
    o.io_backend = args->io == "uring"   ? IoBackend::kUring
                   : args->io == "posix" ? IoBackend::kPosix
                                         : IoBackend::kAuto;
    o.path = args->file.path;
    o.json = args->file.json;
    o.tree = args->tree.value();
    if (input->count() > 0) o.input = args->input;
    return run_load(o);
  });
}

}  // namespace ordo::tool
