// Where commands write: stdout, whose reader may go away (a pipe to `head`),
// and the file of `dump -o`, which appears only when complete.
#pragma once

#include <sys/stat.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ordo/base/replacement_file.h"
#include "ordo/status.h"

namespace ordo::tool {

// Writes `text` to stdout. After a failed write (EPIPE: the reader is gone;
// SIGPIPE is ignored) reports "ordo: stdout: REASON" once and returns false:
// the caller stops its output loop.
bool write_stdout(std::string_view text);

// Flushes stdout. Reports the failure as write_stdout does (unless already
// reported) and returns false when stdout could not be written.
bool finish_stdout();

// True for an existing output that is written in place, never replaced: a
// device, FIFO or socket (not a regular file, not a directory).
bool written_in_place(const struct stat& st);

// InvalidArgument when stdout is the database at `database_path`
// (base::refuse_database_as_target; "ordo dump F >> F").
Status refuse_database_as_stdout(const std::string& database_path, const base::OutputKind& kind);

// The output of a command that writes a file for a database: refuses the
// database itself (same st_dev and st_ino: a symlink or hard link too). A
// path that is missing or a regular file gets a temporary file beside it,
// renamed over the path by commit() and removed on failure, so an old file
// stays untouched. A device or FIFO, and stdout (no path), are written
// directly, and nothing is ever removed.
class OutputFile {
 public:
  OutputFile() = default;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  // Opens `path` (nullopt: stdout) for the database at `database_path`.
  // InvalidArgument naming the output when it is the database or a
  // directory; IOError when it cannot be opened.
  Status open(const std::optional<std::string>& path, const std::string& database_path,
              const base::OutputKind& kind);
  std::FILE* stream() const { return stream_; }
  // Flushes; a regular file is fsynced and renamed into place.
  Status commit();

 private:
  std::FILE* stream_ = nullptr;
  bool owned_ = false;  // fclose on destruction (not stdout)
  std::unique_ptr<base::ReplacementFile> replacement_;
};

}  // namespace ordo::tool
