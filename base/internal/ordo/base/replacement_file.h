// A file that appears under its path only once complete: written as a
// temporary file in the same directory, then renamed over the path. Database
// copies (ReadTxn::copy_to) and the ordo tool's dumps write their output so.
#pragma once

#include <sys/stat.h>

#include <functional>
#include <string>
#include <string_view>

#include "ordo/status.h"

namespace ordo::base {

// How messages and the temporary file name an output: `verb` "copy" gives
// "copy target 'PATH'", "the database being copied" (`participle`), "while
// copying" (`gerund`) and the temporary name ".NAME.ordo-copy-XXXXXX".
struct OutputKind {
  const char* verb;
  const char* participle;
  const char* gerund;
};

// A database copy (ReadTxn::copy_to, `ordo copy`).
inline constexpr OutputKind kCopyOutput{"copy", "copied", "copying"};

// InvalidArgument "VERB target 'PATH' is the database being PARTICIPLE" when
// `target` (the stat of PATH, or of a descriptor) is the same file (st_dev and
// st_ino) as the database at `database_path`: the same path, a symlink or a
// hard link. Ok otherwise, also when the database cannot be stat'ed.
Status refuse_database_as_target(const struct stat& target, const std::string& path,
                                 const std::string& database_path, const OutputKind& kind);

// The temporary file and the directory it lives in. Not thread-safe; the
// destructor removes the temporary file unless it was published.
class ReplacementFile {
 public:
  ReplacementFile() = default;
  ReplacementFile(const ReplacementFile&) = delete;
  ReplacementFile& operator=(const ReplacementFile&) = delete;
  ~ReplacementFile();

  // Checks `path` and creates the temporary file beside it (mode 0644).
  // InvalidArgument when `path` names no file, is a directory or another
  // file that is not regular (a device, FIFO or socket is never replaced), is
  // the database at `database_path` (refuse_database_as_target), or exists
  // while !overwrite. NotFound when the directory is missing; IOError (Full when
  // out of space) when it cannot be opened or no temporary file created.
  Status create(const std::string& path, bool overwrite, const std::string& database_path,
                const OutputKind& kind);

  // The temporary file's descriptor (owned here until publish()).
  int fd() const { return fd_; }

  // Closes the temporary file and renames it to the path (without
  // `overwrite`, refuses to replace a file that appeared meanwhile:
  // InvalidArgument), then fsyncs the directory. When that fsync fails, the
  // renamed file is removed again (the error says so, or that removing it
  // failed too): a failed publish leaves no file under the path. `on_event`,
  // when set, hears "renamed" and "directory synced".
  Status publish(bool overwrite, const std::function<void(std::string_view event)>& on_event = {});

 private:
  OutputKind kind_{"", "", ""};
  std::string dir_, base_, temp_name_;
  int dir_fd_ = -1;
  int fd_ = -1;
  bool published_ = false;
};

}  // namespace ordo::base
