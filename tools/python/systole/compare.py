"""`systole compare`: per-layer comparison of a compiled model with ONNX
Runtime (docs/python.md).

ONNX Runtime runs the model with every quantized intermediate tensor exposed
(tools/ort/ort_run.js --int8-outputs, which keeps ORT's QDQ fusion intact);
the binary runs with every tensor read back from DRAM after the run (it must
be compiled with reuse_dram=False / --no-dram-reuse, so no intermediate is
overwritten). Tensors are matched by their ONNX name: the binary's tensor
table keeps the names of the values it stores, and the layout the compiler
chose (NHWC for activations) is undone by trying the transposes that map the
ORT shape onto the binary's. Values the compiler fused away (the inside of a
QDQ group, a ReLU folded into its producer's clamp) have no tensor in the
binary and are not compared.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from . import _systole

__all__ = ["compare", "LayerComparison", "Comparison", "main"]


class LayerComparison:
    """One matched tensor. steps: |difference| in quantization steps (the
    integer difference for int tensors; divided by the scale for float
    tensors with known quantization, else the absolute difference)."""

    def __init__(self, name, node, op_type, shape, layout, count, differing,
                 max_steps, cosine, binary_name=None, max_abs=0.0):
        self.name = name
        self.max_abs = max_abs
        self.binary_name = binary_name
        self.node = node
        self.op_type = op_type
        self.shape = shape
        self.layout = layout
        self.count = count
        self.differing = differing
        self.max_steps = max_steps
        self.cosine = cosine

    @property
    def exact(self):
        return self.differing == 0

    def as_dict(self):
        return dict(name=self.name, binary_name=self.binary_name,
                    node=self.node, op_type=self.op_type,
                    shape=list(self.shape), layout=self.layout,
                    count=self.count, differing=self.differing,
                    max_steps=self.max_steps, max_abs=self.max_abs,
                    cosine=self.cosine)


class Comparison:
    """Result of `compare`: `layers` in the ONNX graph's node order, the first
    one that differs (or None), and the names nobody could match."""

    def __init__(self, layers, unmatched_binary, unmatched_ort):
        self.layers = layers
        self.unmatched_binary = unmatched_binary
        self.unmatched_ort = unmatched_ort

    @property
    def first_difference(self):
        for layer in self.layers:
            if not layer.exact:
                return layer
        return None

    @property
    def exact(self):
        return self.first_difference is None and bool(self.layers)

    def format(self):
        lines = ["%-24s %-14s %-34s %-12s %10s %9s %9s" % (
            "layer", "op", "tensor", "shape", "result", "max steps",
            "cosine")]
        for l in self.layers:
            result = "exact" if l.exact else "%d differ" % l.differing
            lines.append("%-24s %-14s %-34s %-12s %10s %9s %9.6f" % (
                l.node[:24], l.op_type[:14], l.name[:34],
                "x".join(str(d) for d in l.shape)[:12], result,
                _fmt_steps(l), l.cosine))
        first = self.first_difference
        if not self.layers:
            lines.append("no tensor of the binary matched an ORT tensor")
        elif first is None:
            lines.append("all %d compared layers are bit-exact with ONNX "
                         "Runtime" % len(self.layers))
        else:
            lines.append("first layer that differs: %s (%s, tensor %s): %d "
                         "of %d values, max %s steps, cosine %.6f" % (
                             first.node, first.op_type, first.name,
                             first.differing, first.count,
                             _fmt_steps(first), first.cosine))
        if self.unmatched_binary:
            lines.append("binary tensors without an ORT counterpart: " +
                         ", ".join(sorted(self.unmatched_binary)))
        return "\n".join(lines)

    def as_dict(self):
        first = self.first_difference
        return dict(layers=[l.as_dict() for l in self.layers],
                    first_difference=first.node if first else None,
                    first_difference_tensor=first.name if first else None,
                    unmatched_binary=sorted(self.unmatched_binary),
                    unmatched_ort=sorted(self.unmatched_ort))


def _fmt_steps(layer):
    v = layer.max_steps
    if v is None:
        return "abs %.3g" % layer.max_abs
    return "%d" % v if float(v).is_integer() else "%.3g" % v


def _ort_runner():
    runner = os.environ.get("SYSTOLE_ORT_RUN") or os.path.join(
        _systole.source_dir(), "tools", "ort", "ort_run.js")
    if not os.path.isfile(runner):
        raise _systole.Error("ONNX Runtime runner not found: %s" % runner)
    return runner


def run_ort(model, inputs, out_dir):
    """Runs ORT with --int8-outputs; returns {name: array} of every output."""
    node = shutil.which("node")
    if not node:
        raise _systole.Error("`node` not found (Debian package nodejs; "
                             "tools/setup.sh installs it)")
    args = [node, _ort_runner(), os.fspath(model), "--int8-outputs",
            "--out-dir", out_dir, "--quiet"]
    for name, value in inputs.items():
        path = os.path.join(out_dir, "input_%d.npy" % len(args))
        np.save(path, value)
        args += ["--input", "%s=%s" % (name, path)]
    env = dict(os.environ)
    env["SYSTOLE_ORT_DIR"] = os.path.abspath(env.get("SYSTOLE_ORT_DIR") or
                                             os.path.join(
                                                 _systole.binary_dir(), "ort"))
    proc = subprocess.run(args, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise _systole.Error("ONNX Runtime failed on %s: %s" % (
            model, (proc.stderr or proc.stdout).strip()))
    with open(os.path.join(out_dir, "outputs.json"), encoding="utf-8") as f:
        index = json.load(f)["outputs"]
    return {o["name"]: np.load(os.path.join(out_dir, o["file"]))
            for o in index}


# Ops the compiler folds into the producer of a quantized tensor: the int8
# value ORT exposes for a layer is found by following these from the
# layer's node (Conv -> [Relu] -> QuantizeLinear in the QDQ form).
_FOLDED_INTO_PRODUCER = ("QuantizeLinear", "Relu", "Clip")


def _layer_targets(model, available):
    """[(node name, op type, ORT tensor name, ORT name of its first input)]
    in the ONNX graph's node
    order: for each node, the first tensor of `available` reached from its
    outputs through ops the compiler folds into it."""
    import onnx
    m = onnx.load(os.fspath(model), load_external_data=False)
    consumers = {}
    for node in m.graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    producers = {o: n for n in m.graph.node for o in n.output}
    targets = []
    for node in m.graph.node:
        # The quantized tensor feeding the node (through its DQ in the QDQ
        # form): a Flatten/Reshape of an NHWC tensor is compared through it.
        source = node.input[0] if node.input else ""
        dq = producers.get(source)
        if dq is not None and dq.op_type == "DequantizeLinear":
            source = dq.input[0]
        frontier = [o for o in node.output if o]
        found = None
        for _ in range(4):
            hits = [t for t in frontier if t in available]
            if hits:
                found = hits[0]
                break
            nxt = []
            for t in frontier:
                users = consumers.get(t, [])
                if len(users) == 1 and users[0].op_type in _FOLDED_INTO_PRODUCER:
                    nxt += [o for o in users[0].output if o]
            frontier = nxt
        if found:
            targets.append((node.name, node.op_type, found, source))
    return targets


def _binary_by_node(descs):
    """{ONNX node name: [binary tensor names]}; the compiler names a stored
    tensor '<node name>:<what it computes>' (conv2d, pool, quantize, ...)."""
    out = {}
    for name, d in descs.items():
        if d["kind"] in ("constant", "input"):
            continue
        node, sep, _ = name.rpartition(":")
        out.setdefault(node if sep else name, []).append(name)
    return out


_LAYOUT_KINDS = ("reshape", "transpose")
_LAYOUT_OPS = ("Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze")


def _layouts(ort_shape, bin_shape):
    """Permutations p with ort_shape[p] == bin_shape: identity first, then
    NCHW -> NHWC, then any other (small ranks only)."""
    import itertools
    rank = len(ort_shape)
    if rank != len(bin_shape):
        return []
    preferred = [tuple(range(rank))]
    if rank >= 3:
        preferred.append((0,) + tuple(range(2, rank)) + (1,))
    perms = preferred + [p for p in itertools.permutations(range(rank))
                         if p not in preferred] if rank <= 5 else preferred
    return [p for p in perms
            if tuple(ort_shape[i] for i in p) == tuple(bin_shape)]


def _compare_arrays(ref, got, scale):
    """(differing, max steps or None, max |difference|, cosine)."""
    r = ref.astype(np.float64).ravel()
    g = got.astype(np.float64).ravel()
    diff = np.abs(r - g)
    differing = int(np.count_nonzero(r != g))
    max_abs = float(diff.max()) if diff.size else 0.0
    if np.issubdtype(ref.dtype, np.integer):
        steps = max_abs
    elif scale:
        steps = max_abs / scale
    else:
        steps = None  # a float tensor of unknown quantization
    nr, ng = np.linalg.norm(r), np.linalg.norm(g)
    if nr == 0 and ng == 0:
        cosine = 1.0
    elif nr == 0 or ng == 0:
        cosine = 0.0
    else:
        cosine = float(np.dot(r, g) / (nr * ng))
    return differing, steps, max_abs, cosine


def _dram_reuse(descs):
    """Two stored tensors sharing DRAM bytes without being the same buffer
    (a reshape aliases its input exactly): the binary was compiled with DRAM
    reuse and its intermediates are overwritten during a run."""
    spans = sorted({(d["dram_offset"], d["size_bytes"], n)
                    for n, d in descs.items()
                    if d["kind"] != "constant" and d["size_bytes"] > 0})
    reach = None  # the span reaching furthest so far
    for o, size, n in spans:
        if reach and o < reach[0] + reach[1] and (o, size) != reach[:2]:
            return reach[2], n
        if not reach or o + size > reach[0] + reach[1]:
            reach = (o, size, n)
    return None


def _per_tensor_scale(desc):
    q = desc.get("quant")
    if q and len(q.get("scales", [])) == 1:
        return q["scales"][0]
    return None


def compare(model, program=None, inputs=None, hw="default-32x32",
            backend="functional", work_dir=None):
    """Compares `program` (a Program, a .npu path, or None to compile `model`
    for `hw` with reuse_dram=False) with ONNX Runtime on `inputs` ({name:
    array}, or one array for a one-input model). Returns a Comparison."""
    from . import Error, Program, compile as _compile
    if program is None:
        program = _compile(model, hw=hw, reuse_dram=False)
    else:
        if not isinstance(program, Program):
            program = Program.load(program)
        shared = _dram_reuse({t["name"]: t for t in program.tensors})
        if shared:
            raise Error("the binary was compiled with DRAM reuse (%s and %s "
                        "share DRAM bytes), so its intermediates are "
                        "overwritten during the run: compile it with "
                        "--no-dram-reuse (reuse_dram=False)" % shared)
    inputs = program._bind(inputs)
    result = program.run(inputs, backend=backend, dump_tensors=True)
    descs = {t["name"]: t for t in program.tensors}
    own_dir = work_dir is None
    work_dir = work_dir or tempfile.mkdtemp(prefix="systole-compare-")
    try:
        ort = run_ort(model, inputs, work_dir)
    finally:
        if own_dir:
            shutil.rmtree(work_dir, ignore_errors=True)

    layers = []
    matched = set()
    by_node = _binary_by_node(descs)
    for node, op_type, ort_name, source in _layer_targets(model, ort):
        ref = ort[ort_name]
        # The node's stored tensors with the ORT tensor's element count; a
        # layout tensor the compiler made for the node (the NHWC reshape of
        # its input) only when the node itself is a reshape/transpose.
        cands = [b for b in by_node.get(node, [])
                 if result.tensors[b].size == ref.size]
        if ort_name in result.tensors and descs[ort_name]["kind"] != "input":
            cands.append(ort_name)  # graph outputs keep their ONNX names
        if op_type not in _LAYOUT_OPS:
            cands = [b for b in cands
                     if b.rpartition(":")[2] not in _LAYOUT_KINDS] or cands
        if not cands:
            continue
        name = cands[-1]
        got, desc = result.tensors[name], descs[name]
        layouts = [("same" if p == tuple(range(len(p))) else
                    "transposed " + "".join(str(i) for i in p),
                    ref.transpose(p)) for p in _layouts(ref.shape, got.shape)]
        # A reshape of an NCHW tensor reads it in NHWC order on the NPU.
        src = ort.get(source)
        if (op_type in _LAYOUT_OPS and src is not None and src.ndim == 4
                and src.size == ref.size):
            layouts.append(("NHWC order", src.transpose(0, 2, 3, 1)
                            .reshape(got.shape)))
        layouts.append(("reshape", ref.reshape(got.shape)))
        # Of the layouts that fit, the one that matches best (a square NHWC
        # tensor fits two permutations).
        best = None
        for label, r in layouts:
            stats = _compare_arrays(r, got, _per_tensor_scale(desc))
            if best is None or stats[0] < best[1][0]:
                best = (label, stats)
        layout, (differing, steps, max_abs, cosine) = best
        layers.append(LayerComparison(ort_name, node, op_type, got.shape,
                                      layout, int(got.size), differing,
                                      steps, cosine, binary_name=name,
                                      max_abs=max_abs))
        matched.add(name)
        matched.add(ort_name)
    unmatched_binary = [n for n, d in descs.items()
                        if d["kind"] not in ("constant", "input")
                        and n not in matched]
    unmatched_ort = [n for n in ort if n not in matched and
                     n not in {i["name"] for i in program.inputs}]
    return Comparison(layers, unmatched_binary, unmatched_ort)


def _parse_inputs(specs):
    inputs = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep:
            name, path = "", spec
        inputs[name] = np.load(path)
    return inputs


def main(argv=None):
    """`systole compare MODEL.onnx [BIN.npu] --input [NAME=]FILE.npy ...`"""
    import argparse
    from . import Error
    class Parser(argparse.ArgumentParser):
        # The convention of every systole subcommand (docs/runtime.md,
        # "Command line"): one line naming the problem, exit code 2.
        def error(self, message):
            unknown = "unrecognized arguments: "
            if message.startswith(unknown):
                message = "unknown option '%s'" % \
                    message[len(unknown):].split()[0]
            message = message.replace("the following arguments are "
                                      "required:", "missing required argument")
            self.exit(2, "error: systole compare: %s\n" % message)

    p = Parser(
        prog="systole compare",
        usage="systole compare [options] MODEL.onnx [BIN.npu]",
        description="Runs ONNX Runtime with every int8 intermediate exposed "
        "and the binary with every tensor read back, matches tensors by "
        "ONNX name and prints per layer: exact or the differing count, the "
        "max difference in quantization steps, cosine; names the first "
        "layer that differs. Without BIN.npu the model is compiled for --hw "
        "with --no-dram-reuse (a given binary must be compiled that way).")
    p.add_argument("model", metavar="MODEL.onnx")
    p.add_argument("binary", nargs="?", metavar="BIN.npu")
    p.add_argument("--input", action="append", default=[],
                   metavar="[NAME=]FILE.npy",
                   help="bind an input (repeatable); a model with one "
                   "input also accepts --input FILE.npy")
    p.add_argument("--hw", default="default-32x32", metavar="CONFIG",
                   help="hardware config file or preset (default: "
                   "default-32x32)")
    p.add_argument("--backend", default="functional",
                   choices=["functional", "cycle", "rtl"],
                   metavar="functional|cycle|rtl",
                   help="simulator of the NPU segments (default: functional)")
    p.add_argument("--json", metavar="FILE",
                   help="also write the comparison as JSON")
    args = p.parse_args(argv)
    try:
        inputs = _parse_inputs(args.input)
        if "" in inputs:
            if len(inputs) != 1:
                raise Error("--input FILE needs NAME=FILE for a model with "
                            "several inputs")
            inputs = inputs[""]
        c = compare(args.model, args.binary, inputs, hw=args.hw,
                    backend=args.backend)
    except (Error, OSError, ValueError) as e:
        print("systole compare: %s" % e, file=sys.stderr)
        return 1
    print(c.format())
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(c.as_dict(), f, indent=2)
    return 0 if c.exact else 3


if __name__ == "__main__":
    sys.exit(main())
