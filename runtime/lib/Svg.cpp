//===- Svg.cpp - Scatter plots and stacked bars as inline SVG -------------===//
#include "systole/Runtime/Svg.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace systole::rt;
using llvm::formatv;

std::string svg::escape(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

namespace {
/// One axis: data range to pixels, linear or log10, with tick values.
struct Axis {
  bool log;
  double lo, hi; // data range (log10 of it for log axes)
  double p0, p1; // pixel range
  static Axis fit(std::vector<double> v, bool log, double p0, double p1) {
    Axis a{log, 0, 1, p0, p1};
    if (log)
      v.erase(
          std::remove_if(v.begin(), v.end(), [](double x) { return !(x > 0); }),
          v.end());
    if (v.empty())
      return a;
    auto [mn, mx] = std::minmax_element(v.begin(), v.end());
    double lo = *mn, hi = *mx;
    if (log) {
      a.lo = std::floor(std::log10(lo));
      a.hi = std::ceil(std::log10(hi));
      if (a.hi <= a.lo)
        a.hi = a.lo + 1;
    } else {
      double pad = (hi - lo) * 0.05;
      if (pad == 0)
        pad = std::max(1.0, std::abs(hi) * 0.1);
      a.lo = std::min(0.0, lo - pad);
      a.hi = hi + pad;
    }
    return a;
  }
  bool visible(double x) const { return !log || x > 0; }
  double map(double x) const {
    double t = log ? std::log10(x) : x;
    return p0 + (t - lo) / (hi - lo) * (p1 - p0);
  }
  std::vector<double> ticks() const {
    std::vector<double> t;
    if (log) {
      for (double e = lo; e <= hi + 1e-9; e += 1)
        t.push_back(std::pow(10.0, e));
      return t;
    }
    double span = hi - lo, step = std::pow(10.0, std::floor(std::log10(span)));
    if (span / step < 4)
      step /= 2;
    for (double x = std::ceil(lo / step) * step; x <= hi + 1e-9; x += step)
      t.push_back(x);
    return t;
  }
};

std::string tickLabel(double v) {
  double a = std::abs(v);
  if (a >= 1e9)
    return formatv("{0:g}G", v / 1e9).str();
  if (a >= 1e6)
    return formatv("{0:g}M", v / 1e6).str();
  if (a >= 1e4)
    return formatv("{0:g}k", v / 1e3).str();
  return formatv("{0:g}", v).str();
}
} // namespace

std::string svg::renderScatter(const Scatter &c) {
  const double left = 70, right = 20, top = 36, bottom = 50;
  std::vector<double> xs, ys;
  for (const ScatterPoint &p : c.points) {
    xs.push_back(p.x);
    ys.push_back(p.y);
  }
  for (const Polyline &l : c.lines)
    for (auto [x, y] : l.points) {
      xs.push_back(x);
      ys.push_back(y);
    }
  Axis X = Axis::fit(xs, c.logX, left, c.width - right);
  Axis Y = Axis::fit(ys, c.logY, c.height - bottom, top);
  std::string s = formatv("<svg id=\"{0}\" class=\"chart\" "
                          "xmlns=\"http://www.w3.org/2000/svg\" width=\"{1}\" "
                          "height=\"{2}\" viewBox=\"0 0 {1} {2}\">\n",
                          escape(c.id), c.width, c.height)
                      .str();
  s += formatv("<text x=\"{0}\" y=\"20\" class=\"title\">{1}</text>\n", left,
               escape(c.title));
  s += formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" "
               "class=\"frame\"/>\n",
               left, top, c.width - left - right, c.height - top - bottom);
  for (double t : X.ticks()) {
    double px = X.map(t);
    s += formatv("<line x1=\"{0:f1}\" y1=\"{1}\" x2=\"{0:f1}\" y2=\"{2}\" "
                 "class=\"grid\"/><text x=\"{0:f1}\" y=\"{3}\" "
                 "class=\"tick\" text-anchor=\"middle\">{4}</text>\n",
                 px, top, c.height - bottom, c.height - bottom + 16,
                 tickLabel(t));
  }
  for (double t : Y.ticks()) {
    double py = Y.map(t);
    s += formatv("<line x1=\"{0}\" y1=\"{1:f1}\" x2=\"{2}\" y2=\"{1:f1}\" "
                 "class=\"grid\"/><text x=\"{3}\" y=\"{4:f1}\" class=\"tick\" "
                 "text-anchor=\"end\">{5}</text>\n",
                 left, py, c.width - right, left - 6, py + 4, tickLabel(t));
  }
  s += formatv("<text x=\"{0}\" y=\"{1}\" class=\"label\" "
               "text-anchor=\"middle\">{2}</text>\n",
               (left + c.width - right) / 2, c.height - 12, escape(c.xLabel));
  s +=
      formatv("<text x=\"16\" y=\"{0}\" class=\"label\" text-anchor=\"middle\" "
              "transform=\"rotate(-90 16 {0})\">{1}</text>\n",
              (top + c.height - bottom) / 2, escape(c.yLabel));
  for (const Polyline &l : c.lines) {
    std::string pts;
    for (auto [x, y] : l.points)
      if (X.visible(x) && Y.visible(y))
        pts += formatv("{0:f1},{1:f1} ", X.map(x), Y.map(y)).str();
    s += formatv("<polyline class=\"ceiling\" points=\"{0}\" fill=\"none\" "
                 "stroke=\"{1}\" stroke-width=\"2\"{2}><title>{3}</title>"
                 "</polyline>\n",
                 pts, l.color, l.dashed ? " stroke-dasharray=\"6 4\"" : "",
                 escape(l.label));
  }
  for (const ScatterPoint &p : c.points) {
    if (!X.visible(p.x) || !Y.visible(p.y))
      continue;
    s += formatv("<circle class=\"{0}\" cx=\"{1:f1}\" cy=\"{2:f1}\" r=\"{3}\" "
                 "fill=\"{4}\" fill-opacity=\"0.8\"><title>{5}</title>"
                 "</circle>\n",
                 escape(p.cssClass), X.map(p.x), Y.map(p.y), p.radius, p.color,
                 escape(p.label));
  }
  s += "</svg>\n";
  return s;
}

std::string svg::renderStackedBars(const StackedBars &c) {
  const double left = 190, right = 20, top = 56;
  double maxTotal = 0;
  for (const auto &row : c.values) {
    double t = 0;
    for (double v : row)
      t += v;
    maxTotal = std::max(maxTotal, t);
  }
  if (maxTotal <= 0)
    maxTotal = 1;
  int height = int(top + c.categories.size() * (c.barHeight + 4) + 30);
  double plotW = c.width - left - right;
  std::string s = formatv("<svg id=\"{0}\" class=\"chart\" "
                          "xmlns=\"http://www.w3.org/2000/svg\" width=\"{1}\" "
                          "height=\"{2}\" viewBox=\"0 0 {1} {2}\">\n",
                          escape(c.id), c.width, height)
                      .str();
  s += formatv("<text x=\"10\" y=\"20\" class=\"title\">{0}</text>\n",
               escape(c.title));
  double lx = 10;
  for (size_t k = 0; k < c.series.size(); ++k) {
    s += formatv("<rect x=\"{0}\" y=\"30\" width=\"12\" height=\"12\" "
                 "fill=\"{1}\"/><text x=\"{2}\" y=\"41\" class=\"tick\">{3}"
                 "</text>\n",
                 lx, c.colors[k], lx + 16, escape(c.series[k]));
    lx += 24 + 7.5 * c.series[k].size();
  }
  s += formatv("<text x=\"{0}\" y=\"41\" class=\"tick\">{1} (max {2})</text>\n",
               lx + 10, escape(c.valueLabel), tickLabel(maxTotal));
  for (size_t i = 0; i < c.categories.size(); ++i) {
    double y = top + i * (c.barHeight + 4);
    s += formatv("<text x=\"{0}\" y=\"{1:f1}\" class=\"tick\" "
                 "text-anchor=\"end\">{2}</text>\n",
                 left - 6, y + c.barHeight - 3,
                 escape(llvm::StringRef(c.categories[i]).take_back(28)));
    double x = left;
    for (size_t k = 0; k < c.series.size() && k < c.values[i].size(); ++k) {
      double w = c.values[i][k] / maxTotal * plotW;
      if (w <= 0)
        continue;
      s += formatv("<rect class=\"bar\" x=\"{0:f2}\" y=\"{1:f1}\" "
                   "width=\"{2:f2}\" height=\"{3}\" fill=\"{4}\"><title>{5}: "
                   "{6} {7:g}</title></rect>\n",
                   x, y, w, c.barHeight, c.colors[k], escape(c.categories[i]),
                   escape(c.series[k]), c.values[i][k]);
      x += w;
    }
  }
  s += "</svg>\n";
  return s;
}

llvm::StringRef svg::pageStyle() {
  return R"(<style>
body { font-family: sans-serif; margin: 24px; color: #222; }
table { border-collapse: collapse; font-size: 13px; }
td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
th { background: #f0f0f0; }
td:first-child, th:first-child { text-align: left; }
.chart { display: block; margin: 16px 0; }
.chart .title { font-size: 15px; font-weight: bold; }
.chart .tick { font-size: 11px; fill: #333; }
.chart .label { font-size: 12px; }
.chart .frame { fill: none; stroke: #888; }
.chart .grid { stroke: #e4e4e4; }
.pareto { stroke: #000; stroke-width: 1.5; }
</style>
)";
}

std::string svg::pageEnd(llvm::StringRef pointClass, llvm::StringRef countAttr,
                         llvm::StringRef countSelector) {
  return llvm::formatv(R"(<script>
window.addEventListener('load', function () {{
  var charts = document.querySelectorAll('svg.chart'), drawn = 0;
  charts.forEach(function (s) {{ var b = s.getBBox(); if (b.width > 0 && b.height > 0) drawn++; });
  document.body.setAttribute('data-rendered-charts', String(drawn));
  var pts = 0;
  document.querySelectorAll('circle.{0}').forEach(function (c) {{
    if (c.getBoundingClientRect().width > 0) pts++; });
  document.body.setAttribute('data-rendered-points', String(pts));
  document.body.setAttribute('{1}', String(document.querySelectorAll('{2}').length));
});
</script>
</body></html>
)",
                       pointClass, countAttr, countSelector)
      .str();
}
