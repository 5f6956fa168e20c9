"""Systole from Python: compile quantized ONNX models for the NPU, run them,
read their reports, sweep hardware configurations (docs/python.md).

Every function calls the same C++ library functions as the `systole` CLI
(through the extension module `_systole`); errors are `systole.Error` with
the compiler's or runtime's message.
"""

import copy
import json
import os
import tempfile

import numpy as np

from . import _systole
from ._systole import Error

__all__ = [
    "Error",
    "HwConfig",
    "Program",
    "RunResult",
    "compare",
    "compile",
    "load",
    "presets",
    "run",
    "sweep",
]


class HwConfig:
    """A validated hardware configuration (docs/hwconfig.md), held as the
    canonical JSON the compiler writes. Fields are read like a dict:
    ``cfg["array"]["rows"]``; change a copy with `to_dict` and build a new
    one with `HwConfig(d)` (the constructor validates)."""

    def __init__(self, data):
        if isinstance(data, HwConfig):
            data = data._data
        if not isinstance(data, dict):
            raise TypeError("HwConfig(data): data must be a dict, not "
                            + type(data).__name__)
        self._data = json.loads(_systole.parse_hw_config(json.dumps(data)))

    @classmethod
    def from_json(cls, text):
        """From JSON text, or from a file if `text` names one."""
        if os.path.isfile(text):
            with open(text, encoding="utf-8") as f:
                text = f.read()
        return cls._from_canonical(_systole.parse_hw_config(text))

    @classmethod
    def preset(cls, name):
        """A bundled preset (see `presets()`) or a config file."""
        return cls._from_canonical(_systole.resolve_hw_config(name))

    @classmethod
    def _from_canonical(cls, text):
        cfg = cls.__new__(cls)
        cfg._data = json.loads(text)
        return cfg

    def to_json(self, indent=2):
        return json.dumps(self._data, indent=indent)

    def to_dict(self):
        return copy.deepcopy(self._data)

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json() + "\n")

    @property
    def name(self):
        return self._data.get("name", "")

    def __getitem__(self, key):
        return copy.deepcopy(self._data[key])

    def __eq__(self, other):
        return isinstance(other, HwConfig) and self._data == other._data

    def __repr__(self):
        a = self._data.get("array", {})
        return "HwConfig(%r, %sx%s)" % (self.name, a.get("rows"),
                                        a.get("cols"))


def _hw_args(hw):
    """(name or path, JSON text) for the C++ side."""
    if isinstance(hw, HwConfig):
        return "", hw.to_json()
    if isinstance(hw, dict):
        return "", HwConfig(hw).to_json()
    if isinstance(hw, (str, os.PathLike)):
        return os.fspath(hw), ""
    raise TypeError("hw must be a preset name, a file, a dict or a HwConfig,"
                    " not " + type(hw).__name__)


class RunResult:
    """What `Program.run` returns.

    outputs   {name: numpy array}, in the model's output order
    tensors   {name: numpy array} of every non-constant tensor of the binary
              (run with dump_tensors=True; compile with reuse_dram=False so
              no intermediate is overwritten)
    stats     the `systole run --report` JSON (cycles, utilization, DRAM and
              SRAM traffic, stalls, per-layer breakdown) as a dict
    analysis  the `systole report --json` JSON (roofline, energy, cycle
              breakdown, per layer) as a dict
    energy    analysis["energy_pj"]: picojoules per component and total
    roofline  analysis["roofline"]: the model's roofline position
    """

    def __init__(self, outputs, tensors, stats, analysis):
        self.outputs = outputs
        self.tensors = tensors
        self.stats = stats
        self.analysis = analysis
        self.energy = analysis.get("energy_pj", {})
        self.roofline = analysis.get("roofline", {})

    @property
    def cycles(self):
        return self.analysis.get("total_cycles", 0)

    def __repr__(self):
        return "RunResult(outputs=%s, cycles=%d)" % (
            {k: "%s%s" % (v.dtype, list(v.shape))
             for k, v in self.outputs.items()}, self.cycles)


class Program:
    """A compiled, verified .npu loaded into the runtime."""

    def __init__(self, core):
        self._core = core

    @classmethod
    def load(cls, path):
        """Loads (and verifies) a .npu file."""
        return cls(_systole._Program.load(os.fspath(path)))

    @classmethod
    def from_bytes(cls, data):
        return cls(_systole._Program.from_bytes(bytes(data)))

    def save(self, path):
        """Writes the .npu file (the compile report is not part of it)."""
        self._core.save(os.fspath(path))

    def to_bytes(self):
        return self._core.to_bytes()

    @property
    def report(self):
        """The compile report (`systole compile --report`) as a dict, None
        for a loaded binary."""
        return json.loads(self._core.report_json())

    @property
    def compile_seconds(self):
        return self._core.compile_seconds()

    @property
    def inputs(self):
        return json.loads(self._core.tensors_json("inputs"))

    @property
    def outputs(self):
        return json.loads(self._core.tensors_json("outputs"))

    @property
    def tensors(self):
        """Every tensor of the binary: name, kind, dtype, shape, quant, DRAM
        offset and size."""
        return json.loads(self._core.tensors_json("all"))

    @property
    def layers(self):
        return json.loads(self._core.layers_json())

    @property
    def hw(self):
        return HwConfig._from_canonical(self._core.hw_json())

    def _bind(self, inputs):
        if isinstance(inputs, np.ndarray):
            ins = self.inputs
            if len(ins) != 1:
                raise Error("the model has %d inputs; pass a dict name -> "
                            "array" % len(ins))
            inputs = {ins[0]["name"]: inputs}
        if not isinstance(inputs, dict):
            raise TypeError("inputs must be a dict name -> numpy array")
        return inputs

    def run(self, inputs, backend="cycle", max_cycles=0,
            dump_tensors=False):
        """Runs the program: NPU segments on `backend` (functional, cycle
        or rtl), host segments on the host. `inputs` maps input names to
        arrays whose dtype and shape match `self.inputs` exactly."""
        outputs, tensors, stats, analysis = self._core.run(
            self._bind(inputs), backend, int(max_cycles), bool(dump_tensors))
        return RunResult(outputs, tensors, json.loads(stats),
                         json.loads(analysis))

    def analyze(self, mode="estimate", inputs=None):
        """`systole report`: roofline, energy and cycle breakdown as a dict.
        mode estimate needs no inputs (timing does not depend on values)."""
        return json.loads(self._core.analyze(
            mode, self._bind(inputs) if inputs is not None else {}))

    def __repr__(self):
        return "Program(inputs=%s, outputs=%s, hw=%r)" % (
            [i["name"] for i in self.inputs],
            [o["name"] for o in self.outputs], self.hw.name)


_COMPILE_OPTIONS = ("input_shapes", "reuse_dram", "host_target", "gpu_arch")


def compile(model, hw="default-32x32", **options):
    """Compiles an ONNX model (a path) for `hw` (preset name, config file,
    dict or HwConfig). Options, as the `systole compile` flags:

    input_shapes  {input name: shape}, overrides symbolic/batch dimensions
    reuse_dram    False keeps every intermediate tensor readable after a run
                  (--no-dram-reuse; `compare` needs it)
    host_target   "cpu" (default), "gpu" or "gpu-emulation"
    gpu_arch      PTX target for host_target="gpu" (default sm_75)
    """
    unknown = sorted(set(options) - set(_COMPILE_OPTIONS))
    if unknown:
        raise TypeError("compile(): unknown option(s) %s; known: %s" %
                        (", ".join(unknown), ", ".join(_COMPILE_OPTIONS)))
    shapes = {str(k): [int(d) for d in v]
              for k, v in (options.get("input_shapes") or {}).items()}
    hw_name, hw_json = _hw_args(hw)
    return Program(_systole.compile(
        os.fspath(model), hw_name, hw_json, shapes,
        bool(options.get("reuse_dram", True)),
        options.get("host_target", "cpu"), options.get("gpu_arch", "sm_75")))


def load(path):
    """Loads a .npu file: `Program.load`."""
    return Program.load(path)


def run(program, inputs, backend="cycle", **kwargs):
    """Runs a Program (or a .npu path); see `Program.run`."""
    if not isinstance(program, Program):
        program = Program.load(program)
    return program.run(inputs, backend=backend, **kwargs)


def presets():
    """The bundled hardware configurations: {name: HwConfig}."""
    return {name: HwConfig._from_canonical(text)
            for name, text in _systole.presets()}


def _list_arg(values, what):
    if isinstance(values, str):
        return values
    out = []
    for v in values:
        if isinstance(v, (tuple, list)) and len(v) == 2:
            out.append("%dx%d" % (int(v[0]), int(v[1])))
        elif isinstance(v, (int, np.integer)):
            out.append(str(int(v)))
        elif isinstance(v, str):
            out.append(v)
        else:
            raise TypeError("%s: unexpected element %r" % (what, v))
    return ",".join(out)


def sweep(model, arrays, srams, dram_bw, hw="default-32x32",
          mode="estimate", out=None, jobs=None, compile_args=()):
    """`systole sweep`: compiles and simulates every point of arrays x
    srams x dram_bw (other fields from `hw`) and returns one dict per point
    (index, rows, cols, scratchpad_bytes, dram_bytes_per_cycle, status,
    message, cycles, time_us, energy_pj, area_mm2, pareto, ...).

    arrays   ["8x8", (16, 16), ...]   srams  [262144, "1M", ...]
    dram_bw  [8, 16, ...] bytes/cycle mode   "estimate" or "cycle"
    out      sweep directory (kept: running again resumes); default a new
             temporary directory
    """
    hw_name, hw_json = _hw_args(hw)
    if out is None:
        out = tempfile.mkdtemp(prefix="systole-sweep-")
    rows = _systole.sweep(
        os.fspath(model), hw_name, hw_json, _list_arg(arrays, "arrays"),
        _list_arg(srams, "srams"), _list_arg(dram_bw, "dram_bw"), mode,
        os.fspath(out), int(jobs or os.cpu_count() or 1),
        [str(a) for a in compile_args])
    return json.loads(rows)


def compare(*args, **kwargs):
    """`systole compare`: see systole.compare.compare."""
    from .compare import compare as _compare
    return _compare(*args, **kwargs)
