#!/usr/bin/python3
"""Layers the NPU maps since issue 16, bit-exact against ONNX Runtime.

usage: check_npu_layers.py SYSTOLE WORK CASE...

Each CASE builds a small QDQ model (ORT fuses it into its integer kernels
with session.qdqisint8allowed=1), compiles it, checks the compile report puts
every conv/matmul on the NPU with the expected mapping, runs random inputs on
the functional and the cycle backends and requires every output value to
equal ORT's:
- gemm-25088x4096: a 25088 x 4096 fully connected layer on default-32x32,
  whose weight column tiles do not fit the scratchpad unsplit (K split
  across items accumulating in ACC);
- conv-ksplit: 3x3 convolutions whose K = 9*Cin does not fit a small
  scratchpad (tests/e2e/configs/ksplit-8x8.json): WS and OS, strides, pads;
- ksplit-rtl: a Gemm and a conv that split K on rtl-8x8, also run on the
  Verilated RTL (RTL == SystemC in values and cycles);
- resident-band: a Gemm of 48 rows whose K is split while each lhs band
  stays for all column tiles (plan resident = 1), also on the RTL;
- broadcast: Add/Mul of a conv's output and its global average pool (a
  per-channel vector, squeeze-excitation) or a scalar, both operand orders,
  on the vector unit (VADD/VMUL with strides of 0);
- constant-operand: Add/Mul of an activation and an int8 constant (full
  shape, per channel, scalar) on the vector unit;
- attention: MatMul of two activations (Q x K^T, scores x V) on the array,
  int8 and uint8, rank 3 and 4, also on the Verilated RTL;
- attention-bias: Swin's float relative position bias (VBINARY b_f32) and
  int8 window mask (VADD by rows) added to scores, also on the RTL;
- dilated: dilated dense convolutions on the array (grouped dilated ones
  stay on the host: the importer keeps them host ops);
- residual: residual adds in the epilogue of the conv producing an operand
  (identity and projection shortcuts, either operand order, ReLU after the
  add), also on the Verilated RTL;
- gate: x * f(x) (SiLU, HardSwish as exported) as one table of x, applied
  by the REQUANT of the conv producing x, also on the Verilated RTL;
- concat: channel concats of convolutions written in place (Inception,
  SqueezeNet's fire), also on the Verilated RTL;
- grouped: grouped convolutions on the array (ResNeXt-like 32 groups of 4
  channels, 4 groups of 16->32 with stride 2, ShuffleNet-like 3 groups, a
  depthwise convolution with channel multiplier 2), per-channel weights,
  int32 bias, in both ONNX forms (QDQ and QLinearConv);
- cascade: layers kept on chip (issue 18), also on the Verilated RTL;
- cascade-stored: block outputs with two readers kept on chip and stored;
- strided-1x1: strided 1x1 convolutions reading only the pixels they use,
  also on the Verilated RTL;
- pad-pool: explicit constant Pads before pools as NPU copies, also on the
  Verilated RTL;
- conv-transpose: upsampling ConvTransposes (kernel = stride) as a 1x1
  convolution and a DepthToSpace on the NPU, also on the Verilated RTL.
The models have no ReLU between a Conv and its QuantizeLinear: ORT fuses
Conv + Relu into a float FusedConv before its QDQ fusion, so such a layer's
reference would be float arithmetic, not ORT's integer kernel.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "models"))
from systole_models import ort_runner  # noqa: E402

systole, work = sys.argv[1], Path(sys.argv[2])
work.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(16)


def init(name, array, dtype=None):
    return numpy_helper.from_array(np.asarray(array, dtype=dtype), name)


class Builder:
    """A QDQ graph: float input -> Q/DQ -> layers -> DQ output."""

    def __init__(self, in_shape, xs=0.05, xz=3, uint8=False):
        """Activations int8, or uint8 (ORT's default) with every zero point
        given shifted by 128."""
        self.nodes, self.inits, self.n = [], [], 0
        self.in_shape, self.shape = in_shape, list(in_shape)
        self.zp = (lambda z: np.uint8(z + 128)) if uint8 else np.int8
        self.inits += [init("xs", np.float32(xs)), init("xz", self.zp(xz))]
        self.nodes += [helper.make_node("QuantizeLinear", ["input", "xs", "xz"], ["xq"]),
                       helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["x0"])]
        self.cur, self.scale = "x0", xs

    def _weights(self, w_shape, out_axis):
        i = self.n = self.n + 1
        w = rng.integers(-127, 128, w_shape).astype(np.int8)
        ws = rng.uniform(0.005, 0.02, w_shape[out_axis]).astype(np.float32)
        bias = rng.integers(-3000, 3000, w_shape[out_axis]).astype(np.int32)
        # An explicit per-channel weight zero point: ORT's QGemm requires
        # it to have the scale's shape.
        self.inits += [init(f"w{i}", w), init(f"ws{i}", ws), init(f"b{i}", bias),
                       init(f"wz{i}", np.zeros(w_shape[out_axis], np.int8)),
                       init(f"bs{i}", (ws * np.float32(self.scale)).astype(np.float32))]
        self.nodes += [
            helper.make_node("DequantizeLinear", [f"w{i}", f"ws{i}", f"wz{i}"], [f"wd{i}"],
                             axis=out_axis),
            helper.make_node("DequantizeLinear", [f"b{i}", f"bs{i}"], [f"bd{i}"], axis=0)]
        return i

    def _requant(self, i, y, ys, yz, relu):
        if relu:
            self.nodes.append(helper.make_node("Relu", [y], [f"r{i}"]))
            y = f"r{i}"
        self.inits += [init(f"ys{i}", np.float32(ys)), init(f"yz{i}", self.zp(yz))]
        self.nodes += [helper.make_node("QuantizeLinear", [y, f"ys{i}", f"yz{i}"], [f"q{i}"]),
                       helper.make_node("DequantizeLinear", [f"q{i}", f"ys{i}", f"yz{i}"],
                                        [f"x{i}"])]
        self.cur, self.scale = f"x{i}", ys

    def conv(self, cin, cout, k, group=1, stride=1, pad=0, ys=0.5, yz=-7, relu=False,
             dilation=(1, 1)):
        i = self._weights((cout, cin // group, k, k), 0)
        self.nodes.append(helper.make_node(
            "Conv", [self.cur, f"wd{i}", f"bd{i}"], [f"y{i}"], kernel_shape=[k, k],
            group=group, strides=[stride, stride], pads=[pad] * 4, dilations=list(dilation)))
        n, _, h, w = self.shape
        eh, ew = (k - 1) * dilation[0] + 1, (k - 1) * dilation[1] + 1
        self.shape = [n, cout, (h + 2 * pad - eh) // stride + 1, (w + 2 * pad - ew) // stride + 1]
        self._requant(i, f"y{i}", ys, yz, relu)

    def conv_transpose(self, cout, s, ys, yz, per_channel=True, bias=True, k=None,
                       pads=(0, 0, 0, 0), output_padding=None, auto_pad=None, relu=False,
                       group=1):
        """A QDQ ConvTranspose of stride s (learned upsampling): kernel k
        (default s), pads or auto_pad, output_padding, groups, an optional
        ReLU before its QuantizeLinear. Its weight scales are powers of two: ORT runs a QDQ ConvTranspose in
        float, and with power-of-two scales (the input's and ys too) every
        float product and sum is exact, so ORT's result is the exact one
        and the NPU's integer result must equal it bit for bit, ties
        included (with other scales the two can round apart on near-ties;
        docs/compiler.md)."""
        n, cin, h, w = self.shape
        i = self.n = self.n + 1
        k = k or s
        wq = rng.integers(-127, 128, (cin, cout // group, k, k)).astype(np.int8)
        # Per channel along axis 1: Cout/group scales, repeated over the groups.
        ws = (2.0 ** -rng.integers(5, 9, cout // group if per_channel else None)
              ).astype(np.float32)
        axis = {"axis": 1} if per_channel else {}
        self.inits += [init(f"w{i}", wq), init(f"ws{i}", ws)]
        self.nodes.append(helper.make_node("DequantizeLinear", [f"w{i}", f"ws{i}"],
                                           [f"wd{i}"], **axis))
        ins = [self.cur, f"wd{i}"]
        if bias:
            bs = (np.tile(ws, group) if per_channel else ws) * np.float32(self.scale)
            self.inits += [init(f"b{i}", rng.integers(-3000, 3000, cout).astype(np.int32)),
                           init(f"bs{i}", bs.astype(np.float32))]
            self.nodes.append(helper.make_node(
                "DequantizeLinear", [f"b{i}", f"bs{i}"], [f"bd{i}"],
                **({"axis": 0} if per_channel else {})))
            ins.append(f"bd{i}")
        attrs = {"kernel_shape": [k, k], "strides": [s, s]}
        if group > 1:
            attrs["group"] = group
        if auto_pad:
            attrs["auto_pad"] = auto_pad
        else:
            attrs["pads"] = list(pads)
        if output_padding:
            attrs["output_padding"] = list(output_padding)
        self.nodes.append(helper.make_node("ConvTranspose", ins, [f"y{i}"], **attrs))
        op = output_padding or (0, 0)
        if auto_pad:
            self.shape = [n, cout, h * s, w * s]
        else:
            self.shape = [n, cout, (h - 1) * s + k - pads[0] - pads[2] + op[0],
                          (w - 1) * s + k - pads[1] - pads[3] + op[1]]
        self._requant(i, f"y{i}", ys, yz, relu)

    def activation(self, kind, ys, yz):
        """DequantizeLinear -> f -> QuantizeLinear after the current layer
        (the Builder's layers end with Q -> DQ, so f reads the DQ)."""
        i = self.n = self.n + 1
        x, y = self.cur, f"a{i}"
        if kind == "SiLU":
            self.nodes += [helper.make_node("Sigmoid", [x], [f"s{i}"]),
                           helper.make_node("Mul", [x, f"s{i}"], [y])]
        elif kind == "GELU":  # opset 17: the erf form torch exports
            self.inits += [init(f"r2_{i}", np.float32(1.4142135381698608)),
                           init(f"one{i}", np.float32(1.0)), init(f"half{i}", np.float32(0.5))]
            self.nodes += [helper.make_node("Div", [x, f"r2_{i}"], [f"d{i}"]),
                           helper.make_node("Erf", [f"d{i}"], [f"e{i}"]),
                           helper.make_node("Add", [f"e{i}", f"one{i}"], [f"p{i}"]),
                           helper.make_node("Mul", [x, f"p{i}"], [f"m{i}"]),
                           helper.make_node("Mul", [f"m{i}", f"half{i}"], [y])]
        else:
            self.nodes.append(helper.make_node(kind, [x], [y]))
        self._requant(i, y, ys, yz, False)

    def conv1d(self, cin, cout, k, group=1, stride=1, pad=(0, 0), dilation=1, ys=0.5,
               yz=-7, relu=False):
        """A QDQ Conv over [N, C, L] (audio); pads (begin, end)."""
        i = self._weights((cout, cin // group, k), 0)
        self.nodes.append(helper.make_node(
            "Conv", [self.cur, f"wd{i}", f"bd{i}"], [f"y{i}"], kernel_shape=[k],
            group=group, strides=[stride], pads=list(pad), dilations=[dilation]))
        n, _, length = self.shape
        self.shape = [n, cout, (length + pad[0] + pad[1] - (k - 1) * dilation - 1) // stride + 1]
        self._requant(i, f"y{i}", ys, yz, relu)

    def gemm(self, k, n, ys, yz=2):
        i = self._weights((n, k), 0)
        self.nodes.append(helper.make_node(
            "Gemm", [self.cur, f"wd{i}", f"bd{i}"], [f"y{i}"], transB=1))
        self.shape = [self.shape[0], n]
        self._requant(i, f"y{i}", ys, yz, False)

    def gap(self, ys, yz):
        """GlobalAveragePool of the current tensor (QLinearGlobalAveragePool
        in ORT); returns (name, scale) of its dequantized [N, C, 1, 1] output,
        the current tensor stays."""
        i = self.n = self.n + 1
        self.inits += [init(f"ys{i}", np.float32(ys)), init(f"yz{i}", self.zp(yz))]
        self.nodes += [helper.make_node("GlobalAveragePool", [self.cur], [f"g{i}"]),
                       helper.make_node("QuantizeLinear", [f"g{i}", f"ys{i}", f"yz{i}"], [f"q{i}"]),
                       helper.make_node("DequantizeLinear", [f"q{i}", f"ys{i}", f"yz{i}"],
                                        [f"x{i}"])]
        return f"x{i}"

    def binary(self, op, a, b, ys, yz, relu=False):
        """Add/Mul of two dequantized tensors (ORT: QLinearAdd/QLinearMul)."""
        i = self.n = self.n + 1
        self.nodes.append(helper.make_node(op, [a, b], [f"y{i}"]))
        self._requant(i, f"y{i}", ys, yz, relu)

    def qlinear_conv(self, cin, cout, k, group=1, stride=1, pad=0, ys=0.5, yz=-7):
        """QOperator form: QLinearConv on the int8 tensor (ORT's integer
        kernel for every group count)."""
        if self.cur == "x0":  # the QOperator chain starts at the quantized input
            self.nodes.pop()
            self.cur, self.cur_zp = "xq", "xz"
        i = self.n = self.n + 1
        w = rng.integers(-127, 128, (cout, cin // group, k, k)).astype(np.int8)
        ws = rng.uniform(0.005, 0.02, cout).astype(np.float32)
        bias = rng.integers(-3000, 3000, cout).astype(np.int32)
        self.inits += [init(f"w{i}", w), init(f"ws{i}", ws), init(f"wz{i}", np.zeros(cout, np.int8)),
                       init(f"b{i}", bias), init(f"ys{i}", np.float32(ys)),
                       init(f"yz{i}", self.zp(yz))]
        xs = "xs" if self.cur == "xq" else f"ys{i - 1}"
        self.nodes.append(helper.make_node(
            "QLinearConv", [self.cur, xs, self.cur_zp, f"w{i}", f"ws{i}", f"wz{i}",
                            f"ys{i}", f"yz{i}", f"b{i}"], [f"q{i}"],
            kernel_shape=[k, k], group=group, strides=[stride, stride], pads=[pad] * 4))
        n, _, h, w_ = self.shape
        self.shape = [n, cout, (h + 2 * pad - k) // stride + 1, (w_ + 2 * pad - k) // stride + 1]
        self.cur, self.cur_zp, self.scale = f"q{i}", f"yz{i}", ys
        self.last_q = i

    def save_qop(self, name):
        i = self.last_q
        self.nodes.append(helper.make_node("DequantizeLinear", [self.cur, f"ys{i}", f"yz{i}"],
                                           ["output"]))
        return self.save(name, identity=False)

    def save(self, name, identity=True):
        if identity:
            self.nodes.append(helper.make_node("Identity", [self.cur], ["output"]))
        g = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, self.in_shape)],
            [helper.make_tensor_value_info("output", TensorProto.FLOAT, self.shape)],
            initializer=self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        path = work / f"{name}.onnx"
        onnx.save(m, path)
        return path


def check(name, path, hw, mapping, inputs=2, backends=("functional", "cycle"), vector_op=None,
          flags=()):
    """Compiles (with `flags`), checks each conv/matmul's mapping contains
    `mapping`, runs `inputs` random inputs per backend; returns the number
    of failures."""
    npu, report = work / f"{name}.npu", work / f"{name}.json"
    subprocess.run([systole, "compile", str(path), "-o", str(npu), "--hw", str(hw), "-q",
                    "--report", str(report), *flags], check=True, stdout=subprocess.DEVNULL)
    layers = json.loads(report.read_text())["layers"]
    heavy = [l for l in layers if l["op"] in ("graph.conv2d", "graph.matmul", vector_op)]
    if vector_op and not any(l["op"] == vector_op for l in heavy):
        print(f"{name}: FAIL: no {vector_op} on the NPU: {layers}")
        return 1
    bad = [l for l in heavy if l["placement"] != "npu" or mapping not in l["mapping"]]
    if not heavy or bad:
        print(f"{name}: FAIL: layers not on the NPU as '{mapping}': {bad or layers}")
        return 1
    cycles = sum(l.get("predicted_cycles", 0) for l in heavy)
    failures = 0
    if hw == "rtl-8x8":  # a preset with a Verilated RTL model: RTL == SystemC
        backends = tuple(backends) + ("rtl",)
    for i in range(inputs):
        cycles_of = {}
        x = rng.uniform(-6, 6, path_shapes[name]).astype(np.float32)
        xin = work / f"{name}_in{i}.npy"
        np.save(xin, x)
        ref = ort_runner.run(path, {"input": x})["output"]
        for backend in backends:
            out = work / f"{name}_{backend}_{i}"
            rep = Path(str(out) + ".json")
            subprocess.run([systole, "run", str(npu), "--input", f"input={xin}",
                            "--out-dir", str(out), "--backend", backend, "--report", str(rep),
                            "-q"], check=True, stdout=subprocess.DEVNULL)
            got = np.load(out / "output.npy")
            diff = int((got != ref).sum()) if got.shape == ref.shape else -1
            cyc = json.loads(rep.read_text()).get("total_cycles") if backend != "functional" \
                else None
            cycles_of[backend] = cyc
            if backend == "rtl" and cyc != cycles_of.get("cycle"):
                print(f"{name}: FAIL: RTL {cyc} cycles, SystemC {cycles_of.get('cycle')}")
                failures += 1
            print(f"{name} input {i} {backend}: "
                  f"{'bit-exact' if diff == 0 else 'MISMATCH'} ({diff} of {ref.size} differ)"
                  + (f", {cyc} cycles" if cyc is not None else ""))
            failures += diff != 0
    print(f"{name}: mapping {[l['mapping'] for l in heavy]}, predicted {cycles} cycles")
    return failures


path_shapes = {}


def case_gemm():
    b = Builder([1, 25088], xs=0.02, xz=-4)
    b.gemm(25088, 4096, ys=4.0)
    path_shapes["gemm-25088x4096"] = [1, 25088]
    return check("gemm-25088x4096", b.save("gemm-25088x4096"), "default-32x32", " k=", inputs=1)


def case_conv_ksplit():
    hw = REPO / "tests" / "e2e" / "configs" / "ksplit-8x8.json"
    b = Builder([1, 48, 9, 9])
    b.conv(48, 40, 3, pad=1)
    b.conv(40, 24, 3, stride=2, pad=1, ys=0.7, yz=5)
    path_shapes["conv-ksplit"] = [1, 48, 9, 9]
    return check("conv-ksplit", b.save("conv-ksplit"), hw, " k=")


def case_ksplit_rtl():
    """K split on rtl-8x8, whose 64 KiB scratchpad cannot hold two 8-column
    weight tiles of K = 8192 (a Gemm) or 3*3*512 (a conv): RTL == SystemC in
    values and cycles on the split programs."""
    b = Builder([1, 8192], xs=0.02, xz=-4)
    b.gemm(8192, 24, ys=2.0)
    path_shapes["ksplit-rtl.gemm"] = [1, 8192]
    fails = check("ksplit-rtl.gemm", b.save("ksplit-rtl.gemm"), "rtl-8x8", " k=")
    b = Builder([1, 512, 4, 4])
    b.conv(512, 16, 3, pad=1, ys=1.5)
    path_shapes["ksplit-rtl.conv"] = [1, 512, 4, 4]
    return fails + check("ksplit-rtl.conv", b.save("ksplit-rtl.conv"), "rtl-8x8", " k=")


def case_resident_band():
    """K split with the lhs band staying for all column tiles (plan
    resident = 1, the planner's pick for ViT's MLP down-projection): 48
    tokens x K = 2048 on rtl-8x8, whose 64 KiB scratchpad holds two
    unsplit bands of 8 rows only; chunks of K leave room for taller bands.
    Forced, so the check does not depend on the cost model's pick; also on
    the Verilated RTL."""
    b = Builder([48, 2048], xs=0.02, xz=-4)
    b.gemm(2048, 40, ys=2.0)
    path_shapes["resident-band"] = [48, 2048]
    return check("resident-band", b.save("resident-band"), "rtl-8x8", " resident=1",
                 flags=("--force-plan", "resident=1"))


GROUPED = [dict(cin=128, cout=128, k=3, group=32, pad=1),             # ResNeXt 32x4d
           dict(cin=128, cout=64, k=3, group=4, stride=2, pad=1, yz=4),  # 4 groups 32->16
           dict(cin=64, cout=48, k=1, group=2, ys=0.4),                  # 2 groups 32->24
           dict(cin=48, cout=96, k=3, group=48, pad=1, ys=0.3),          # depthwise x2
           dict(cin=96, cout=33, k=1, group=3, ys=0.6, yz=-3)]           # ShuffleNet, 3 groups


def case_grouped():
    fails = 0
    for form in ("qdq", "qop"):
        b = Builder([1, 128, 10, 10])
        for layer in GROUPED:
            (b.conv if form == "qdq" else b.qlinear_conv)(**layer)
        name = f"grouped.{form}"
        path = b.save(name) if form == "qdq" else b.save_qop(name)
        for hw in ("default-32x32", "rtl-8x8"):
            path_shapes[f"{name}.{hw}"] = [1, 128, 10, 10]
            fails += check(f"{name}.{hw}", path, hw, "")
    return fails


def case_broadcast():
    """Squeeze-excitation's per-channel scale and a scalar operand: a conv
    (NHWC in ORT and here), its global average pool ([1, C, 1, 1], or
    [1, 1, 1, 1] after a 1-channel conv) and an Add/Mul of the two, both
    operand orders, on the vector unit."""
    fails = 0
    for op in ("Mul", "Add"):
        for order in ("xs", "sx"):
            for kind in ("channel", "scalar"):
                b = Builder([1, 24, 12, 12])
                b.conv(24, 40, 3, pad=1, ys=0.3, yz=-2)
                x = b.cur
                if kind == "scalar":
                    b.conv(40, 1, 1, ys=0.2, yz=3)
                s = b.gap(0.05 if kind == "scalar" else 0.08, 5)
                args = [x, s] if order == "xs" else [s, x]
                b.binary(op, *args, ys=0.9 if op == "Mul" else 0.35, yz=-4)
                fails += check_vector_op(b, f"broadcast.{op.lower()}.{order}.{kind}", op)
    return fails


def check_vector_op(b, name, op):
    """A Builder's model whose `op` must run on the vector unit, on
    default-32x32 and rtl-8x8 (RTL == SystemC); returns the failures."""
    path = b.save(name)
    fails = 0
    for hw in ("default-32x32", "rtl-8x8"):
        path_shapes[f"{name}.{hw}"] = b.in_shape
        fails += check(f"{name}.{hw}", path, hw, "", inputs=2, vector_op="graph." + op.lower())
    return fails


def case_constant_operand():
    """Add/Mul of an activation and a constant (a bias or scale initializer:
    QLinearAdd/QLinearMul with a constant input in ORT) on the vector unit,
    the constant read from the constant pool: full shape, per channel and
    scalar, both operand orders (but an Add whose first operand is the
    per-channel constant, which stays on the host)."""
    fails = 0
    for op in ("Add", "Mul"):
        for kind, shape in (("full", [1, 16, 6, 6]), ("channel", [1, 16, 1, 1]),
                            ("scalar", [1, 1, 1, 1])):
            for order in ("xc", "cx"):
                if (op, kind, order) == ("Add", "channel", "cx"):
                    # Stays on the host: ORT's QLinearAdd order for a
                    # per-channel constant first operand is not reproduced
                    # (2-6 of 576 values 1 LSB off on the vector unit).
                    continue
                b = Builder([1, 8, 6, 6])
                b.conv(8, 16, 3, pad=1, ys=0.3, yz=-2)
                b.n += 1
                i = b.n
                b.inits += [init(f"c{i}", rng.integers(-128, 128, shape).astype(np.int8)),
                            init(f"cs{i}", np.float32(0.04)), init(f"cz{i}", np.int8(7))]
                b.nodes.append(helper.make_node("DequantizeLinear",
                                                [f"c{i}", f"cs{i}", f"cz{i}"], [f"cd{i}"]))
                args = [b.cur, f"cd{i}"] if order == "xc" else [f"cd{i}", b.cur]
                b.binary(op, *args, ys=0.5 if op == "Mul" else 0.4, yz=3)
                fails += check_vector_op(b, f"constant.{op.lower()}.{kind}.{order}", op)
    return fails


def case_attention_bias():
    """Swin's attention additions on the vector unit: DequantizeLinear ->
    Add(a float constant, one [heads, S, D] block for every window) ->
    QuantizeLinear (ORT: an unfused float Add; VBINARY with an fp32 B in
    ACC), then a QLinearAdd of an int8 window mask [windows, 1, S, D] that
    the heads share (VADD reading the mask by rows). On rtl-8x8 the bias's
    18,432 words exceed the 16,384-word accumulator, so each tile loads its
    rows; on default-32x32 it stays resident. RTL == SystemC on rtl-8x8."""
    shape = [2, 3, 64, 96]
    b = Builder(shape, xs=0.1, xz=2)
    b.n += 1
    i = b.n
    b.inits.append(init(f"bias{i}", rng.uniform(-3, 3, shape[1:]).astype(np.float32)))
    b.nodes.append(helper.make_node("Add", [b.cur, f"bias{i}"], [f"y{i}"]))
    b._requant(i, f"y{i}", 0.15, -3, False)
    b.n += 1
    i = b.n
    mask = np.where(rng.random([2, 1, 64, 96]) < 0.3, -100, 0).astype(np.int8)
    b.inits += [init(f"c{i}", mask), init(f"cs{i}", np.float32(1.0)),
                init(f"cz{i}", np.int8(0))]
    b.nodes.append(helper.make_node("DequantizeLinear", [f"c{i}", f"cs{i}", f"cz{i}"],
                                    [f"cd{i}"]))
    b.binary("Add", b.cur, f"cd{i}", ys=0.5, yz=0)
    return check_vector_op(b, "attention-bias", "Add")


def attention_model(name, shape, kdim, qtype):
    """Q x K^T and scores x V of activations, as attention computes them:
    x [..., S, D] -> q = x Wq, k = x Wk (constant weights) -> scores =
    q k^T (K^T a Transpose of an activation) -> out = scores x, each product
    between DequantizeLinear and QuantizeLinear (ORT: QLinearMatMul of two
    activations). `qtype` is the activations' type (int8 or uint8)."""
    np_t, onnx_t = (np.int8, TensorProto.INT8) if qtype == "int8" else (np.uint8, TensorProto.UINT8)
    zp = (lambda v: np_t(v)) if qtype == "int8" else (lambda v: np_t(v + 128))
    d = shape[-1]
    inits = [init("xs", np.float32(0.05)), init("xz", zp(3))]
    nodes = [helper.make_node("QuantizeLinear", ["input", "xs", "xz"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["x"])]

    def requant(src, dst, ys, yz):
        inits.extend([init(f"{dst}_s", np.float32(ys)), init(f"{dst}_z", zp(yz))])
        nodes.extend([helper.make_node("QuantizeLinear", [src, f"{dst}_s", f"{dst}_z"], [f"{dst}_q"]),
                      helper.make_node("DequantizeLinear", [f"{dst}_q", f"{dst}_s", f"{dst}_z"],
                                       [dst])])

    for w in ("wq", "wk"):
        inits += [init(w, rng.integers(-127, 128, (d, kdim)).astype(np.int8)),
                  init(f"{w}_s", np.float32(0.01)), init(f"{w}_z", np.int8(0))]
        nodes.append(helper.make_node("DequantizeLinear", [w, f"{w}_s", f"{w}_z"], [f"{w}_d"]))
        nodes.append(helper.make_node("MatMul", ["x", f"{w}_d"], [f"{w}_y"]))
        requant(f"{w}_y", w[1], 0.4, -2)
    perm = list(range(len(shape)))
    perm[-2:] = perm[-1], perm[-2]
    nodes.append(helper.make_node("Transpose", ["k"], ["kt_f"], perm=perm))
    requant("kt_f", "kt", 0.4, -2)
    nodes.append(helper.make_node("MatMul", ["q", "kt"], ["s_f"]))
    requant("s_f", "s", 2.5, 5)
    nodes.append(helper.make_node("MatMul", ["s", "x"], ["o_f"]))
    requant("o_f", "o", 6.0, -1)
    nodes.append(helper.make_node("Identity", ["o"], ["output"]))
    g = helper.make_graph(nodes, name,
                          [helper.make_tensor_value_info("input", TensorProto.FLOAT, shape)],
                          [helper.make_tensor_value_info("output", TensorProto.FLOAT, shape)],
                          initializer=inits)
    path = work / f"{name}.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    path_shapes[name] = shape
    return path


def case_attention():
    """Products of two activations on the array (issue 16): the rhs is read
    from DRAM per item instead of the constant pool; int8 and uint8 (the
    sign-flipping DMA), rank 3 and rank 4 (heads as batches), a K longer
    than the array (OS rows, WS K passes) on rtl-8x8 (RTL == SystemC)."""
    fails = 0
    for name, shape, kdim, qtype in (("attention.int8", [2, 12, 20], 16, "int8"),
                                     ("attention.uint8", [1, 2, 8, 24], 12, "uint8")):
        path = attention_model(name, shape, kdim, qtype)
        for hw in ("default-32x32", "rtl-8x8"):
            fails += check(f"{name}", path, hw, "matmul")
    return fails


def check_convs_on_npu(name, path, convs):
    """check() on default-32x32 and rtl-8x8, plus: all `convs` convolutions
    of the model are on the NPU."""
    fails = 0
    for hw in ("default-32x32", "rtl-8x8"):
        fails += check(name, path, hw, "conv")
        layers = json.loads((work / f"{name}.json").read_text())["layers"]
        on_npu = [l for l in layers if l["op"] == "graph.conv2d" and l["placement"] == "npu"]
        if len(on_npu) != convs:
            print(f"{name} {hw}: FAIL: {len(on_npu)} of {convs} convolutions on the NPU: "
                  f"{layers}")
            fails += 1
    return fails


def case_dilated():
    """Dilated dense convolutions on the array: dilation in H is
    A's outer K stride, in W each kernel row is a MATMUL of its own (taps
    dw*Cin apart); symmetric and one-sided dilation, stride 2, padding, a K
    on rtl-8x8 too (RTL == SystemC)."""
    b = Builder([1, 24, 13, 15])
    b.conv(24, 32, 3, pad=2, dilation=(2, 2), ys=1.5)
    b.conv(32, 16, 3, pad=1, dilation=(1, 3), stride=2, ys=1.0, yz=4)
    b.conv(16, 24, 3, pad=3, dilation=(3, 1), ys=0.8)
    path_shapes["dilated"] = [1, 24, 13, 15]
    return check_convs_on_npu("dilated", b.save("dilated"), 3)


def case_aspp():
    """Dilated kernels wider than their map (DeepLab's ASPP on a small
    map): graph-drop-padding-taps cuts the taps that read only padding, so
    they run on the array (the NPU refuses kernels wider than the input).
    On a 2x9 map, dilation 2 with padding 2 keeps the middle tap row (a
    1x3 kernel dilated 2 in W); dilation 12 leaves the centre tap (1x1);
    the last conv keeps its whole 3x3 kernel."""
    b = Builder([1, 16, 2, 9])
    b.conv(16, 24, 3, pad=2, dilation=(2, 2), ys=1.5)
    b.conv(24, 16, 3, pad=12, dilation=(12, 12), ys=1.0, yz=4, relu=True)
    b.conv(16, 8, 3, pad=1, ys=0.8)
    path_shapes["aspp"] = [1, 16, 2, 9]
    return check_convs_on_npu("aspp", b.save("aspp"), 3)


def case_activation_table():
    """int8 activations by table (issue 16): DequantizeLinear -> f ->
    QuantizeLinear after a conv or Gemm runs as the conv's REQUANT table
    (npu-fold-tables); the table is the host code of f run on the 256
    codes. HardSwish and HardSigmoid (MobileNetV3's squeeze-excitation,
    through its [1, C, 1, 1] reshapes), Sigmoid, SiLU (EfficientNet, YOLO),
    Tanh and GELU (transformers) after convolutions; GELU and Tanh after
    Gemms (the matmul epilogue)."""
    b = Builder([1, 16, 6, 6])
    for kind, cout, ys, yz in (("HardSwish", 24, 0.05, -100), ("Sigmoid", 24, 1 / 256, -128),
                               ("SiLU", 16, 0.04, -110), ("Tanh", 24, 1 / 128, 0),
                               ("GELU", 16, 0.03, -90)):
        b.conv(b.shape[1], cout, 3 if kind in ("HardSwish", "SiLU", "Tanh") else 1,
               pad=1 if kind in ("HardSwish", "SiLU", "Tanh") else 0, ys=0.3, yz=5)
        b.activation(kind, ys, yz)
    # Squeeze-excitation as MobileNetV3 has it: GAP -> 1x1 conv -> ReLU ->
    # 1x1 conv -> HardSigmoid on [1, C, 1, 1] -> channel scale.
    feat, fscale, fshape = b.cur, b.scale, b.shape
    g = b.gap(ys=0.1, yz=0)
    b.cur, b.scale, b.shape = g, 0.1, [1, 16, 1, 1]
    b.conv(16, 8, 1, ys=0.2, yz=-128, relu=True)
    b.conv(8, 16, 1, ys=0.3, yz=5)
    b.activation("HardSigmoid", 1 / 255, -128)
    hs = b.cur
    b.cur, b.scale, b.shape = feat, fscale, fshape
    b.binary("Mul", feat, hs, ys=0.03, yz=-90)
    path_shapes["activation-table"] = [1, 16, 6, 6]
    path = b.save("activation-table")
    fails = 0
    for hw in ("default-32x32", "rtl-8x8"):
        fails += check("activation-table", path, hw, "conv")
        report = json.loads((work / "activation-table.json").read_text())
        tables = [p for p in report["placement"]["ops"]
                  if p["op"] == "table" and p["placement"] == "npu"]
        host = [l for l in report["layers"] if l["placement"] == "host"
                and l["op"] not in ("graph.quantize", "graph.dequantize")]
        if len(tables) != 6 or host:
            print(f"activation-table {hw}: FAIL: {len(tables)} of 6 activations as NPU "
                  f"tables, on the host: {host}")
            fails += 1
    b = Builder([2, 64], xs=0.04, xz=-3)
    b.gemm(64, 48, ys=0.2)
    b.activation("GELU", 0.02, -100)
    b.gemm(48, 24, ys=0.1)
    b.activation("Tanh", 1 / 128, 0)
    path_shapes["gemm-table"] = [2, 64]
    path = b.save("gemm-table")
    fails += check("gemm-table", path, "rtl-8x8", "matmul")
    report = json.loads((work / "gemm-table.json").read_text())
    tables = [p for p in report["placement"]["ops"]
              if p["op"] == "table" and p["placement"] == "npu"]
    if len(tables) != 2:
        print(f"gemm-table: FAIL: {len(tables)} of 2 activations as NPU tables")
        fails += 1
    return fails


def case_conv1d():
    """1-D convolutions (audio, [N, C, L]) on the array as 2-D ones over
    [N, C, 1, L]: padding, ReLU, stride 2 with dilation 2 and asymmetric
    padding, depthwise, grouped, 1x1."""
    b = Builder([1, 16, 50])
    b.conv1d(16, 32, 3, pad=(1, 1), relu=True, ys=0.8)
    b.conv1d(32, 32, 5, stride=2, dilation=2, pad=(4, 3), ys=1.0, yz=4)
    b.conv1d(32, 32, 3, group=32, pad=(1, 1), ys=0.9)
    b.conv1d(32, 16, 3, group=4, ys=0.7, yz=-3)
    b.conv1d(16, 8, 1, ys=0.5)
    path_shapes["conv1d"] = [1, 16, 50]
    return check_convs_on_npu("conv1d", b.save("conv1d"), 5)


def case_residual():
    """Residual adds applied in the epilogue of the convolution that
    produces one operand (npu-fuse-residual), as ResNet and MobileNetV2
    blocks have them: an identity shortcut with the conv as the add's first
    operand and ReLU after the add (output zero point -128: ORT then drops
    the Relu and runs QLinearAdd); a projection shortcut (1x1 stride-2
    conv) where both operands are convolutions (the later one applies the
    add); the conv as the second operand; and a conv whose result is read
    twice, whose adds stay layers of their own. On rtl-8x8 the convs split
    into many tiles and K chunks (RTL == SystemC); on a 8 KiB scratchpad
    the 3x3x128 conv splits K across items, the add in the last one."""
    return residual_model(False)


def case_residual_uint8():
    """The residual blocks with uint8 activations (ORT's default; VADD in
    its uint8 mode in the epilogue), on default-32x32 and rtl-8x8. This
    found that ORT's x86 build contracts QLinearAdd's fixed part into an
    FMA (docs/isa.md, VADD): 4 of 960 values were 1 LSB off before."""
    return residual_model(True)


def residual_model(uint8):
    name = "residual-u8" if uint8 else "residual"
    b = Builder([1, 16, 10, 12], uint8=uint8)
    b.conv(16, 16, 3, pad=1, ys=0.4, yz=-5)
    x = b.cur
    b.conv(16, 16, 3, pad=1, ys=0.5, yz=3)
    b.binary("Add", b.cur, x, ys=0.3, yz=-128, relu=True)
    x, xs, xshape = b.cur, b.scale, b.shape
    b.conv(16, 32, 1, stride=2, ys=0.3, yz=2)
    short = b.cur
    b.cur, b.scale, b.shape = x, xs, xshape
    b.conv(16, 32, 3, stride=2, pad=1, ys=0.45, yz=-9)
    b.binary("Add", short, b.cur, ys=0.5, yz=6)
    x = b.cur
    b.conv(32, 32, 3, pad=1, ys=0.35, yz=1)
    b.binary("Add", x, b.cur, ys=0.55, yz=-3)
    x = b.cur
    b.conv(32, 128, 1, ys=0.3, yz=-4)
    b.conv(128, 32, 3, pad=1, ys=0.6, yz=5)
    b.binary("Add", b.cur, x, ys=0.65, yz=2)
    x = b.cur
    b.conv(32, 32, 1, ys=0.4, yz=-2)
    c = b.cur
    b.binary("Add", c, x, ys=0.6, yz=4)
    b.binary("Add", b.cur, c, ys=0.7, yz=-1)
    path_shapes[name] = [1, 16, 10, 12]
    path = b.save(name)
    fails = 0
    ksplit = REPO / "tests" / "e2e" / "configs" / "ksplit-8x8.json"
    for hw in ("default-32x32", "rtl-8x8") + (() if uint8 else (ksplit,)):
        fails += check(name, path, hw, "conv")
        layers = json.loads((work / f"{name}.json").read_text())["layers"]
        if hw == ksplit and not any(" k=" in l["mapping"] and " +add" in l["mapping"]
                                    for l in layers):
            print(f"{name} {hw}: FAIL: no fused add after a K split: {layers}")
            fails += 1
        fused = [l["name"] for l in layers if " +add" in l["mapping"]]
        adds = [l["name"] for l in layers if l["op"] == "graph.add"]
        if len(fused) != 4 or len(adds) != 2:
            print(f"{name} {hw}: FAIL: {len(fused)} of 4 adds fused ({fused}), "
                  f"{len(adds)} of 2 add layers ({adds})")
            fails += 1
    return fails


def case_gate():
    """x * f(x) folded into one table of x (npu-fuse-gate), as QDQ exports
    have SiLU (EfficientNet, YOLO: x * Sigmoid(x)) and HardSwish
    (MobileNetV3 at opset 13: x * HardSigmoid(x); PaddleOCR:
    x * Clip(x + 3, 0, 6) / 6 with every step quantized), f(x) quantized on
    its own and multiplied by QLinearMul: after a dense conv, after a
    depthwise conv (the vector unit's REQUANT), with x as the mul's second
    operand, with HardSigmoid (a host op the layout pass does not move
    transposes across: the mul starts out in NCHW), and the PaddleOCR form
    (three quantized steps, then "/ 6" composed after the product)."""
    b = Builder([1, 16, 9, 11])
    gates = (("Sigmoid", 1 / 256, -128, False), ("Sigmoid", 1 / 256, -128, True),
             ("HardSigmoid", 1 / 255, -128, False))
    for n, (f, fs, fz, swap) in enumerate(gates):
        if n == 1:  # depthwise 3x3
            b.conv(16, 16, 3, group=16, pad=1, ys=0.3, yz=4)
        else:
            b.conv(16, 16, 3, pad=1, ys=0.35, yz=-6)
        x = b.cur
        b.activation(f, fs, fz)
        g = b.cur
        b.binary("Mul", g if swap else x, x if swap else g, ys=0.2, yz=-30)
    # PaddleOCR's HardSwish.
    b.conv(16, 16, 1, ys=0.08, yz=-7)
    x = b.cur
    b.inits += [init("three", np.float32(3.0)), init("six", np.float32(6.0))]
    b.nodes.append(helper.make_node("Add", [x, "three"], ["hs_a"]))
    b._requant(900, "hs_a", 0.08, -44, False)
    b.nodes.append(helper.make_node("Clip", [b.cur, "", "six"], ["hs_c"]))
    b.nodes[-1].input[1] = "zero_f"
    b.inits.append(init("zero_f", np.float32(0.0)))
    b._requant(901, "hs_c", 6 / 255, -128, False)
    b.binary("Mul", x, b.cur, ys=0.26, yz=-120)
    b.nodes.append(helper.make_node("Div", [b.cur, "six"], ["hs_d"]))
    b._requant(902, "hs_d", 0.044, -120, False)
    b.conv(16, 8, 1, ys=0.4, yz=2)  # reads the last product
    path_shapes["gate"] = [1, 16, 9, 11]
    path = b.save("gate")
    fails = 0
    for hw in ("default-32x32", "rtl-8x8"):
        fails += check("gate", path, hw, "conv")
        report = json.loads((work / "gate.json").read_text())
        tables = [p["name"] for p in report["placement"]["ops"]
                  if p["op"] == "table" and p["placement"] == "npu"]
        others = [p["op"] for p in report["placement"]["ops"]
                  if p["op"] not in ("quantize", "dequantize", "transpose", "table", "conv2d",
                                     "reshape")
                  or (p["op"] == "conv2d" and p["placement"] != "npu")]
        if len(tables) != 4 or others:
            print(f"gate {hw}: FAIL: {len(tables)} of 4 gates as tables ({tables}), "
                  f"other ops: {others}")
            fails += 1
    return fails


def case_concat():
    """Channel concat of convolutions written in place (npu-concat-in-place):
    an Inception-like block (1x1, 3x3 and 1x1 -> 3x3 branches with different
    output scales) and a SqueezeNet fire module (1x1 and 3x3 expands of one
    squeeze), each concat then read by a conv; every producer stores its
    tile, mapped through its requantization table, into its channel slice
    of the concat's buffer."""
    b = Builder([1, 16, 8, 10])
    x, xs, xshape = b.cur, b.scale, b.shape
    outs = []
    for cout, k, ys, yz in ((8, 1, 0.3, -5), (16, 3, 0.45, 7), (8, 1, 0.2, 0)):
        b.cur, b.scale, b.shape = x, xs, xshape
        b.conv(16, cout, k, pad=k // 2, ys=ys, yz=yz)
        if cout == 8 and ys == 0.2:  # the third branch: 1x1 then 3x3
            b.conv(8, 8, 3, pad=1, ys=0.35, yz=-3)
        outs.append(b.cur)
    b.nodes.append(helper.make_node("Concat", outs, ["cat1"], axis=1))
    b._requant(800, "cat1", 0.4, -2, False)
    b.shape = [1, 32, 8, 10]
    b.conv(32, 16, 1, ys=0.5, yz=3)  # squeeze
    sq, sqs, sqshape = b.cur, b.scale, b.shape
    b.conv(16, 16, 1, ys=0.25, yz=-128)
    e1 = b.cur
    b.cur, b.scale, b.shape = sq, sqs, sqshape
    b.conv(16, 16, 3, pad=1, ys=0.3, yz=-128)
    e3 = b.cur
    b.nodes.append(helper.make_node("Concat", [e1, e3], ["cat2"], axis=1))
    b._requant(801, "cat2", 0.3, -128, False)
    b.shape = [1, 32, 8, 10]
    b.conv(32, 8, 1, ys=0.4, yz=1)
    path_shapes["concat"] = [1, 16, 8, 10]
    path = b.save("concat")
    fails = 0
    for hw in ("default-32x32", "rtl-8x8"):
        fails += check("concat", path, hw, "conv")
        report = json.loads((work / "concat.json").read_text())
        sliced = [l["name"] for l in report["layers"] if " +concat" in l["mapping"]]
        host = [p["op"] for p in report["placement"]["ops"] if p["placement"] == "host"
                and p["op"] not in ("quantize", "dequantize", "transpose")]
        if len(sliced) != 5 or host:
            print(f"concat {hw}: FAIL: {len(sliced)} of 5 convs store into a concat slice "
                  f"({sliced}), on the host: {host}")
            fails += 1
    return fails


def case_elementwise_host():
    """Activations that are host ops of a one-element constant, between
    NCHW convolutions, as tf2onnx writes them (openWakeWord: LeakyRelu then
    Max(x, 0.0)): graph-to-nhwc moves its transposes through them and
    npu-fold-tables makes each one the convolution's REQUANT table, so no
    op but the model's quantize/dequantize runs on the host and no
    activation is transposed."""
    b = Builder([1, 16, 7, 9])
    consts = {"Max": 0.0, "Min": 2.5, "Pow": 2.0}
    for kind, k, ys, yz in (("LeakyRelu", 3, 0.1, -80), ("Max", 1, 0.08, -120),
                            ("Min", 3, 0.02, 0), ("Pow", 1, 0.05, -128)):
        b.conv(b.shape[1], 24 if kind != "Pow" else 16, k, pad=k // 2, ys=0.3, yz=5)
        i = b.n = b.n + 1
        if kind == "LeakyRelu":
            b.nodes.append(helper.make_node(kind, [b.cur], [f"a{i}"], alpha=0.2))
        else:
            b.inits.append(init(f"c{i}", np.full([1, 1, 1, 1], consts[kind], np.float32)))
            b.nodes.append(helper.make_node(kind, [b.cur, f"c{i}"], [f"a{i}"]))
        b._requant(i, f"a{i}", ys, yz, False)
    path_shapes["elementwise-host"] = [1, 16, 7, 9]
    path = b.save("elementwise-host")
    fails = 0
    for hw in ("default-32x32", "rtl-8x8"):
        fails += check("elementwise-host", path, hw, "conv")
        report = json.loads((work / "elementwise-host.json").read_text())
        tables = [p for p in report["placement"]["ops"]
                  if p["op"] == "table" and p["placement"] == "npu"]
        host = [p["op"] for p in report["placement"]["ops"] if p["placement"] == "host"]
        if len(tables) != 4 or sorted(host) != ["dequantize", "quantize", "transpose",
                                                "transpose"]:
            print(f"elementwise-host {hw}: FAIL: {len(tables)} of 4 activations as NPU "
                  f"tables, on the host: {host} (expected the model's quantize, "
                  f"dequantize and its input/output transposes)")
            fails += 1
    return fails


def case_dense_block():
    """A DenseNet block (issue 16): each layer concatenates every earlier
    feature map again (the concat is not in place: npu-concat-copy copies
    each input into its channel slice through a VLUT table), then a
    pre-activation BatchNormalization + ReLU, a per-channel function of one
    value, composed into the concat's tables ([C, 256], VLUT per column);
    last, an activation after an add (VADD has no table stage) as a VLUT
    layer of its own. Nothing but the model's quantize/dequantize and its
    I/O transposes may run on the host."""
    b = Builder([1, 16, 6, 7])
    b.conv(16, 16, 3, pad=1, ys=0.3, yz=-5)
    feats, scales = [b.cur], [b.scale]
    for layer in range(3):
        i = 900 + 10 * layer
        cin = 16 + 8 * layer
        b.nodes.append(helper.make_node("Concat", list(feats), [f"cat{i}"], axis=1))
        b._requant(i, f"cat{i}", 0.35 + 0.05 * layer, -3 + layer, False)
        gamma = rng.uniform(0.5, 1.5, cin).astype(np.float32)
        beta = rng.uniform(-1, 1, cin).astype(np.float32)
        mean = rng.uniform(-0.5, 0.5, cin).astype(np.float32)
        var = rng.uniform(0.5, 2, cin).astype(np.float32)
        b.inits += [init(f"g{i}", gamma), init(f"be{i}", beta), init(f"mu{i}", mean),
                    init(f"va{i}", var)]
        b.nodes.append(helper.make_node(
            "BatchNormalization", [b.cur, f"g{i}", f"be{i}", f"mu{i}", f"va{i}"],
            [f"bn{i}"], epsilon=1e-5))
        b._requant(i + 1, f"bn{i}", 0.2, 10, False)
        b.nodes.append(helper.make_node("Relu", [b.cur], [f"relu{i}"]))
        b._requant(i + 2, f"relu{i}", 0.1, -128, False)
        b.shape = [1, cin, 6, 7]
        b.conv(cin, 8, 3, pad=1, ys=0.25 + 0.05 * layer, yz=2 * layer)
        feats.append(b.cur)
        scales.append(b.scale)
    # An add of the last two feature maps, then a sigmoid of the sum.
    b.shape = [1, 8, 6, 7]
    b.binary("Add", feats[-1], feats[-2], ys=0.4, yz=-1)
    b.activation("Sigmoid", 1 / 256, -128)
    path_shapes["dense-block"] = [1, 16, 6, 7]
    path = b.save("dense-block")
    fails = 0
    for hw in ("default-32x32", "rtl-8x8"):
        fails += check("dense-block", path, hw, "conv")
        report = json.loads((work / "dense-block.json").read_text())
        ops = report["placement"]["ops"]
        host = [p["op"] for p in ops if p["placement"] == "host"
                and p["op"] not in ("quantize", "dequantize", "transpose")]
        tables = [p for p in ops if p["op"] == "table" and p["placement"] == "npu"]
        concats = [l for l in report["layers"] if l["op"] == "graph.concat"]
        luts = [l for l in report["layers"] if l["op"] == "graph.table"]
        if host or len(concats) != 3 or len(luts) != 1 or len(tables) < 4:
            print(f"dense-block {hw}: FAIL: on the host {host}; {len(concats)} of 3 concat "
                  f"layers, {len(luts)} of 1 table layer, {len(tables)} NPU tables (>= 4)")
            fails += 1
    return fails


def case_avg_pool():
    """Average pooling with a window on the vector unit (POOL avg_float,
    ORT's QLinearAveragePool arithmetic): DenseNet's transition 2x2/2,
    Inception's 3x3/1 with padding counted in the divisor, a 3x3/2 with
    padding not counted; int8 and uint8 (the unit's uint8 mode)."""
    fails = 0
    for uint8 in (False, True):
        name = "avg-pool-uint8" if uint8 else "avg-pool"
        b = Builder([1, 16, 9, 10], uint8=uint8)
        b.conv(16, 16, 3, pad=1, ys=0.3, yz=-5)
        for i, (k, st, pad, cip, ys, yz) in enumerate(((2, 2, 0, 0, 0.25, -4),
                                                       (3, 1, 1, 1, 0.2, 3),
                                                       (3, 2, 1, 0, 0.15, -1))):
            j = 950 + i
            b.nodes.append(helper.make_node(
                "AveragePool", [b.cur], [f"ap{j}"], kernel_shape=[k, k], strides=[st, st],
                pads=[pad] * 4, count_include_pad=cip))
            b._requant(j, f"ap{j}", ys, yz, False)
            n, c, h, w = b.shape
            b.shape = [n, c, (h + 2 * pad - k) // st + 1, (w + 2 * pad - k) // st + 1]
            if i == 0:
                b.conv(16, 16, 1, ys=0.35, yz=2)
        path_shapes[name] = [1, 16, 9, 10]
        path = b.save(name)
        for hw in ("default-32x32", "rtl-8x8"):
            fails += check(name, path, hw, "conv")
            report = json.loads((work / f"{name}.json").read_text())
            pools = [l for l in report["layers"] if l["op"] == "graph.pool"]
            host = [p["op"] for p in report["placement"]["ops"] if p["placement"] == "host"
                    and p["op"] not in ("quantize", "dequantize", "transpose")]
            if len(pools) != 3 or host:
                print(f"{name} {hw}: FAIL: {len(pools)} of 3 average pools on the NPU, "
                      f"on the host: {host}")
                fails += 1
    return fails


def case_shuffle():
    """ShuffleNetV2's unit (issue 16): split the channels in two (Slice and
    Split between DequantizeLinear and QuantizeLinear), a branch of convs
    on one half, concat, channel shuffle (reshape [N, 2, C/2, H, W],
    transpose, reshape back). The shuffle and the splits are 1x1 convs with
    0/1 weights that copy codes (graph-to-nhwc, ChannelGather.cpp), the
    concat a copy: nothing but the model's I/O on the host."""
    b = Builder([1, 16, 6, 7])
    b.conv(16, 32, 1, ys=0.3, yz=-5)
    for unit in range(2):
        i = 970 + 10 * unit
        x, xs = b.cur, b.scale
        if unit == 0:
            b.inits += [init(f"st{i}", np.array([0], np.int64)),
                        init(f"mid{i}", np.array([16], np.int64)),
                        init(f"end{i}", np.array([32], np.int64)),
                        init(f"ax{i}", np.array([1], np.int64))]
            b.nodes += [helper.make_node("Slice", [x, f"st{i}", f"mid{i}", f"ax{i}"], [f"h1{i}"]),
                        helper.make_node("Slice", [x, f"mid{i}", f"end{i}", f"ax{i}"], [f"h2{i}"])]
        else:
            b.inits.append(init(f"sp{i}", np.array([16, 16], np.int64)))
            b.nodes.append(helper.make_node("Split", [x, f"sp{i}"], [f"h1{i}", f"h2{i}"], axis=1))
        # Each half quantized with its own scale (the first as the input).
        b._requant(i, f"h1{i}", xs, -5, False)
        h1 = b.cur
        b._requant(i + 1, f"h2{i}", 0.27, 3, False)
        b.shape = [1, 16, 6, 7]
        b.conv(16, 16, 1, ys=0.2, yz=1, relu=True)
        b.conv(16, 16, 3, group=16, pad=1, ys=0.25, yz=-2)
        b.conv(16, 16, 1, ys=0.3, yz=-5, relu=True)
        b.nodes.append(helper.make_node("Concat", [h1, b.cur], [f"cat{i}"], axis=1))
        b._requant(i + 2, f"cat{i}", 0.3, -5, False)
        b.inits += [init(f"s5{i}", np.array([1, 2, 16, 6, 7], np.int64)),
                    init(f"s4{i}", np.array([1, 32, 6, 7], np.int64))]
        b.nodes += [helper.make_node("Reshape", [b.cur, f"s5{i}"], [f"r5{i}"]),
                    helper.make_node("Transpose", [f"r5{i}"], [f"t5{i}"], perm=[0, 2, 1, 3, 4]),
                    helper.make_node("Reshape", [f"t5{i}", f"s4{i}"], [f"r4{i}"])]
        b._requant(i + 3, f"r4{i}", 0.3, -5, False)
        b.shape = [1, 32, 6, 7]
    b.conv(32, 8, 1, ys=0.4, yz=2)
    path_shapes["shuffle"] = [1, 16, 6, 7]
    path = b.save("shuffle")
    fails = 0
    for hw in ("default-32x32", "rtl-8x8"):
        fails += check("shuffle", path, hw, "conv")
        report = json.loads((work / "shuffle.json").read_text())
        host = [p["op"] for p in report["placement"]["ops"] if p["placement"] == "host"
                and p["op"] not in ("quantize", "dequantize")]
        if host != ["transpose", "transpose"]:
            print(f"shuffle {hw}: FAIL: on the host {host} (expected the model's input and "
                  f"output transposes only)")
            fails += 1
    return fails


def check_all_on_npu(name, path, op, count):
    """check() on default-32x32 and rtl-8x8 (RTL == SystemC), and that the
    compile put `count` layers of `op` on the NPU and nothing but the
    model's I/O on the host."""
    fails = 0
    for hw in ("default-32x32", "rtl-8x8"):
        fails += check(name, path, hw, "conv")
        report = json.loads((work / f"{name}.json").read_text())
        layers = [l for l in report["layers"] if l["op"] == op]
        host = [p["op"] for p in report["placement"]["ops"] if p["placement"] == "host"
                and p["op"] not in ("quantize", "dequantize", "transpose")]
        if len(layers) != count or host:
            print(f"{name} {hw}: FAIL: {len(layers)} of {count} {op} on the NPU, on the host: {host}")
            fails += 1
    return fails


def case_upsample():
    """Nearest-neighbour upsampling by integer factors (issue 16: detector
    and FPN necks; Resize nearest, asymmetric, floor, as PyTorch exports
    nn.Upsample): a graph.upsample the NPU runs as an identity VLUT and
    strided stores. 2x2 and 2x3 (scales), then one by sizes; int8 and
    uint8; nothing on the host but the model's I/O."""
    fails = 0
    for uint8 in (False, True):
        name = "upsample-uint8" if uint8 else "upsample"
        b = Builder([1, 8, 5, 6], uint8=uint8)
        b.conv(8, 16, 3, pad=1, ys=0.3, yz=-5)
        for i, (fy, fx, by_sizes) in enumerate(((2, 2, False), (2, 3, False), (3, 2, True))):
            j = 990 + i
            n, c, h, w = b.shape
            if by_sizes:
                b.inits.append(init(f"sz{j}", np.array([n, c, h * fy, w * fx], np.int64)))
                ins = [b.cur, "", "", f"sz{j}"]
            else:
                b.inits.append(init(f"sc{j}", np.array([1, 1, fy, fx], np.float32)))
                ins = [b.cur, "", f"sc{j}"]
            b.nodes.append(helper.make_node(
                "Resize", ins, [f"up{j}"], mode="nearest",
                coordinate_transformation_mode="asymmetric", nearest_mode="floor"))
            b._requant(j, f"up{j}", b.scale, -5, False)
            b.shape = [n, c, h * fy, w * fx]
            if i == 0:
                b.conv(16, 16, 1, ys=0.25, yz=3)
        path_shapes[name] = [1, 8, 5, 6]
        path = b.save(name)
        fails += check_all_on_npu(name, path, "graph.upsample", 3)
    return fails


def case_depth_to_space():
    """DepthToSpace (issue 16: super-resolution heads; PyTorch's
    pixel_shuffle exports CRD, TensorFlow's depth_to_space DCR): the NPU
    stores each b x b block of channel runs with strides (identity VLUT
    first, as upsampling); a CRD one is a 1x1 channel gather into DCR order
    first. Blocks 2 (DCR, then CRD) and 3 (CRD); nothing on the host but
    the model's I/O. uint8 only: ORT 1.23.2 drops the DequantizeLinear /
    QuantizeLinear pair around a DepthToSpace and its CPU DepthToSpace
    kernel has no int8 (float, double, uint8), so an int8 QDQ model does not
    load there (the NPU path is the same but for the identity table's bytes
    and the uint8 sign flips, which uint8 adds)."""
    fails = 0
    for uint8 in (True,):
        name = "depth-to-space-uint8"
        b = Builder([1, 8, 5, 6], uint8=uint8)
        for i, (bs, mode) in enumerate(((2, "DCR"), (2, "CRD"), (3, "CRD"))):
            j = 980 + i
            b.conv(b.shape[1], 4 * bs * bs if i < 2 else 2 * bs * bs, 3, pad=1,
                   ys=0.3, yz=-5 + i)
            n, c, h, w = b.shape
            b.nodes.append(helper.make_node("DepthToSpace", [b.cur], [f"d2s{j}"],
                                            blocksize=bs, mode=mode))
            b._requant(j, f"d2s{j}", b.scale, -5 + i, False)
            b.shape = [n, c // (bs * bs), h * bs, w * bs]
        path_shapes[name] = [1, 8, 5, 6]
        path = b.save(name)
        fails += check_all_on_npu(name, path, "graph.depth_to_space", 3)
    return fails


def case_space_to_depth():
    """SpaceToDepth (issue 16; YOLO-style "focus" stems, TensorFlow's
    space_to_depth): the NPU copies each of the b x b pixel planes of a
    unit of b input rows to its channel run with strided stores. Blocks 2
    and 3 between convolutions; nothing on the host but the model's I/O.
    uint8 (ORT 1.23.2's SpaceToDepth kernel, like its DepthToSpace, has no
    int8)."""
    fails = 0
    name = "space-to-depth-uint8"
    b = Builder([1, 4, 12, 12], uint8=True)
    for i, bs in enumerate((2, 3)):
        j = 960 + i
        b.conv(b.shape[1], 6 if i == 0 else 5, 3, pad=1, ys=0.3, yz=-5 + i)
        n, c, h, w = b.shape
        b.nodes.append(helper.make_node("SpaceToDepth", [b.cur], [f"s2d{j}"], blocksize=bs))
        b._requant(j, f"s2d{j}", b.scale, -5 + i, False)
        b.shape = [n, c * bs * bs, h // bs, w // bs]
    b.conv(b.shape[1], 8, 1, ys=0.25, yz=2)
    path_shapes[name] = [1, 4, 12, 12]
    path = b.save(name)
    return check_all_on_npu(name, path, "graph.space_to_depth", 2)


def case_pad_conv():
    """An explicit Pad of 0.0 before a VALID strided convolution, as
    TensorFlow converters write "SAME" padding (one more row and column at
    the bottom and right), before a dense and a depthwise convolution
    (issue 16): graph-fold-pad moves it into the convolutions' padding, so
    the Pad is not a host op between NPU segments. int8 and uint8."""
    fails = 0
    for uint8 in (False, True):
        name = "pad-conv-uint8" if uint8 else "pad-conv"
        b = Builder([1, 8, 9, 9], uint8=uint8)
        b.conv(8, 16, 3, pad=1, ys=0.3, yz=-5)
        for i, (pads, group) in enumerate((([0, 0, 0, 0, 0, 0, 1, 1], 1),
                                           ([0, 0, 1, 1, 0, 0, 1, 1], 16))):
            j = 970 + i
            n, c, h, w = b.shape
            b.inits.append(init(f"pads{j}", np.array(pads, np.int64)))
            b.inits.append(init(f"pv{j}", np.float32(0.0)))
            b.nodes.append(helper.make_node("Pad", [b.cur, f"pads{j}", f"pv{j}"], [f"pd{j}"],
                                            mode="constant"))
            b._requant(j, f"pd{j}", b.scale, -5 if i == 0 else 2, False)
            b.shape = [n, c, h + pads[2] + pads[6], w + pads[3] + pads[7]]
            b.conv(16, 16, 3, group=group, stride=2, pad=0, ys=0.25, yz=2)
        path_shapes[name] = [1, 8, 9, 9]
        path = b.save(name)
        fails += check_all_on_npu(name, path, "graph.conv2d", 3)
    return fails


def case_cascade():
    """Layers kept on chip (issue 18, npu-plan-cascades): a chain of
    convolutions whose outputs only the next one reads, so each may write
    its output straight into the next one's padded input tile in the
    scratchpad (a HardSwish table applied on the way, a strided consumer,
    a 1x1 one, a depthwise one on the vector unit, which reads its rows and
    channels in place, a grouped one on the array, whose groups address
    their channels in the kept image, and a max pool without padding, whose
    items then load nothing). The compile report marks a kept output ">sp" and an input
    read on chip "<sp"; the test requires at least three kept edges, into
    the depthwise layer and into the max pool among them, on
    default-32x32 (the cost model's own choice) and on rtl-8x8 (64 KiB of
    scratchpad; RTL == SystemC in values and cycles), int8 and uint8. On
    rtl-8x8 the cost model keeps fewer edges (a kept output into a padded
    image is one REQUANT per row, and each waits for the post-processor),
    so there `--keep-on-chip` keeps every edge that fits: the test is
    about the mechanism's values and cycles on the RTL, and the grouped
    layer must read its input on chip there."""
    fails = 0
    for uint8 in (False, True):
        name = "cascade-uint8" if uint8 else "cascade"
        b = Builder([1, 16, 20, 20], uint8=uint8)
        b.conv(16, 32, 3, pad=1, ys=0.4, yz=-5)
        b.conv(32, 32, 3, pad=1, ys=0.3, yz=4)
        b.activation("HardSwish", 0.2, -20)
        b.conv(32, 24, 1, ys=0.5, yz=1)
        b.conv(24, 32, 3, stride=2, pad=1, ys=0.6, yz=-2)
        b.conv(32, 32, 3, group=32, pad=1, ys=0.5, yz=3)  # depthwise (DWCONV)
        b.conv(32, 16, 1, ys=0.7, yz=-1)
        b.conv(16, 16, 3, group=4, pad=1, ys=0.5, yz=2)  # grouped (array)
        # A max pool without padding: its items read the kept image and
        # load nothing.
        b.nodes.append(helper.make_node("MaxPool", [b.cur], ["mp960"],
                                        kernel_shape=[2, 2], strides=[2, 2]))
        b._requant(960, "mp960", b.scale, -1, False)
        n, c, h, w = b.shape
        b.shape = [n, c, h // 2, w // 2]
        path_shapes[name] = [1, 16, 20, 20]
        path = b.save(name)
        for hw in ("default-32x32", "rtl-8x8"):
            flags = ("--keep-on-chip",) if hw == "rtl-8x8" else ()
            fails += check(name, path, hw, "conv", flags=flags)
            layers = [l for l in json.loads((work / f"{name}.json").read_text())["layers"]
                      if l["op"] in ("graph.conv2d", "graph.pool")]
            kept = [l["mapping"] for l in layers]
            edges = sum(">sp" in a and "<sp" in b for a, b in zip(kept, kept[1:]))
            orphans = sum(("<sp" in b) != (">sp" in a) for a, b in zip(kept, kept[1:]))
            # The depthwise layer (vector unit: no "os=" in its mapping).
            dw = [m for m in kept if m.startswith("conv2d") and "os=" not in m]
            if edges < 3 or orphans or "<sp" in kept[0] or ">sp" in kept[-1] or \
                    len(dw) != 1 or "<sp" not in dw[0] or not kept[-1].startswith("pool") \
                    or "<sp" not in kept[-1]:
                print(f"{name} {hw}: FAIL: expected >= 3 layers kept on chip, into the "
                      f"depthwise layer and the max pool: {kept}")
                fails += 1
            if hw == "rtl-8x8" and "<sp" not in kept[-2]:
                print(f"{name} {hw}: FAIL: the grouped convolution does not read its input "
                      f"on chip: {kept[-2]}")
                fails += 1
    return fails


def case_cascade_stored():
    """A block output with two readers kept on chip and stored (issue 18):
    in ResNet's bottleneck blocks the output of `conv3 + add` feeds the next
    block's first 1x1 convolution and its residual add. The add's VADD
    writes the tile into the 1x1 convolution's input image in the
    scratchpad, and the store to DRAM (for the second add) reads it from
    there: the next 1x1 convolution loads no input. Three identity blocks of
    32 -> 16 -> 16 -> 32 channels (ReLU after the adds: output zero point
    -128; none after the convolutions, which ORT would run in float) on a
    10x12 map; values against ORT on default-32x32 and rtl-8x8
    (RTL == SystemC), int8. The compile report must show each block's fused
    add keeping its output (">sp") for the next reader ("<sp"): the next
    block's first convolution, or for the last block the global average
    pool, its only reader (kept, not stored)."""
    b = Builder([1, 32, 10, 12])
    b.conv(32, 32, 1, ys=0.3, yz=-6)
    for blk in range(3):
        x = b.cur
        b.conv(32, 16, 1, ys=0.4, yz=5)
        b.conv(16, 16, 3, pad=1, ys=0.45, yz=-3)
        b.conv(16, 32, 1, ys=0.5, yz=3)
        b.binary("Add", b.cur, x, ys=0.35, yz=-128, relu=True)
    # The last block's output has one reader, a global average pool, which
    # reads it in place: that add's VADD writes the kept image, nothing is
    # stored.
    b.cur = b.gap(0.2, 3)
    b.shape = [1, 32, 1, 1]
    path_shapes["cascade-stored"] = [1, 32, 10, 12]
    path = b.save("cascade-stored")
    fails = 0
    for hw in ("default-32x32", "rtl-8x8"):
        fails += check("cascade-stored", path, hw, "conv")
        layers = [l for l in json.loads((work / "cascade-stored.json").read_text())["layers"]
                  if l["op"] in ("graph.conv2d", "graph.global_avg_pool")]
        maps = [l["mapping"] for l in layers]
        stored = sum(" +add" in a and ">sp" in a and "<sp" in c for a, c in zip(maps, maps[1:]))
        if stored < 3 or not maps[-1].startswith("global_avg_pool") or "<sp" not in maps[-1]:
            print(f"cascade-stored {hw}: FAIL: expected the blocks' outputs kept on chip "
                  f"(+add >sp, then <sp), the last one for the average pool: {maps}")
            fails += 1
    return fails


def case_strided_1x1():
    """Strided 1x1 convolutions without padding (ResNet's downsampling
    shortcuts, issue 18): the DMA gathers one pixel in sh x sw, whole pixels
    of at least a DRAM burst, and the layer runs as a stride-1 convolution
    over the gathered image. Stride 2 and (2, 3) on 64 and 128 channels; the
    report's DRAM bytes of each layer must stay under half of its input
    (the whole input is read without the gather); default-32x32 and rtl-8x8
    (RTL == SystemC). Each load of a layer's input must step over the
    skipped pixels (pixel stride sw x Cin, row stride sh x W x Cin, one
    pixel per run): a layer that re-reads weights per row tile can move more
    bytes than half its input and still gather."""
    b = Builder([1, 64, 12, 18])
    b.conv(64, 128, 1, stride=2, ys=0.4, yz=3)
    i = b._weights((96, 128, 1, 1), 0)
    b.nodes.append(helper.make_node("Conv", [b.cur, f"wd{i}", f"bd{i}"], [f"y{i}"],
                                    kernel_shape=[1, 1], strides=[2, 3]))
    n, _, h, w = b.shape
    b.shape = [n, 96, (h - 1) // 2 + 1, (w - 1) // 3 + 1]
    b._requant(i, f"y{i}", 0.6, -4, False)
    path_shapes["strided-1x1"] = [1, 64, 12, 18]
    path = b.save("strided-1x1")
    fails = 0
    # (layer, its input tensor, Cin, W, sh, sw)
    layers = [("Conv:y1", ":transpose", 64, 18, 2, 2),
              ("Conv:y2", "Conv:y1:conv2d", 128, 9, 2, 3)]
    for hw in ("default-32x32", "rtl-8x8"):
        fails += check("strided-1x1", path, hw, "conv")
        dump = subprocess.run([systole, "objdump", str(work / "strided-1x1.npu")],
                              check=True, capture_output=True, text=True).stdout
        tensors = {}
        for line in dump.splitlines():
            m = re.match(r"\s+\[\d+\] (\S+)\s.*dram 0x([0-9a-f]+) size (\d+)", line)
            if m:
                tensors[m.group(1)] = (int(m.group(2), 16), int(m.group(3)))
        for name, src, cin, w, sh, sw in layers:
            base, size = next(v for k, v in tensors.items() if k.endswith(src))
            body = dump.split(f"; layer '{name}'")[1].split("; layer")[0]
            loads = [dict(f.split("=") for f in l.split(";")[0].split()[1:] if "=" in f)
                     for l in body.splitlines() if l.strip().startswith("load")]
            ins = [d for d in loads if base <= int(d["dram_addr"]) < base + size]
            bad = [d for d in ins if int(d.get("s1", 0)) != sw * cin or
                   int(d.get("s2", 0)) != sh * w * cin or int(d["n0"]) > cin]
            if not ins or bad:
                print(f"strided-1x1 {hw}: FAIL: {name} does not gather its input "
                      f"(pixel stride {sw * cin}, row stride {sh * w * cin}): {bad or loads}")
                fails += 1
    return fails


def case_pad_pool():
    """Explicit constant Pads no convolution absorbs (issue 16), as Keras
    and TensorFlow converters write them: ZeroPadding2D((1, 1)) before a
    3x3/2 MaxPool (a Pad of 0.0, the zero point), and an asymmetric Pad of
    a nonzero value (one row below, two columns right, 0.5 = 2 steps of
    the scale above the zero point) before a 2x2/2 MaxPool. Both run on
    the NPU as copies (DMA padding, identity table) between the conv and
    the pools: nothing but the model's I/O on the host; int8 and uint8."""
    fails = 0
    for uint8 in (False, True):
        name = "pad-pool-uint8" if uint8 else "pad-pool"
        b = Builder([1, 8, 11, 12], uint8=uint8)
        b.conv(8, 16, 3, pad=1, ys=0.25, yz=-6)
        for i, (pads, value, k) in enumerate((([0, 0, 1, 1, 0, 0, 1, 1], 0.0, 3),
                                               ([0, 0, 0, 0, 0, 0, 1, 2], 0.5, 2))):
            j = 990 + i
            n, c, h, w = b.shape
            b.inits.append(init(f"pads{j}", np.array(pads, np.int64)))
            b.inits.append(init(f"pv{j}", np.float32(value)))
            b.nodes.append(helper.make_node("Pad", [b.cur, f"pads{j}", f"pv{j}"], [f"pd{j}"],
                                            mode="constant"))
            b._requant(j, f"pd{j}", b.scale, -6, False)
            h, w = h + pads[2] + pads[6], w + pads[3] + pads[7]
            b.nodes.append(helper.make_node("MaxPool", [b.cur], [f"mp{j}"],
                                            kernel_shape=[k, k], strides=[2, 2]))
            b._requant(j + 5, f"mp{j}", b.scale, -6, False)
            b.shape = [n, c, (h - k) // 2 + 1, (w - k) // 2 + 1]
        path_shapes[name] = [1, 8, 11, 12]
        fails += check_all_on_npu(name, b.save(name), "graph.pad", 2)
    return fails


def case_conv_transpose():
    """Upsampling ConvTransposes (issue 16: detector and segmentation
    decoders, PaddleOCR's DBNet head): kernel = stride, so each is a 1x1
    convolution of stride^2 x Cout filters and a DCR DepthToSpace on the
    NPU (the importer's ConvTransposeAsConv). Stride 2 with per-channel
    weights and a bias, stride 3 per tensor without one, stride 2 again
    after a convolution, then one output channel with a per-tensor bias; int8 and uint8; nothing on the host but the
    model's I/O. Power-of-two scales make ORT's float ConvTranspose exact
    (Builder.conv_transpose), so any difference is the NPU's. Float weights
    ORT quantizes itself: ppocr_det (e2e.zoo / e2e.placement)."""
    fails = 0
    for uint8 in (False, True):
        name = "conv-transpose-uint8" if uint8 else "conv-transpose"
        b = Builder([1, 8, 5, 6], xs=0.0625, uint8=uint8)
        b.conv(8, 16, 3, pad=1, ys=0.25, yz=-5)
        b.conv_transpose(12, 2, ys=0.5, yz=2)
        b.conv_transpose(6, 3, ys=0.25, yz=-3, per_channel=False, bias=False)
        b.conv(6, 8, 3, pad=1, ys=0.25, yz=1)
        b.conv_transpose(4, 2, ys=0.5, yz=0)
        # One output channel with a bias: the bias has one value, repeated
        # per filter all the same (a fuzz graph found it kept as one).
        b.conv_transpose(1, 2, ys=0.25, yz=0, per_channel=False)
        path_shapes[name] = [1, 8, 5, 6]
        path = b.save(name)
        fails += check_all_on_npu(name, path, "graph.depth_to_space", 4)
        # Kernels larger than the stride: 4/2 with pads 1 and a ReLU
        # (CenterNet, GAN generators), 3/2 with pads 1 and output_padding 1, 3/2 SAME_UPPER
        # (pads 0 and 1), 2/2 with a top pad of 1 and output_padding 1
        # shifting the phases of the rows: convolutions of 3x3, 2x2, 2x2 and
        # 2x1 windows with zero taps; then a stride-1 one, a plain 3x3
        # convolution with the flipped kernel (no DepthToSpace).
        b = Builder([1, 6, 4, 5], xs=0.0625, uint8=uint8)
        b.conv(6, 8, 3, pad=1, ys=0.25, yz=-2)
        b.conv_transpose(8, 2, k=4, pads=(1, 1, 1, 1), ys=0.5, yz=1, relu=True)
        b.conv_transpose(6, 2, k=3, pads=(1, 1, 1, 1), output_padding=(1, 1), ys=0.25,
                         yz=-1, per_channel=False)
        b.conv_transpose(4, 2, k=3, auto_pad="SAME_UPPER", ys=0.5, yz=3, bias=False)
        b.conv_transpose(4, 2, k=2, pads=(1, 0, 0, 0), output_padding=(1, 0), ys=0.5, yz=0)
        b.conv_transpose(3, 1, k=3, pads=(1, 1, 1, 1), ys=0.25, yz=2)  # stride 1: a conv
        name += "-general"
        path_shapes[name] = [1, 6, 4, 5]
        fails += check_all_on_npu(name, b.save(name), "graph.depth_to_space", 4)
        # Groups (CRD filter order, CRD DepthToSpace): depthwise 4/2 pads 1
        # (CenterNet-DLA's IDAUp upsampling), then 3 groups of 2 -> 4
        # channels, 2/2 per tensor.
        b = Builder([1, 6, 3, 4], xs=0.0625, uint8=uint8)
        b.conv(6, 6, 3, pad=1, ys=0.25, yz=-2)
        b.conv_transpose(6, 2, k=4, pads=(1, 1, 1, 1), ys=0.5, yz=-1, group=6)
        b.conv_transpose(12, 2, ys=0.25, yz=0, group=3, per_channel=False)
        name = name.replace("-general", "-grouped")
        path_shapes[name] = [1, 6, 3, 4]
        fails += check_all_on_npu(name, b.save(name), "graph.depth_to_space", 2)
        # --host-conv-transpose keeps all four in float on the host.
        report = work / f"{name}-host.json"
        subprocess.run([systole, "compile", str(path), "-o", str(work / f"{name}-host.npu"),
                        "-q", "--host-conv-transpose", "--report", str(report)],
                       check=True, stdout=subprocess.DEVNULL)
        host = [p["op"] for p in json.loads(report.read_text())["placement"]["ops"]
                if p["placement"] == "host" and p["op"] == "ConvTranspose"]
        if len(host) != 4:
            print(f"{name}: FAIL: --host-conv-transpose left {len(host)} of 4 on the host")
            fails += 1
    return fails


CASES = {"gemm-25088x4096": case_gemm, "conv-transpose": case_conv_transpose, "cascade": case_cascade, "cascade-stored": case_cascade_stored, "pad-pool": case_pad_pool, "strided-1x1": case_strided_1x1, "residual": case_residual, "gate": case_gate,
         "residual-uint8": case_residual_uint8,
         "concat": case_concat, "aspp": case_aspp, "conv1d": case_conv1d,
         "activation-table": case_activation_table, "attention": case_attention, "dilated": case_dilated,
         "attention-bias": case_attention_bias,
         "constant-operand": case_constant_operand, "conv-ksplit": case_conv_ksplit,
         "grouped": case_grouped, "ksplit-rtl": case_ksplit_rtl,
         "resident-band": case_resident_band, "broadcast": case_broadcast,
         "elementwise-host": case_elementwise_host, "dense-block": case_dense_block,
         "avg-pool": case_avg_pool, "shuffle": case_shuffle,
         "upsample": case_upsample, "depth-to-space": case_depth_to_space,
         "pad-conv": case_pad_conv, "space-to-depth": case_space_to_depth}
failed = 0
for c in sys.argv[3:]:
    failed += CASES[c]()
print("PASS" if not failed else f"FAIL: {failed} runs differ from ORT")
sys.exit(1 if failed else 0)
