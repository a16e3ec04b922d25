// What one study of `ordo-bench compare` is made of: the pairs (A/A control
// first, then ordo against each peer), the child runs as planned and as they
// came out, and the contract JSON a child prints.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compare_stats.h"
#include "ordo/status.h"

namespace ordo::bench {

// Label of the B arm of the A/A control (the engine run is "ordo").
inline constexpr std::string_view kAaLabel = "ordo-aa";

// The figures of one child run, as its JSON gave them.
struct ChildReport {
  std::vector<std::pair<std::string, double>> figures;  // in document order
  std::vector<std::pair<double, double>> curve;         // (nodes created, nodes/s)
};

// Parses the one JSON document a child run prints: an object with a
// "figures" object of name -> number (other members and non-number figures
// are ignored) and, optionally, "curve": [[x, y], ...]. InvalidArgument
// naming what is missing or malformed.
Result<ChildReport> parse_child_report(std::string_view text);

// Pair 0 is the A/A control; pair i > 0 is ordo against peers[i - 1].
struct StudyPairs {
  std::vector<std::string> peers;

  size_t size() const { return peers.size() + 1; }
  // The --engine value of an arm: "ordo" for A and for the control's B.
  const std::string& engine(size_t pair, Arm arm) const;
  // How the arm is named in the results: "ordo", "ordo-aa" or the peer.
  std::string label(size_t pair, Arm arm) const;
};

// One child run: what was planned and what came of it.
struct RunRecord {
  PlannedRun plan;
  std::string label;  // StudyPairs::label
  bool ok = false;
  std::string error;   // failed runs: how it ended and its stderr, or the parse error
  double seconds = 0;  // wall time of the child process
  ChildReport report;  // ok runs
};

}  // namespace ordo::bench
