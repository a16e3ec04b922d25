// sys/child_process.h with /bin/sh as the child: exit codes, signals,
// captured output, an output file, a program that cannot start.
#include "ordo/sys/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <sstream>

#include "ordo/sys/temp_dir.h"

namespace ordo::sys {
namespace {

using namespace std::chrono_literals;

std::string read_text(const std::string& path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

TEST(SysChildProcess, RunChildCapturesOutputAndTheExitCode) {
  Result<ChildResult> r = run_child({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->signal, 0);
  EXPECT_FALSE(r->ok());
  EXPECT_EQ(r->how_it_ended(), "exit code 3");
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_GE(r->seconds, 0.0);
  Result<ChildResult> fine = run_child({"/bin/sh", "-c", "exit 0"});
  ASSERT_TRUE(fine.is_ok());
  EXPECT_TRUE(fine->ok());
}

TEST(SysChildProcess, RunChildReadsItsInputFile) {
  Result<TempDir> dir = TempDir::make("ordo-sys-test.");
  ASSERT_TRUE(dir.is_ok());
  std::ofstream(dir->file("in")) << "line one\nline two\n";
  Result<ChildResult> r = run_child({"/bin/sh", "-c", "wc -l"}, dir->file("in"));
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->out, "2\n");
  Result<ChildResult> missing = run_child({"/bin/sh", "-c", "true"}, dir->file("none"));
  EXPECT_EQ(missing.status().errno_value(), ENOENT) << missing.status().to_string();
}

TEST(SysChildProcess, AProgramThatCannotStartIsAnError) {
  Result<ChildResult> r = run_child({"/nonexistent/program"});
  ASSERT_TRUE(r.status().is_io_error()) << r.status().to_string();
  EXPECT_EQ(r.status().errno_value(), ENOENT);
  EXPECT_EQ(r.status().message().rfind("cannot start /nonexistent/program: ", 0), 0u)
      << r.status().message();
  EXPECT_TRUE(ChildProcess::spawn({}).status().is_invalid_argument());
}

TEST(SysChildProcess, SpawnedChildExitsWithItsCodeIntoItsOutputFile) {
  Result<TempDir> dir = TempDir::make("ordo-sys-test.");
  ASSERT_TRUE(dir.is_ok()) << dir.status().to_string();
  SpawnOptions o;
  o.output_file = dir->file("log");
  o.null_stdin = true;
  Result<ChildProcess> child =
      ChildProcess::spawn({"/bin/sh", "-c", "cat; echo one; echo two >&2; exit 7"}, o);
  ASSERT_TRUE(child.is_ok()) << child.status().to_string();
  EXPECT_TRUE(child->running());
  Result<ChildExit> ended = child->wait_for(10s);
  ASSERT_TRUE(ended.is_ok()) << ended.status().to_string();
  EXPECT_EQ(ended->exit_code, 7);
  EXPECT_FALSE(child->running());
  EXPECT_EQ(read_text(o.output_file), "one\ntwo\n");
  EXPECT_TRUE(child->wait().status().is_invalid_argument());

  // Appended, not truncated.
  o.append_output = true;
  Result<ChildProcess> again = ChildProcess::spawn({"/bin/sh", "-c", "echo three"}, o);
  ASSERT_TRUE(again.is_ok());
  ASSERT_TRUE(again->wait().is_ok());
  EXPECT_EQ(read_text(o.output_file), "one\ntwo\nthree\n");
}

TEST(SysChildProcess, AWaitThatTimesOutLeavesTheChildToASignal) {
  Result<ChildProcess> child = ChildProcess::spawn({"/bin/sh", "-c", "exec sleep 30"});
  ASSERT_TRUE(child.is_ok()) << child.status().to_string();
  Result<std::optional<ChildExit>> now = child->try_wait();
  ASSERT_TRUE(now.is_ok());
  EXPECT_FALSE(now->has_value());
  const auto start = std::chrono::steady_clock::now();
  Result<ChildExit> early = child->wait_for(200ms);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 200ms);
  ASSERT_FALSE(early.is_ok());
  EXPECT_EQ(early.status().errno_value(), ETIMEDOUT);
  EXPECT_TRUE(child->running());
  ASSERT_TRUE(child->send_signal(SIGTERM).is_ok());
  Result<ChildExit> ended = child->wait_for(10s);
  ASSERT_TRUE(ended.is_ok()) << ended.status().to_string();
  EXPECT_EQ(ended->signal, SIGTERM);
  EXPECT_EQ(ended->how_it_ended(), "signal " + std::to_string(SIGTERM));
}

TEST(SysChildProcess, TheDestructorKillsAStoppedChild) {
  pid_t pid = 0;
  {
    Result<ChildProcess> child = ChildProcess::spawn({"/bin/sh", "-c", "exec sleep 30"});
    ASSERT_TRUE(child.is_ok());
    pid = child->pid();
    ASSERT_TRUE(child->send_signal(SIGSTOP).is_ok());
    ChildProcess moved = std::move(*child);
    EXPECT_FALSE(child->running());
    EXPECT_EQ(moved.pid(), pid);
  }
  // Reaped: the pid no longer names a process of ours.
  EXPECT_NE(::kill(pid, 0), 0);
  EXPECT_EQ(errno, ESRCH);
}

TEST(SysChildProcess, FindInPathFindsSh) {
  EXPECT_NE(find_in_path("sh"), "");
  EXPECT_EQ(find_in_path("ordo-no-such-program"), "");
}

}  // namespace
}  // namespace ordo::sys
