//===- SweepHtml.cpp - Self-contained HTML page of a sweep ----------------===//
//
// Latency vs energy and latency vs area scatter plots with the Pareto front
// of (latency, energy, area) highlighted, and the table of all points.
//
//===----------------------------------------------------------------------===//
#include "systole/Runtime/Svg.h"
#include "systole/Runtime/Sweep.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>

using namespace systole;
using namespace systole::rt;
using llvm::formatv;

namespace {
/// Colour of an area on a blue (small) to red (large) log scale.
std::string areaColor(double area, double lo, double hi) {
  double t =
      hi > lo ? (std::log(area) - std::log(lo)) / (std::log(hi) - std::log(lo))
              : 0.5;
  t = std::clamp(t, 0.0, 1.0);
  int r = int(40 + 200 * t), g = int(90 + 40 * (1 - std::abs(2 * t - 1))),
      b = int(220 - 180 * t);
  return formatv("#{0:x-2}{1:x-2}{2:x-2}", r, g, b).str();
}

std::string pointLabel(const PointResult &r) {
  return formatv("#{0} {1}x{2}, SP {3} KiB, {4} B/cycle: {5:f1} us, {6:f1} "
                 "uJ, {7:f2} mm2{8}",
                 r.point.index, r.point.rows, r.point.cols,
                 r.point.scratchpadBytes / 1024, r.point.dramBytesPerCycle,
                 r.timeUs, r.energyPj / 1e6, r.areaMm2,
                 r.pareto ? " (Pareto)" : "")
      .str();
}

std::string scatter(llvm::ArrayRef<PointResult> rs, const char *id,
                    const char *title, const char *yLabel, bool energy) {
  svg::Scatter c;
  c.id = id;
  c.title = title;
  c.xLabel = "latency (us)";
  c.yLabel = yLabel;
  c.logX = c.logY = true;
  double lo = 1e300, hi = 0;
  for (const PointResult &r : rs)
    if (r.status == "ok") {
      lo = std::min(lo, r.areaMm2);
      hi = std::max(hi, r.areaMm2);
    }
  std::vector<std::pair<double, double>> front;
  for (const PointResult &r : rs) {
    if (r.status != "ok")
      continue;
    svg::ScatterPoint p;
    p.x = r.timeUs;
    p.y = energy ? r.energyPj / 1e6 : r.areaMm2;
    p.label = pointLabel(r);
    p.color = areaColor(r.areaMm2, lo, hi);
    p.cssClass = r.pareto ? "sweep-point pareto" : "sweep-point";
    p.radius = r.pareto ? 6 : 4;
    c.points.push_back(p);
    if (r.pareto)
      front.emplace_back(p.x, p.y);
  }
  // The front's projection onto this plane, as its lower-left staircase.
  std::sort(front.begin(), front.end());
  svg::Polyline line;
  line.label = "Pareto front (latency, energy, area) projected";
  line.color = "#000";
  line.dashed = true;
  double best = 1e300;
  for (auto [x, y] : front)
    if (y < best) {
      if (!line.points.empty())
        line.points.emplace_back(x, best);
      line.points.emplace_back(x, y);
      best = y;
    }
  if (line.points.size() > 1)
    c.lines.push_back(line);
  return svg::renderScatter(c);
}
} // namespace

void rt::writeSweepHtml(const SweepSpec &spec, llvm::ArrayRef<PointResult> rs,
                        llvm::raw_ostream &os) {
  size_t ok = 0, pareto = 0;
  for (const PointResult &r : rs) {
    ok += r.status == "ok";
    pareto += r.pareto;
  }
  os << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>"
     << svg::escape("Systole sweep: " + spec.model) << "</title>\n"
     << svg::pageStyle() << "</head>\n<body>\n<h1>Sweep: "
     << svg::escape(llvm::sys::path::filename(spec.model)) << "</h1>\n";
  os << formatv("<p id=\"sweep-summary\">{0} of {1} points done ({2} mapped, "
                "{3} on the Pareto front of latency, energy and area); mode "
                "{4}; base config {5}. Colour: area (blue small, red large); "
                "large outlined points: Pareto front.</p>\n",
                rs.size(), spec.size(), ok, pareto, svg::escape(spec.mode),
                svg::escape(spec.base.name));
  os << scatter(rs, "pareto-energy-chart", "Latency vs energy", "energy (uJ)",
                true)
     << scatter(rs, "pareto-area-chart", "Latency vs area", "area (mm2)",
                false);
  os << "<h2>Points</h2>\n<table id=\"points\"><tr><th>#</th><th>array</th>"
        "<th>SP KiB</th><th>B/cycle</th><th>status</th><th>cycles</th>"
        "<th>us</th><th>MAC util.</th><th>energy uJ</th><th>DRAM %</th>"
        "<th>area mm2</th><th>Pareto</th></tr>\n";
  for (const PointResult &r : rs)
    os << formatv("<tr{0}><td>{1}</td><td>{2}x{3}</td><td>{4}</td><td>{5}"
                  "</td><td title=\"{6}\">{7}</td><td>{8}</td><td>{9:f1}</td>"
                  "<td>{10:f1}%</td><td>{11:f1}</td><td>{12:f0}</td>"
                  "<td>{13:f2}</td><td>{14}</td></tr>\n",
                  r.pareto ? " class=\"pareto-row\"" : "", r.point.index,
                  r.point.rows, r.point.cols, r.point.scratchpadBytes / 1024,
                  r.point.dramBytesPerCycle, svg::escape(r.message), r.status,
                  r.cycles, r.timeUs, 100 * r.macUtilization, r.energyPj / 1e6,
                  r.energyPj > 0 ? 100 * r.energyDramPj / r.energyPj : 0.0,
                  r.areaMm2, r.pareto ? "yes" : "");
  os << "</table>\n";
  os << svg::pageEnd("sweep-point", "data-rendered-pareto", "circle.pareto");
}
