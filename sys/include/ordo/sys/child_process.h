// Other programs as child processes: started without a shell or a PATH
// search, signalled, waited for (with or without a time limit), killed; and
// a program run to its end with what it printed captured.
// Thread-safety: a ChildProcess is used by one thread at a time; the free
// functions may be called from any thread.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "ordo/status.h"

namespace ordo::sys {

// How a child ended.
struct ChildExit {
  int exit_code = -1;  // valid when signal == 0
  int signal = 0;      // the signal that ended the child, 0 when it exited

  // Exited with code 0.
  bool ok() const { return signal == 0 && exit_code == 0; }
  // "exit code N" or "signal N".
  std::string how_it_ended() const;
};

struct SpawnOptions {
  // Where the child's stdout and stderr both go: "" keeps the parent's; else
  // this file, created (0644) when missing.
  std::string output_file;
  // With output_file: append to it rather than truncate it.
  bool append_output = false;
  // stdin from /dev/null rather than the parent's.
  bool null_stdin = false;
  // SIGKILL the child when the thread that started it ends
  // (PR_SET_PDEATHSIG), so that none outlives a crashed parent.
  bool die_with_parent = false;
};

struct ChildResult;

// A started child; move-only. The destructor SIGKILLs and reaps a child
// still running (also a stopped one).
class ChildProcess {
 public:
  // Starts argv[0] (a path) with arguments argv[1..] and the parent's
  // environment. IOError "cannot start <argv[0]>: <errno text>" when the
  // output file cannot be opened or the program cannot be executed (the
  // child's exec errno is reported back before this returns); a program that
  // starts and then fails is a ChildExit, not an error. InvalidArgument when
  // argv is empty.
  static Result<ChildProcess> spawn(const std::vector<std::string>& argv,
                                    const SpawnOptions& options = {});

  // No child (running() is false).
  ChildProcess() = default;
  // Takes over `other`'s child; `other` is left with none. Assignment first
  // SIGKILLs and reaps this object's own child, if running.
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  // SIGKILLs and reaps the child if it is running (stopped or not).
  ~ChildProcess();

  // The child's pid while it has not been reaped, else 0.
  pid_t pid() const { return pid_; }
  // Whether there is a child not yet reaped (it may have exited already).
  bool running() const { return pid_ > 0; }

  // kill(2) with `signal` (SIGSTOP, SIGCONT, SIGTERM, ...). InvalidArgument
  // when the child was reaped; IOError "kill <pid>: <errno text>" otherwise.
  Status send_signal(int signal);

  // How it ended when it has (reaping it), std::nullopt while it runs; does
  // not block. InvalidArgument when it was reaped; IOError from waitpid(2).
  Result<std::optional<ChildExit>> try_wait();
  // Waits for it to end (EINTR retried) and reaps it. Errors as try_wait.
  Result<ChildExit> wait();
  // As wait, at most `timeout`: IOError "pid <pid> still running after <N>
  // ms" (ETIMEDOUT) then, and the child is left running.
  Result<ChildExit> wait_for(std::chrono::milliseconds timeout);
  // SIGKILL, then wait. Errors as wait.
  Result<ChildExit> kill();

 private:
  friend Result<ChildResult> run_child(const std::vector<std::string>& argv,
                                       const std::string& input_file);
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_ = 0;
};

// What run_child saw.
struct ChildResult : ChildExit {
  std::string out;     // all of its stdout
  std::string err;     // all of its stderr
  double seconds = 0;  // wall time from spawn to exit
};

// Runs argv as ChildProcess::spawn does, stdin read from `input_file` (""
// keeps the parent's), stdout and stderr captured through temporary files,
// and waits for it to end. IOError when the input file cannot be opened, the
// temporary files cannot be made or the program cannot be started (errno
// inside); a child that starts and fails is a result, not an error.
Result<ChildResult> run_child(const std::vector<std::string>& argv,
                              const std::string& input_file = "");

// The first executable file named `name` in the directories of $PATH, or ""
// when there is none.
std::string find_in_path(const std::string& name);

}  // namespace ordo::sys
