#include "compare_study.h"

#include <nlohmann/json.hpp>

namespace ordo::bench {

Result<ChildReport> parse_child_report(std::string_view text) {
  using json = nlohmann::ordered_json;  // keeps the child's figure order
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::invalid_argument("the child's stdout is not one JSON object");
  }
  const auto figures = j.find("figures");
  if (figures == j.end() || !figures->is_object()) {
    return Status::invalid_argument("the child's JSON has no \"figures\" object");
  }
  ChildReport report;
  for (const auto& [name, value] : figures->items()) {
    if (value.is_number()) report.figures.emplace_back(name, value.get<double>());
  }
  if (report.figures.empty()) {
    return Status::invalid_argument("the child's \"figures\" holds no number");
  }
  const auto curve = j.find("curve");
  if (curve == j.end()) return report;
  if (!curve->is_array()) return Status::invalid_argument("\"curve\" is not an array");
  for (const json& point : *curve) {
    if (!point.is_array() || point.size() != 2 || !point[0].is_number() || !point[1].is_number()) {
      return Status::invalid_argument("a \"curve\" point is not [number, number]");
    }
    report.curve.emplace_back(point[0].get<double>(), point[1].get<double>());
  }
  return report;
}

const std::string& StudyPairs::engine(size_t pair, Arm arm) const {
  static const std::string kOrdo = "ordo";
  return arm == Arm::kA || pair == 0 ? kOrdo : peers[pair - 1];
}

std::string StudyPairs::label(size_t pair, Arm arm) const {
  if (arm == Arm::kA) return "ordo";
  return pair == 0 ? std::string(kAaLabel) : peers[pair - 1];
}

}  // namespace ordo::bench
