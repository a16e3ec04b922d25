// Helpers shared by the io tests: per-test temp directories, span sets with a known file
// image, child processes, environment overrides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ordo/io/backend.h"
#include "temp_dir.h"

namespace ordo::io::testing {

using ::ordo::testing::TempDir;

// Spans with their own buffers, and the file image they produce when written into an
// empty file (zeros in the gaps).
struct SpanSet {
  std::vector<std::vector<std::byte>> buffers;
  std::vector<WriteSpan> spans;  // shuffled
  std::vector<std::byte> image;  // bytes [0, end of last span)
};

// Builds, from `seed`: more than kMaxIovecsPerWrite adjacent small spans, more than
// 2 * kUringQueueEntries isolated spans, and groups of 2-5 adjacent spans, all starting
// at `start_offset`, then shuffles them.
SpanSet make_scattered_spans(uint32_t seed, uint64_t start_offset);

// `size` pseudo-random bytes from `seed`.
std::vector<std::byte> random_bytes(size_t size, uint32_t seed);

// Reads `size` bytes at `offset` of the file at `path` with pread (short at end of file).
std::vector<std::byte> pread_file(const std::string& path, uint64_t offset, size_t size);

// st_size of `path`, or -1.
int64_t file_size(const std::string& path);

// The whole file at `path` (empty when it cannot be read).
std::vector<std::byte> read_file(const std::string& path);

// Replaces the file at `path` with `bytes`. False when it cannot.
[[nodiscard]] bool write_file(const std::string& path, const std::vector<std::byte>& bytes);

// True when io_uring_queue_init works here (checked with liburing directly).
bool uring_available();

// Runs `body` in a forked child and returns its exit code (body's return value), or
// 128 + signal number if it died from a signal, or -1 if fork failed.
int run_in_child(const std::function<int()>& body);

// Exit code of run_with_file_size_limit() when the set-up in the child failed.
inline constexpr int kChildSetupFailed = 10;

// In a forked child limited to files of `limit_bytes` (RLIMIT_FSIZE, SIGXFSZ ignored):
// opens `path` (O_RDWR | O_CREAT), builds a backend of `kind` over it, and exits with
// body(backend), or kChildSetupFailed when a step of the set-up fails. Returns as
// run_in_child().
int run_with_file_size_limit(const std::string& path, BackendKind kind, uint64_t limit_bytes,
                             const std::function<int(WriteBackend&)>& body);

// Sets (or with nullopt unsets) an environment variable; restores it on destruction.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, std::optional<std::string> value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> saved_;
};

// "Posix" / "Uring" / "Auto", for test parameter names.
std::string kind_label(BackendKind kind);

}  // namespace ordo::io::testing
