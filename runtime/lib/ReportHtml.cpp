//===- ReportHtml.cpp - Self-contained HTML page of a run's analysis ------===//
//
// One file, no external resources: summary, roofline (one point per layer),
// per-layer cycle breakdown and energy breakdown as inline SVG. A few lines of
// script record what the browser actually laid out (`data-rendered-*` on
// <body>), which the headless-Chromium test reads back from the DOM.
//
//===----------------------------------------------------------------------===//
#include "systole/Runtime/Analysis.h"
#include "systole/Runtime/Svg.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace systole;
using namespace systole::rt;
using llvm::formatv;

namespace {
const char *kComputeColor = "#2ca02c", *kDmaColor = "#1f77b4",
           *kStallColor = "#d62728";
const char *kEnergyColors[] = {"#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                               "#1f77b4", "#e377c2", "#7f7f7f"};
const char *kEnergyNames[] = {"array", "vector", "scratchpad", "accumulator",
                              "dram",  "host",   "leakage"};

std::vector<double> energyValues(const EnergyBreakdown &e) {
  return {e.array, e.vector, e.scratchpad, e.accumulator,
          e.dram,  e.host,   e.leakage};
}

std::string rooflineChart(const ModelAnalysis &a) {
  svg::Scatter c;
  c.id = "roofline-chart";
  c.title = "Roofline: achieved vs attainable throughput per layer";
  c.xLabel = "operational intensity (ops per DRAM byte)";
  c.yLabel = "ops per cycle";
  c.logX = c.logY = true;
  double xmin = 1e9, xmax = 0;
  for (const LayerAnalysis &l : a.layers) {
    if (!(l.roof.intensity > 0) || !(l.roof.achieved > 0))
      continue;
    xmin = std::min(xmin, l.roof.intensity);
    xmax = std::max(xmax, l.roof.intensity);
    svg::ScatterPoint p;
    p.x = l.roof.intensity;
    p.y = l.roof.achieved;
    p.cssClass = "layer-point";
    p.color = l.roof.vector ? "#ff7f0e" : "#1f77b4";
    p.label =
        formatv("{0}: {1:g} ops/B, {2:g} of {3:g} ops/cycle ({4}-bound "
                "on the {5})",
                l.name, l.roof.intensity, l.roof.achieved, l.roof.attainable,
                l.roof.computeBound ? "compute" : "memory",
                l.roof.vector ? "vector unit" : "array")
            .str();
    c.points.push_back(p);
  }
  double peak = double(a.config.array.rows * a.config.array.cols);
  double lanes = double(a.config.vector.lanes);
  double bw = double(a.config.dram.bytesPerCycle);
  if (xmax == 0) {
    xmin = 0.1;
    xmax = 10 * peak / bw;
  }
  xmin = std::min(xmin, lanes / bw) / 2;
  xmax = std::max(xmax, peak / bw) * 2;
  auto ceiling = [&](double top, const char *color, const char *label,
                     bool dashed) {
    svg::Polyline l;
    l.color = color;
    l.label = label;
    l.dashed = dashed;
    double ridge = top / bw;
    l.points = {{xmin, xmin * bw}, {ridge, top}, {xmax, top}};
    if (ridge <= xmin)
      l.points = {{xmin, top}, {xmax, top}};
    c.lines.push_back(l);
  };
  ceiling(peak, "#1f77b4", "array: rows x cols MACs/cycle", false);
  ceiling(lanes, "#ff7f0e", "vector unit: lanes ops/cycle", true);
  if (a.roof.achieved > 0 && a.roof.intensity > 0) {
    svg::ScatterPoint m;
    m.x = a.roof.intensity;
    m.y = a.roof.achieved;
    m.cssClass = "model-point";
    m.color = "#d62728";
    m.radius = 7;
    m.label =
        formatv("whole model: {0:g} MACs/B, {1:g} MACs/cycle", m.x, m.y).str();
    c.points.push_back(m);
  }
  return svg::renderScatter(c);
}

std::string cycleChart(const ModelAnalysis &a) {
  svg::StackedBars b;
  b.id = "cycle-breakdown-chart";
  b.title = "Cycles per layer: compute busy, DMA only, stall";
  b.valueLabel = "cycles";
  b.series = {"compute", "dma", "stall"};
  b.colors = {kComputeColor, kDmaColor, kStallColor};
  for (const LayerAnalysis &l : a.layers) {
    b.categories.push_back(l.name);
    b.values.push_back({double(l.breakdown.compute), double(l.breakdown.dma),
                        double(l.breakdown.stall)});
  }
  return svg::renderStackedBars(b);
}

std::string energyChart(const ModelAnalysis &a) {
  svg::StackedBars b;
  b.id = "energy-chart";
  b.title = "Energy per layer and component";
  b.valueLabel = "pJ";
  b.series.assign(std::begin(kEnergyNames), std::end(kEnergyNames));
  b.colors.assign(std::begin(kEnergyColors), std::end(kEnergyColors));
  for (const LayerAnalysis &l : a.layers) {
    b.categories.push_back(l.name);
    b.values.push_back(energyValues(l.energy));
  }
  return svg::renderStackedBars(b);
}

std::string energyTotalChart(const ModelAnalysis &a) {
  svg::StackedBars b;
  b.id = "energy-total-chart";
  b.title = "Energy of the whole model by component";
  b.valueLabel = "pJ";
  b.barHeight = 28;
  b.series.assign(std::begin(kEnergyNames), std::end(kEnergyNames));
  b.colors.assign(std::begin(kEnergyColors), std::end(kEnergyColors));
  b.categories = {"total"};
  b.values = {energyValues(a.energy)};
  return svg::renderStackedBars(b);
}
} // namespace

void rt::writeAnalysisHtml(const ModelAnalysis &a, llvm::raw_ostream &os) {
  const isa::HwConfig &c = a.config;
  os << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>"
     << svg::escape("Systole report: " + a.model) << "</title>\n"
     << svg::pageStyle() << "</head>\n<body>\n";
  os << "<h1>" << svg::escape(a.model) << " on " << svg::escape(c.name)
     << "</h1>\n<table id=\"summary\">\n";
  auto row = [&](llvm::StringRef k, const std::string &v) {
    os << "<tr><th>" << svg::escape(k) << "</th><td>" << svg::escape(v)
       << "</td></tr>\n";
  };
  row("backend", a.backend);
  row("array", formatv("{0}x{1}", c.array.rows, c.array.cols));
  row("scratchpad / accumulator",
      formatv("{0} KiB / {1} KiB", c.sram.scratchpadBytes / 1024,
              c.sram.accumulatorBytes / 1024));
  row("DRAM", formatv("{0} B/cycle, latency {1}", c.dram.bytesPerCycle,
                      c.dram.latencyCycles));
  row("total cycles", formatv("{0} ({1:f1} us at {2} MHz)", a.totalCycles,
                              a.timeUs(), c.clockMhz));
  row("MACs", formatv("{0}", a.actions.macs));
  row("roofline bound",
      formatv("{0:f0} cycles ({1}-bound), cycles / bound = "
              "{2:f2}",
              a.roof.boundCycles, a.roof.computeBound ? "compute" : "memory",
              a.roof.boundCycles > 0
                  ? double(a.totalCycles) / a.roof.boundCycles
                  : 0.0));
  row("cycles: compute / DMA only / stall",
      formatv("{0} / {1} / {2}", a.breakdown.compute, a.breakdown.dma,
              a.breakdown.stall));
  row("energy", formatv("{0:f1} uJ", a.energy.total() / 1e6));
  os << "</table>\n";
  os << rooflineChart(a) << cycleChart(a) << energyTotalChart(a)
     << energyChart(a);
  os << "<h2>Layers</h2>\n<table id=\"layers\"><tr><th>layer</th><th>cycles"
        "</th><th>MACs</th><th>DRAM bytes</th><th>ops/byte</th><th>achieved"
        "</th><th>attainable</th><th>bound</th><th>energy pJ</th></tr>\n";
  for (const LayerAnalysis &l : a.layers)
    os << formatv("<tr><td>{0}</td><td>{1}</td><td>{2}</td><td>{3:f0}</td>"
                  "<td>{4:f2}</td><td>{5:f1}</td><td>{6:f1}</td><td>{7}</td>"
                  "<td>{8:f0}</td></tr>\n",
                  svg::escape(l.name), l.endCycle - l.startCycle,
                  l.actions.macs, l.roof.dramBytes, l.roof.intensity,
                  l.roof.achieved, l.roof.attainable,
                  l.roof.computeBound ? "compute" : "memory", l.energy.total());
  os << "</table>\n";
  os << svg::pageEnd("layer-point", "data-rendered-bars", "rect.bar");
}
