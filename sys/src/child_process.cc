#include "ordo/sys/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <thread>

#include "ordo/base/errno_status.h"

namespace ordo::sys {
namespace {

constexpr auto kWaitPoll = std::chrono::milliseconds(10);

ChildExit exit_of(int status) {
  ChildExit e;
  if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
  if (WIFEXITED(status)) e.exit_code = WEXITSTATUS(status);
  return e;
}

// Forks and executes argv with the given descriptors as stdin, stdout and
// stderr (-1: the parent's). Only async-signal-safe calls run in the child;
// an exec failure's errno comes back through a close-on-exec pipe.
Result<pid_t> start(const std::vector<std::string>& argv, int in_fd, int out_fd, int err_fd,
                    bool die_with_parent) {
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return base::os_error("cannot start " + argv[0], errno);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(report[0]);
    ::close(report[1]);
    return base::os_error("cannot start " + argv[0], err);
  }
  if (pid == 0) {
    ::close(report[0]);
    if (die_with_parent) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
    }
    if (in_fd >= 0) ::dup2(in_fd, STDIN_FILENO);
    if (out_fd >= 0) ::dup2(out_fd, STDOUT_FILENO);
    if (err_fd >= 0) ::dup2(err_fd, STDERR_FILENO);
    ::execv(args[0], args.data());
    const int err = errno;
    (void)!::write(report[1], &err, sizeof err);
    ::_exit(127);
  }
  ::close(report[1]);
  int exec_errno = 0;
  ssize_t n = 0;
  do {
    n = ::read(report[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  ::close(report[0]);
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return base::os_error("cannot start " + argv[0], exec_errno);
  }
  return pid;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

std::string read_all(std::FILE* f) {
  std::string text;
  std::rewind(f);
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  return text;
}

}  // namespace

std::string ChildExit::how_it_ended() const {
  return signal != 0 ? "signal " + std::to_string(signal)
                     : "exit code " + std::to_string(exit_code);
}

Result<ChildProcess> ChildProcess::spawn(const std::vector<std::string>& argv,
                                         const SpawnOptions& options) {
  if (argv.empty()) return Status::invalid_argument("a child process needs a program");
  int out_fd = -1;
  int in_fd = -1;
  if (!options.output_file.empty()) {
    const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (options.append_output ? O_APPEND : O_TRUNC);
    out_fd = ::open(options.output_file.c_str(), flags, 0644);
    if (out_fd < 0) {
      return base::os_error("cannot start " + argv[0] + ": open " + options.output_file, errno);
    }
  }
  if (options.null_stdin) {
    in_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in_fd < 0) {
      const int err = errno;
      if (out_fd >= 0) ::close(out_fd);
      return base::os_error("cannot start " + argv[0] + ": open /dev/null", err);
    }
  }
  Result<pid_t> pid = start(argv, in_fd, out_fd, out_fd, options.die_with_parent);
  if (out_fd >= 0) ::close(out_fd);
  if (in_fd >= 0) ::close(in_fd);
  if (!pid.is_ok()) return pid.status();
  return ChildProcess(*pid);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept : pid_(other.pid_) { other.pid_ = 0; }

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    if (running()) (void)kill();
    pid_ = other.pid_;
    other.pid_ = 0;
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  if (running()) (void)kill();
}

Status ChildProcess::send_signal(int signal) {
  if (!running()) return Status::invalid_argument("the child process has ended");
  if (::kill(pid_, signal) != 0) return base::os_error("kill " + std::to_string(pid_), errno);
  return Status::ok();
}

Result<std::optional<ChildExit>> ChildProcess::try_wait() {
  if (!running()) return Status::invalid_argument("the child process has ended");
  int status = 0;
  pid_t done = 0;
  do {
    done = ::waitpid(pid_, &status, WNOHANG);
  } while (done < 0 && errno == EINTR);
  if (done < 0) return base::os_error("waitpid " + std::to_string(pid_), errno);
  if (done == 0) return std::optional<ChildExit>();
  pid_ = 0;
  return std::optional<ChildExit>(exit_of(status));
}

Result<ChildExit> ChildProcess::wait() {
  if (!running()) return Status::invalid_argument("the child process has ended");
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) return base::os_error("waitpid " + std::to_string(pid_), errno);
  }
  pid_ = 0;
  return exit_of(status);
}

Result<ChildExit> ChildProcess::wait_for(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    ORDO_ASSIGN_OR_RETURN(std::optional<ChildExit> ended, try_wait());
    if (ended.has_value()) return *ended;
    if (std::chrono::steady_clock::now() >= deadline) {
      return Status::io_error("pid " + std::to_string(pid_) + " still running after " +
                                  std::to_string(timeout.count()) + " ms",
                              ETIMEDOUT);
    }
    std::this_thread::sleep_for(kWaitPoll);
  }
}

Result<ChildExit> ChildProcess::kill() {
  ORDO_RETURN_IF_ERROR(send_signal(SIGKILL));
  return wait();
}

Result<ChildResult> run_child(const std::vector<std::string>& argv, const std::string& input_file) {
  if (argv.empty()) return Status::invalid_argument("a child process needs a program");
  File out(std::tmpfile());
  File err(std::tmpfile());
  if (out == nullptr || err == nullptr) return base::os_error("tmpfile", errno);
  File in(input_file.empty() ? nullptr : std::fopen(input_file.c_str(), "re"));
  if (!input_file.empty() && in == nullptr) {
    return base::os_error("cannot start " + argv[0] + ": open " + input_file, errno);
  }
  const auto begin = std::chrono::steady_clock::now();
  ORDO_ASSIGN_OR_RETURN(pid_t pid, start(argv, in != nullptr ? fileno(in.get()) : -1,
                                         fileno(out.get()), fileno(err.get()), false));
  ChildProcess child(pid);
  ChildResult result;
  ORDO_ASSIGN_OR_RETURN(static_cast<ChildExit&>(result), child.wait());
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  result.out = read_all(out.get());
  result.err = read_all(err.get());
  return result;
}

std::string find_in_path(const std::string& name) {
  // The launching program's PATH, as a shell would search it; only a
  // concurrent setenv would race, and nothing in ordo calls it.
  const char* path = std::getenv("PATH");  // NOLINT(concurrency-mt-unsafe)
  std::istringstream dirs(path != nullptr ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

}  // namespace ordo::sys
