//===- Module.cpp - pybind11 module `systole._systole` --------------------===//
//
// Conversions only: numpy arrays <-> HostTensor, Python containers <-> the
// plain structs of Api.h. The user-facing classes are in systole/__init__.py.
//
//===----------------------------------------------------------------------===//
#include "Api.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>

namespace py = pybind11;
using namespace systole;
using namespace systole::pyapi;

/// numpy dtype -> element type; nullopt for dtypes the runtime has no name
/// for (complex, strings, objects).
static std::optional<ElementType> elementTypeOf(const py::dtype &dt) {
  char kind = dt.kind();
  size_t size = dt.itemsize();
  if (kind == 'b' && size == 1)
    return ElementType::Bool;
  if (kind == 'i')
    switch (size) {
    case 1:
      return ElementType::Int8;
    case 2:
      return ElementType::Int16;
    case 4:
      return ElementType::Int32;
    case 8:
      return ElementType::Int64;
    }
  if (kind == 'u')
    switch (size) {
    case 1:
      return ElementType::UInt8;
    case 2:
      return ElementType::UInt16;
    case 4:
      return ElementType::UInt32;
    case 8:
      return ElementType::UInt64;
    }
  if (kind == 'f')
    switch (size) {
    case 2:
      return ElementType::Float16;
    case 4:
      return ElementType::Float32;
    case 8:
      return ElementType::Float64;
    }
  return std::nullopt;
}

static HostTensor toHostTensor(const std::string &name, py::handle value) {
  auto arr = py::array::ensure(value, py::array::c_style);
  if (!arr)
    throw std::runtime_error("input '" + name +
                             "': not convertible to a "
                             "numpy array");
  auto type = elementTypeOf(arr.dtype());
  if (!type)
    throw std::runtime_error("input '" + name + "': numpy dtype " +
                             std::string(py::str(arr.dtype())) +
                             " has no runtime element type");
  std::vector<int64_t> shape(arr.shape(), arr.shape() + arr.ndim());
  HostTensor t(*type, shape);
  if (t.byteSize() != size_t(arr.nbytes()))
    throw std::runtime_error("input '" + name + "': unexpected byte size");
  std::memcpy(t.data(), arr.data(), t.byteSize());
  return t;
}

static py::array toNumpy(const HostTensor &t) {
  // bfloat16 has no numpy type: its 16 bits come back as uint16.
  const char *name =
      t.type() == ElementType::BFloat16 ? "uint16" : elementTypeName(t.type());
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  return py::array(py::dtype(name), shape, t.data()); // copies
}

static std::map<std::string, HostTensor> toInputs(const py::dict &inputs) {
  std::map<std::string, HostTensor> out;
  for (auto [k, v] : inputs) {
    std::string name = py::str(k);
    out[name] = toHostTensor(name, v);
  }
  return out;
}

static py::dict toDict(const std::map<std::string, HostTensor> &tensors) {
  py::dict d;
  for (const auto &[name, t] : tensors)
    d[py::str(name)] = toNumpy(t);
  return d;
}

PYBIND11_MODULE(_systole, m) {
  m.doc() = "Systole compiler and runtime (see the systole package)";
  static py::exception<std::runtime_error> error(m, "Error",
                                                 PyExc_RuntimeError);
  py::register_local_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const std::runtime_error &e) {
      error(e.what());
    }
  });

  py::class_<Program, std::shared_ptr<Program>>(m, "_Program")
      .def_static("load", &Program::load, py::arg("path"),
                  py::call_guard<py::gil_scoped_release>())
      .def_static(
          "from_bytes",
          [](py::bytes b) { return Program::fromBytes(std::string(b)); },
          py::arg("data"))
      .def("save", &Program::save, py::arg("path"))
      .def("to_bytes", [](const Program &p) { return py::bytes(p.bytes()); })
      .def("report_json", &Program::reportJson)
      .def("tensors_json", &Program::tensorsJson, py::arg("which"))
      .def("layers_json", &Program::layersJson)
      .def("hw_json", &Program::hwJson)
      .def("compile_seconds", &Program::compileSeconds)
      .def(
          "run",
          [](const Program &p, const py::dict &inputs,
             const std::string &backend, uint64_t maxCycles, bool dumpTensors) {
            RunArgs args;
            args.inputs = toInputs(inputs);
            args.backend = backend;
            args.maxCycles = maxCycles;
            args.dumpTensors = dumpTensors;
            RunOutput out;
            {
              py::gil_scoped_release release;
              out = p.run(args);
            }
            return py::make_tuple(toDict(out.outputs), toDict(out.tensors),
                                  out.statsJson, out.analysisJson);
          },
          py::arg("inputs"), py::arg("backend"), py::arg("max_cycles"),
          py::arg("dump_tensors"))
      .def(
          "analyze",
          [](const Program &p, const std::string &mode, const py::dict &in) {
            auto inputs = toInputs(in);
            py::gil_scoped_release release;
            return p.analyze(mode, inputs);
          },
          py::arg("mode"), py::arg("inputs"));

  m.def(
      "compile",
      [](const std::string &model, const std::string &hw,
         const std::string &hwJson,
         const std::map<std::string, std::vector<int64_t>> &inputShapes,
         bool reuseDram, const std::string &hostTarget,
         const std::string &gpuArch) {
        CompileArgs args;
        args.model = model;
        args.hw = hw;
        args.hwJson = hwJson;
        args.inputShapes = inputShapes;
        args.reuseDram = reuseDram;
        args.hostTarget = hostTarget;
        args.gpuArch = gpuArch;
        py::gil_scoped_release release;
        return Program::compile(args);
      },
      py::arg("model"), py::arg("hw"), py::arg("hw_json"),
      py::arg("input_shapes"), py::arg("reuse_dram"), py::arg("host_target"),
      py::arg("gpu_arch"));
  // Where the tree and the build are, for systole.compare (the ORT runner
  // tools/ort/ort_run.js and its npm package build/ort).
  m.def("source_dir", [] { return std::string(SYSTOLE_SOURCE_DIR); });
  m.def("binary_dir", [] { return std::string(SYSTOLE_BINARY_DIR); });
  m.def("presets", &presets);
  m.def("parse_hw_config", &parseHwConfig, py::arg("json_text"));
  m.def("resolve_hw_config", &resolveHwConfig, py::arg("name_or_path"));
  m.def(
      "sweep",
      [](const std::string &model, const std::string &hw,
         const std::string &hwJson, const std::string &arrays,
         const std::string &srams, const std::string &bws,
         const std::string &mode, const std::string &out, unsigned jobs,
         const std::vector<std::string> &compileArgs) {
        SweepArgs args;
        args.model = model;
        args.hw = hw;
        args.hwJson = hwJson;
        args.arrays = arrays;
        args.srams = srams;
        args.dramBandwidths = bws;
        args.mode = mode;
        args.out = out;
        args.jobs = jobs;
        args.compileArgs = compileArgs;
        py::gil_scoped_release release;
        return sweep(args);
      },
      py::arg("model"), py::arg("hw"), py::arg("hw_json"), py::arg("arrays"),
      py::arg("srams"), py::arg("dram_bw"), py::arg("mode"), py::arg("out"),
      py::arg("jobs"), py::arg("compile_args"));
}
