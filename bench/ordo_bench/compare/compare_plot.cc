#include "compare_plot.h"

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <filesystem>
#include <map>
#include <optional>

#include "bench_dir.h"
#include "ordo/sys/child_process.h"

namespace ordo::bench {
namespace {

// One line of a plot: (x, y) points.
struct Series {
  std::string title;
  std::vector<std::pair<double, double>> points;
};

struct Plot {
  std::string name;  // file stem
  std::string title;
  std::string xlabel;
  std::string ylabel;
  bool log_x = false;
  std::vector<Series> series;
  std::string extra;  // more gnuplot `plot` terms, e.g. a floor line
};

// The .dat text: one block per series, separated by two blank lines (gnuplot `index`).
std::string data_text(const Plot& plot) {
  std::string text;
  for (const Series& s : plot.series) {
    text += fmt::format("# {}\n", s.title);
    for (const auto& [x, y] : s.points) text += fmt::format("{} {}\n", x, y);
    text += "\n\n";
  }
  return text;
}

std::string script_text(const Plot& plot) {
  std::string gp = fmt::format(
      "# Drawn by ordo-bench compare. Run in this directory: gnuplot {0}.gp\n"
      "set terminal pngcairo size 960,600\nset output '{0}.png'\n"
      "set title '{1}'\nset xlabel '{2}'\nset ylabel '{3}'\nset grid\nset key outside right\n"
      "set yrange [0:*]\n",
      plot.name, plot.title, plot.xlabel, plot.ylabel);
  if (plot.log_x) gp += "set logscale x 10\n";
  gp += "plot ";
  for (size_t i = 0; i < plot.series.size(); ++i) {
    gp += fmt::format("{}'{}.dat' index {} with linespoints title '{}'", i == 0 ? "" : ", ",
                      plot.name, i, plot.series[i].title);
  }
  gp += plot.extra + "\n";
  return gp;
}

std::optional<Plot> curve_plot(const WorkloadStudy& study) {
  if (study.result.curves.empty()) return std::nullopt;
  Plot plot;
  plot.name = study.spec.name + "-curve";
  plot.title = fmt::format("{}: nodes/s per window (median of the kept rounds)", study.spec.name);
  plot.xlabel = "nodes created";
  plot.ylabel = "nodes/s";
  for (const CurveLine& line : study.result.curves) {
    plot.series.push_back({line.label, line.points});
  }
  return plot;
}

// N of a figure named p50_us_N.
std::optional<double> preload_of(const std::string& figure) {
  constexpr std::string_view kPrefix = "p50_us_";
  if (figure.rfind(kPrefix, 0) != 0) return std::nullopt;
  double n = 0;
  const char* first = figure.data() + kPrefix.size();
  const char* last = figure.data() + figure.size();
  const auto [end, ec] = std::from_chars(first, last, n);
  if (ec != std::errc() || end != last) return std::nullopt;
  return n;
}

std::optional<Plot> commit_plot(const WorkloadStudy& study) {
  if (study.spec.name != "commit") return std::nullopt;
  Plot plot;
  plot.name = "commit-p50";
  plot.title = "commit: one-row durable commit, p50 latency (median of the kept rounds)";
  plot.xlabel = "rows preloaded";
  plot.ylabel = "p50 latency (us)";
  plot.log_x = true;
  std::map<std::string, Series> by_label;
  std::vector<std::string> order;
  for (const FigureRow& row : study.result.rows) {
    if (row.label == "ordo" && row.figure == "fdatasync_floor_us" && row.value.count > 0) {
      plot.extra = fmt::format(", {} with lines dashtype 2 title 'fdatasync floor (ordo runs)'",
                               row.value.median);
    }
    const std::optional<double> n = preload_of(row.figure);
    if (!n || row.value.count == 0) continue;
    if (!by_label.count(row.label)) order.push_back(row.label);
    by_label[row.label].title = row.label;
    by_label[row.label].points.emplace_back(*n, row.value.median);
  }
  for (const std::string& label : order) {
    Series s = by_label[label];
    std::sort(s.points.begin(), s.points.end());
    plot.series.push_back(std::move(s));
  }
  if (plot.series.empty()) return std::nullopt;
  return plot;
}

}  // namespace

Status write_plots(const std::string& dir, CompareReport& report) {
  std::vector<Plot> plots;
  for (const WorkloadStudy& study : report.studies) {
    if (std::optional<Plot> p = curve_plot(study)) plots.push_back(std::move(*p));
    if (std::optional<Plot> p = commit_plot(study)) plots.push_back(std::move(*p));
  }
  if (plots.empty()) return Status::ok();
  for (const Plot& plot : plots) {
    ORDO_RETURN_IF_ERROR(write_text_file(dir + "/" + plot.name + ".dat", data_text(plot)));
    ORDO_RETURN_IF_ERROR(write_text_file(dir + "/" + plot.name + ".gp", script_text(plot)));
  }
  const std::string gnuplot = sys::find_in_path("gnuplot");
  // Absolute: gnuplot runs the -e `cd` before it opens the script.
  const std::string abs_dir = std::filesystem::absolute(dir).string();
  if (gnuplot.empty()) {
    report.plot_note = "gnuplot not found on PATH: wrote the .dat and .gp files in " + dir +
                       "; draw them there with `gnuplot NAME.gp`";
    return Status::ok();
  }
  for (const Plot& plot : plots) {
    Result<sys::ChildResult> run =
        sys::run_child({gnuplot, "-e", "cd '" + abs_dir + "'", abs_dir + "/" + plot.name + ".gp"});
    if (!run.is_ok() || !run->ok()) {
      report.plot_note += fmt::format(
          "gnuplot failed on {}.gp: {}; ", plot.name,
          run.is_ok() ? run->how_it_ended() + ": " + run->err : run.status().to_string());
      continue;
    }
    report.plots.push_back(dir + "/" + plot.name + ".png");
  }
  return Status::ok();
}

}  // namespace ordo::bench
