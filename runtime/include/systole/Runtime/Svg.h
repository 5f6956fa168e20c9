//===- Svg.h - Inline SVG charts for self-contained HTML reports -*- C++
//-*-===//
//
// Two chart kinds are enough for the report and the sweep page: a scatter
// plot (linear or log axes, optional polylines such as roofline ceilings)
// and horizontal stacked bars. Output is plain SVG text, no scripts, so a
// page works offline and in any browser.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_RUNTIME_SVG_H
#define SYSTOLE_RUNTIME_SVG_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>
#include <vector>

namespace systole::rt::svg {

std::string escape(llvm::StringRef text);

struct ScatterPoint {
  double x = 0, y = 0;
  std::string label; ///< tooltip (<title>)
  std::string cssClass = "point";
  std::string color = "#1f77b4";
  double radius = 4;
};
struct Polyline {
  std::vector<std::pair<double, double>> points;
  std::string color = "#444";
  std::string label;
  bool dashed = false;
};
struct Scatter {
  std::string id, title, xLabel, yLabel;
  bool logX = false, logY = false;
  std::vector<ScatterPoint> points;
  std::vector<Polyline> lines;
  int width = 760, height = 440;
};
std::string renderScatter(const Scatter &chart);

struct StackedBars {
  std::string id, title, valueLabel;
  std::vector<std::string> categories;     ///< one bar each
  std::vector<std::string> series;         ///< one segment each
  std::vector<std::string> colors;         ///< per series
  std::vector<std::vector<double>> values; ///< [category][series]
  int width = 760;
  int barHeight = 14;
};
std::string renderStackedBars(const StackedBars &chart);

/// Shared <style> for pages that embed these charts.
llvm::StringRef pageStyle();

/// The end of such a page: a script that, once the page has loaded, records
/// on <body> how many charts and `pointClass` circles really rendered
/// (data-rendered-charts, data-rendered-points) and how many elements match
/// `countSelector` (`countAttr`), which the HTML tests read in a headless
/// DOM; then </body></html>.
std::string pageEnd(llvm::StringRef pointClass, llvm::StringRef countAttr,
                    llvm::StringRef countSelector);

} // namespace systole::rt::svg

#endif // SYSTOLE_RUNTIME_SVG_H
