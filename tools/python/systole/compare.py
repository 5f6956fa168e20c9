"""`systole compare`: per-layer comparison of a compiled model with ONNX
Runtime (docs/python.md).

ONNX Runtime runs the model with every quantized intermediate tensor exposed
(tools/ort/ort_run.js --int8-outputs, which keeps ORT's QDQ fusion intact);
the binary runs with every tensor read back from DRAM after the run (it must
be compiled with reuse_dram=False / --no-dram-reuse, so no intermediate is
overwritten). Tensors are matched by their ONNX name: the binary's tensor
table keeps the names of the values it stores, and the layout the compiler
chose (NHWC for activations) is undone by trying the transposes that map the
ORT shape onto the binary's.

A binary tensor stands for an ORT tensor only when it holds the same value:
the same element type and, for quantized tensors, the same scale and zero
point (a float op between DequantizeLinear and QuantizeLinear has a float
result in the binary and an int8 one in ORT; a Slice the NPU runs at its
input's quantization is requantized by a later table), and a value some
segment stores (the binary marks as transient the values computed inside a
fused host segment, and a producer whose epilogue applies the next op, an
activation table or a residual add, writing that result in its place).
Nodes whose value the binary does not hold are left out with that reason.
Quantized tensors are compared exactly (the difference in quantization
steps); float tensors by their distance in ulps, with a tolerance
(FLOAT_ULPS).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from . import _systole

__all__ = ["compare", "LayerComparison", "Comparison", "main", "FLOAT_ULPS"]

# Float tensors match when every value is within FLOAT_ULPS units in the last
# place of ORT's, or closer than one ulp of the tensor's largest magnitude
# (values that cancelled to near zero have no meaningful ulp distance).
FLOAT_ULPS = 4


class LayerComparison:
    """One matched tensor. `differing`: values beyond the type's tolerance
    (any difference for integer tensors, more than FLOAT_ULPS for float
    ones); `max_steps`: the largest difference in quantization steps for an
    integer tensor (None for float); `max_ulps`: the largest distance in
    ulps for a float tensor (None for integer); `bitwise_differing`: values
    whose bits differ at all."""

    def __init__(self, name, node, op_type, shape, layout, count, differing,
                 max_steps, cosine, binary_name=None, max_abs=0.0,
                 max_ulps=None, bitwise_differing=None):
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
        self.max_ulps = max_ulps
        self.cosine = cosine
        self.bitwise_differing = (differing if bitwise_differing is None
                                  else bitwise_differing)

    @property
    def is_float(self):
        return self.max_ulps is not None

    @property
    def exact(self):
        """Within the type's tolerance (bit-exact for integer tensors)."""
        return self.differing == 0

    def as_dict(self):
        return dict(name=self.name, binary_name=self.binary_name,
                    node=self.node, op_type=self.op_type,
                    shape=list(self.shape), layout=self.layout,
                    count=self.count, differing=self.differing,
                    bitwise_differing=self.bitwise_differing,
                    max_steps=self.max_steps, max_ulps=self.max_ulps,
                    max_abs=self.max_abs, cosine=self.cosine)


class LeftOut:
    """A node whose ORT tensor no binary tensor holds, and why."""

    def __init__(self, node, op_type, name, reason, why):
        self.node, self.op_type, self.name = node, op_type, name
        self.reason = reason  # a short class: float, quantization, ...
        self.why = why        # the sentence

    def as_dict(self):
        return dict(node=self.node, op_type=self.op_type, name=self.name,
                    reason=self.reason, why=self.why)


# Reasons a node's ORT tensor is not compared, in the summary's words.
_REASONS = {
    "float": "the binary keeps the float result of a float op inside a QDQ "
             "group; ORT exposes only the quantized tensor after it, which "
             "is compared at its QuantizeLinear",
    "quantization": "the binary holds the value at another quantization "
                    "(the NPU requantizes it later, e.g. a data-movement "
                    "op run at its input's scale)",
    "transient": "never stored (transient in the binary): computed inside "
                 "a fused host segment, or by a producer whose epilogue "
                 "applies the next op (activation table, residual add) and "
                 "writes that result in its place",
    "dtype": "the binary stores another element type",
    "requantized": "ORT's QDQ propagation moves the QuantizeLinear that "
                   "follows (across Transpose/Reshape) up to this float "
                   "result, so ORT's tensor of its name holds "
                   "DequantizeLinear(QuantizeLinear(x)); the quantized value "
                   "is compared at the QuantizeLinear",
    "shape": "no stored tensor of the node has ORT's element count",
}


class Comparison:
    """Result of `compare`: `layers` in the ONNX graph's (topological) node
    order, the first one that differs beyond its type's tolerance (or None),
    the nodes left out with their reason, and the names nobody matched."""

    def __init__(self, layers, unmatched_binary, unmatched_ort, left_out=()):
        self.layers = layers
        self.unmatched_binary = unmatched_binary
        self.unmatched_ort = unmatched_ort
        self.left_out = list(left_out)

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
        lines = ["%-24s %-14s %-34s %-12s %10s %10s %9s" % (
            "layer", "op", "tensor", "shape", "result", "max diff",
            "cosine")]
        for l in self.layers:
            if l.bitwise_differing == 0:
                result = "exact"
            elif l.exact:
                result = "%d ulp-close" % l.bitwise_differing
            else:
                result = "%d differ" % l.differing
            lines.append("%-24s %-14s %-34s %-12s %10s %10s %9.6f" % (
                l.node[:24], l.op_type[:14], l.name[:34],
                "x".join(str(d) for d in l.shape)[:12], result,
                _fmt_diff(l), l.cosine))
        first = self.first_difference
        if not self.layers:
            lines.append("no tensor of the binary matched an ORT tensor")
        elif first is None:
            lines.append("all %d compared layers match ONNX Runtime (integer "
                         "tensors bit-exact, float tensors within %d ulps)" %
                         (len(self.layers), FLOAT_ULPS))
        else:
            lines.append("first layer that differs: %s (%s, tensor %s): %d "
                         "of %d values, max %s, cosine %.6f" % (
                             first.node, first.op_type, first.name,
                             first.differing, first.count, _fmt_diff(first),
                             first.cosine))
        by_reason = {}
        for o in self.left_out:
            by_reason.setdefault(o.reason, []).append(o)
        for reason, items in sorted(by_reason.items()):
            names = ", ".join(o.node for o in items[:3])
            more = " and %d more" % (len(items) - 3) if len(items) > 3 else ""
            lines.append("not compared, %d node(s): %s (%s%s)" % (
                len(items), _REASONS.get(reason, reason), names, more))
        if self.unmatched_binary:
            names = sorted(self.unmatched_binary)
            lines.append("binary tensors without an ORT counterpart: %d (%s%s)"
                         % (len(names), ", ".join(names[:4]),
                            ", ..." if len(names) > 4 else ""))
        return "\n".join(lines)

    def as_dict(self):
        first = self.first_difference
        return dict(layers=[l.as_dict() for l in self.layers],
                    first_difference=first.node if first else None,
                    first_difference_tensor=first.name if first else None,
                    left_out=[o.as_dict() for o in self.left_out],
                    unmatched_binary=sorted(self.unmatched_binary),
                    unmatched_ort=sorted(self.unmatched_ort))


def _fmt_diff(layer):
    if layer.is_float:
        return "%d ulps" % layer.max_ulps
    v = layer.max_steps
    return ("%d steps" % v) if float(v).is_integer() else "%.3g steps" % v


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


_SHAPE_ONLY = ("Reshape", "Flatten", "Squeeze", "Unsqueeze")


def _pullbacks(model):
    """{ORT tensor: [(label, function of the ORT array)]}: the compiler may
    move a quantize (or Relu/Clip) before the reshapes and transposes that
    precede it in the ONNX graph (quantizing the matmul's output, then
    moving int8 data); its stored tensor then has the layout of the value
    before them. Each entry undoes one more of those ops, last first."""
    import onnx
    m = onnx.load(os.fspath(model), load_external_data=False)
    try:
        m = onnx.shape_inference.infer_shapes(m)
    except Exception:  # shapes only refine the match; none is no error
        return {}
    shapes = {}
    for v in list(m.graph.value_info) + list(m.graph.input) + \
            list(m.graph.output):
        dims = v.type.tensor_type.shape.dim
        if dims and all(d.HasField("dim_value") for d in dims):
            shapes[v.name] = tuple(d.dim_value for d in dims)
    producers = {o: n for n in m.graph.node for o in n.output}
    out = {}
    for n in m.graph.node:
        if n.op_type not in _FOLDED_INTO_PRODUCER or not n.output:
            continue
        steps, cur = [], n.input[0] if n.input else ""
        undo = []
        while cur in producers and len(steps) < 6:
            p = producers[cur]
            src = p.input[0] if p.input else ""
            if p.op_type in _SHAPE_ONLY and src in shapes:
                undo.append(("reshape", shapes[src]))
            elif p.op_type == "Transpose" and src in shapes:
                perm = next((list(a.ints) for a in p.attribute
                             if a.name == "perm"),
                            list(range(len(shapes[src])))[::-1])
                undo.append(("transpose", tuple(np.argsort(perm))))
            else:
                break
            steps.append(p.name or p.op_type)
            chain = list(undo)

            def fn(a, chain=chain):
                for kind, arg in chain:
                    a = a.reshape(arg) if kind == "reshape" else a.transpose(arg)
                return a
            out.setdefault(n.output[0], []).append(
                ("before " + ", ".join(steps), fn))
            cur = src
    return out


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


def _ordered_bits(a):
    """Float values as integers whose difference is the distance in ulps."""
    if a.dtype == np.float64:
        i = a.view(np.int64)
        return np.where(i < 0, np.int64(-2**63) - i, i).astype(np.float64)
    i = a.astype(np.float32).view(np.int32).astype(np.int64)
    return np.where(i < 0, -(2**31) - i, i)


def _compare_arrays(ref, got):
    """(differing beyond tolerance, bitwise differing, max steps or None,
    max ulps or None, max |difference|, cosine)."""
    r = ref.astype(np.float64).ravel()
    g = got.astype(np.float64).ravel()
    diff = np.abs(r - g)
    max_abs = float(np.nanmax(diff)) if diff.size else 0.0
    if np.issubdtype(ref.dtype, np.floating):
        rr, gg = ref.ravel(), got.astype(ref.dtype).ravel()
        both_nan = np.isnan(rr) & np.isnan(gg)
        bitwise = int(np.count_nonzero(
            (rr.view(np.uint8).reshape(rr.size, -1) !=
             gg.view(np.uint8).reshape(gg.size, -1)).any(axis=1) & ~both_nan))
        ulps = np.abs(_ordered_bits(rr) - _ordered_bits(gg)).astype(np.float64)
        ulps[both_nan] = 0
        big = float(np.nanmax(np.abs(r))) if r.size else 0.0
        floor = np.spacing(np.float32(big)) if big > 0 else 0.0
        beyond = (ulps > FLOAT_ULPS) & ~(diff <= floor)
        beyond |= np.isnan(rr) != np.isnan(gg)
        differing = int(np.count_nonzero(beyond))
        steps, max_ulps = None, int(ulps.max()) if ulps.size else 0
    else:
        differing = bitwise = int(np.count_nonzero(r != g))
        steps, max_ulps = max_abs, None
    nr, ng = np.linalg.norm(r), np.linalg.norm(g)
    if nr == 0 and ng == 0:
        cosine = 1.0
    elif nr == 0 or ng == 0 or not np.isfinite(nr * ng):
        cosine = 0.0
    else:
        cosine = float(np.dot(r, g) / (nr * ng))
    return differing, bitwise, steps, max_ulps, max_abs, cosine


# Where an ORT tensor's output quantization comes from: (scale, zero point)
# input positions of the op that produces it, for QuantizeLinear and the
# QOperator kernels; ops that move int8 data keep their input's.
_QUANT_OUTPUT = {"QuantizeLinear": (1, 2), "QLinearConv": (6, 7),
                 "QLinearMatMul": (6, 7), "QLinearAdd": (6, 7),
                 "QLinearMul": (6, 7), "QGemm": (7, 8),
                 "QLinearGlobalAveragePool": (3, 4),
                 "QLinearAveragePool": (3, 4), "QLinearSigmoid": (3, 4),
                 "QLinearLeakyRelu": (3, 4), "QLinearSoftmax": (3, 4),
                 "QLinearReduceMean": (3, 4), "QLinearConcat": (0, 1)}
_QUANT_KEPT = ("MaxPool", "GlobalMaxPool", "Reshape", "Transpose", "Flatten",
               "Squeeze", "Unsqueeze", "Slice", "Gather", "Split", "Identity",
               "Resize", "Upsample", "DepthToSpace", "SpaceToDepth", "Tile",
               "Expand", "ReduceMax", "ReduceMin")


def _ort_quantization(model):
    """{ORT tensor name: (scales float32 array, zero points int array)} for
    the quantized tensors whose parameters are constants of the graph."""
    import onnx
    from onnx import numpy_helper
    m = onnx.load(os.fspath(model), load_external_data=False)
    const = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    for n in m.graph.node:
        if n.op_type == "Constant" and n.output:
            for a in n.attribute:
                if a.name == "value":
                    const[n.output[0]] = numpy_helper.to_array(a.t)
    quant = {}
    for n in m.graph.node:  # topological: inputs are resolved first
        if not n.output or not n.output[0]:
            continue
        if n.op_type in _QUANT_OUTPUT:
            si, zi = _QUANT_OUTPUT[n.op_type]
            s = n.input[si] if len(n.input) > si else ""
            z = n.input[zi] if len(n.input) > zi else ""
            if s in const:
                scales = np.asarray(const[s], np.float32).ravel()
                zps = (np.asarray(const[z]).astype(np.int64).ravel()
                       if z in const else np.zeros(1, np.int64))
                quant[n.output[0]] = (scales, zps)
        elif n.op_type in _QUANT_KEPT and n.input and n.input[0] in quant:
            for o in n.output:
                if o:
                    quant[o] = quant[n.input[0]]
    return quant


# Ops ORT's QDQ propagation moves a QuantizeLinear up across
# (qdq_propagation.cc), when each tensor on the way has one reader.
_QDQ_PROPAGATED = ("Transpose", "Reshape", "Squeeze", "Unsqueeze", "MaxPool")


def _requantized_by_ort(model):
    """{float tensor: its QuantizeLinear} for the tensors ORT's QDQ
    propagation puts a QuantizeLinear -> DequantizeLinear pair after: a
    float result that reaches a QuantizeLinear only through the ops above.
    The tensor of that name in ORT then holds DequantizeLinear(
    QuantizeLinear(x)), not x."""
    import onnx
    m = onnx.load(os.fspath(model), load_external_data=False)
    producers = {o: n for n in m.graph.node for o in n.output}
    readers = {}
    for n in m.graph.node:
        for i in n.input:
            readers[i] = readers.get(i, 0) + 1
    out = {}
    for q in m.graph.node:
        if q.op_type != "QuantizeLinear" or not q.input:
            continue
        t = q.input[0]
        while readers.get(t, 0) == 1 and t in producers:
            p = producers[t]
            if p.op_type in ("DequantizeLinear", "QuantizeLinear"):
                break
            out[t] = q.name or q.output[0]
            if p.op_type not in _QDQ_PROPAGATED or not p.input:
                break
            t = p.input[0]
    return out


def _same_quantization(ort_q, desc):
    """None when they agree (or either is unknown), else the sentence."""
    q = desc.get("quant")
    if ort_q is None or not q or not q.get("scales"):
        return None
    scales = np.asarray(q["scales"], np.float32)
    zps = np.asarray(q.get("zero_points") or [0], np.int64)
    os_, oz = ort_q
    if (np.allclose(scales, os_, rtol=1e-6, atol=0) and
            np.array_equal(np.broadcast_to(zps, scales.shape),
                           np.broadcast_to(oz, os_.shape))):
        return None
    return ("the binary holds it at scale %.6g, zero point %d; ORT's tensor "
            "has scale %.6g, zero point %d" % (scales[0], zps[0], os_[0],
                                                oz[0]))


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
    table = program.tensors
    descs = {t["name"]: t for t in table}
    own_dir = work_dir is None
    work_dir = work_dir or tempfile.mkdtemp(prefix="systole-compare-")
    try:
        ort = run_ort(model, inputs, work_dir)
    finally:
        if own_dir:
            shutil.rmtree(work_dir, ignore_errors=True)
    ort_quant = _ort_quantization(model)
    requantized = _requantized_by_ort(model)
    pullbacks = _pullbacks(model)

    def refuse(name, ort_name, ref):
        """(reason class, sentence) why binary tensor `name` cannot stand
        for ORT's tensor `ort_name` (values `ref`), or None."""
        if descs[name]["kind"] == "transient":
            return "transient", "%s is transient" % name
        if np.issubdtype(ref.dtype, np.floating) and ort_name in requantized:
            return "requantized", "ORT holds %s quantized by %s" % (
                ort_name, requantized[ort_name])
        got = result.tensors[name]
        if got.size != ref.size:
            return "shape", "%s has %d values, ORT's tensor %d" % (
                name, got.size, ref.size)
        if got.dtype != ref.dtype:
            kind = ("float" if np.issubdtype(got.dtype, np.floating) and
                    np.issubdtype(ref.dtype, np.integer) else "dtype")
            return kind, "%s is %s, ORT's tensor %s" % (name, got.dtype,
                                                         ref.dtype)
        why = _same_quantization(ort_quant.get(ort_name), descs[name])
        if why:
            return "quantization", "%s: %s" % (name, why)
        return None

    layers = []
    matched = set()
    compared = set()  # ORT tensors with a row
    refused = {}      # ORT tensor -> [(node, op type, reason, sentence)]
    by_node = _binary_by_node(descs)
    for node, op_type, ort_name, source in _layer_targets(model, ort):
        ref = ort[ort_name]
        # The node's stored tensors; a layout tensor the compiler made for
        # the node (the NHWC reshape of its input) only when the node itself
        # is a reshape/transpose.
        cands = list(by_node.get(node, []))
        if ort_name in result.tensors and descs[ort_name]["kind"] != "input":
            cands.append(ort_name)  # graph outputs keep their ONNX names
        if op_type not in _LAYOUT_OPS:
            cands = [b for b in cands
                     if b.rpartition(":")[2].split("#")[0]
                     not in _LAYOUT_KINDS] or cands
        fitting = []
        for b in cands:
            r = refuse(b, ort_name, ref)
            if r is None:
                fitting.append(b)
            else:
                refused.setdefault(ort_name, []).append(
                    (node, op_type) + r)
        if not fitting:
            continue
        name = fitting[-1]
        if (ort_name, name) in matched:
            continue  # a node folded into the previous row's (Q after Conv)
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
        # A quantize the compiler moved before the layout ops feeding it.
        for label, undo in pullbacks.get(ort_name, []):
            pre = undo(ref)
            layouts += [(label + (" transposed " +
                                  "".join(str(i) for i in p)
                                  if p != tuple(range(len(p))) else ""),
                         pre.transpose(p))
                        for p in _layouts(pre.shape, got.shape)]
        layouts.append(("reshape", ref.reshape(got.shape)))
        # Of the layouts that fit, the one that matches best (a square NHWC
        # tensor fits two permutations).
        best = None
        for label, r in layouts:
            stats = _compare_arrays(r, got)
            if best is None or stats[:2] < best[1][:2]:
                best = (label, stats)
        layout, (differing, bitwise, steps, ulps, max_abs, cosine) = best
        layers.append(LayerComparison(ort_name, node, op_type, got.shape,
                                      layout, int(got.size), differing,
                                      steps, cosine, binary_name=name,
                                      max_abs=max_abs, max_ulps=ulps,
                                      bitwise_differing=bitwise))
        matched.add((ort_name, name))
        compared.add(ort_name)
    left_out = []
    for ort_name, reasons in refused.items():
        if ort_name in compared:
            continue
        node, op_type, reason, why = reasons[-1]
        left_out.append(LeftOut(node, op_type, ort_name, reason, why))
    stored = {b for _, b in matched}
    unmatched_binary = [n for n, d in descs.items()
                        if d["kind"] not in ("constant", "input", "transient")
                        and n not in stored]
    unmatched_ort = [n for n in ort if n not in compared and
                     n not in {i["name"] for i in program.inputs}]
    return Comparison(layers, unmatched_binary, unmatched_ort, left_out)



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
        "ONNX name, element type and quantization, and prints per layer: "
        "exact or the differing count, the max difference (quantization "
        "steps for integer tensors, ulps for float ones), cosine; names the "
        "first layer that differs beyond its type's tolerance and the nodes "
        "left out, with why. Without BIN.npu the model is compiled for --hw "
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
