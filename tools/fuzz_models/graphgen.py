"""Random quantized QDQ ONNX graphs for differential testing.

A graph is float input(s) -> QuantizeLinear -> layers -> DequantizeLinear ->
float output(s). Every layer is written the way quantizers write it
(DequantizeLinear of each quantized operand -> float op -> QuantizeLinear),
so ONNX Runtime's QDQ transformers fuse it into its integer kernels
(QLinearConv, QLinearMatMul, QGemm, QLinearAdd, QLinearGlobalAveragePool,
int8 MaxPool, ...) wherever it can. Layers are picked from a pool of live
tensors, so graphs are chains or DAGs (branches, joins by Add and Concat).

Each layer is tagged `exact` (ORT runs it in integer arithmetic and the NPU
must match bit for bit) or `bounded` (ORT or our host fallback computes it
in float: Softmax, Sigmoid, broadcasting Add, Mul, windowed AveragePool,
dilated or grouped convolution, ConvTranspose, a Relu ORT cannot fold;
docs/host.md bounds these to 1 LSB). A bounded layer's result is never consumed by another
layer, so its bound holds at the graph output it feeds.

Scales follow a rough standard-deviation estimate of each tensor so that
outputs use the quantized range, with a spread that also saturates; zero
points include the int8/uint8 limits.
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

QMIN = {"int8": -128, "uint8": 0}
QMAX = {"int8": 127, "uint8": 255}
NP = {"int8": np.int8, "uint8": np.uint8}


class QTensor:
    """A quantized activation: the QuantizeLinear output `name`."""

    def __init__(self, name, shape, scale, zp, dtype, std, terminal=False):
        self.name, self.shape, self.scale, self.zp = name, list(shape), scale, zp
        self.dtype, self.std, self.terminal = dtype, std, terminal
        self.uses = 0


class GraphBuilder:
    def __init__(self, rng, max_elems=3072, avoid=()):
        self.rng = rng
        self.avoid = set(avoid)
        self.nodes, self.inits, self.inputs, self.feeds = [], [], [], {}
        self.live = []
        self.n = 0
        self.max_elems = max_elems
        self.layers = []          # (op description, exact?) for the case record
        self.dtype = "int8" if rng.random() < 0.6 else "uint8"

    # -- helpers -----------------------------------------------------------
    def fresh(self, stem):
        self.n += 1
        return f"{stem}{self.n}"

    def const(self, stem, array):
        name = self.fresh(stem)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, ins, outs=None, **attrs):
        outs = outs or [self.fresh(op.lower() + "_")]
        self.nodes.append(helper.make_node(op, ins, outs, name=self.fresh("n_" + op + "_"), **attrs))
        return outs[0]

    def pick_zp(self, dtype, relu=False):
        r = self.rng.random()
        lo, hi = QMIN[dtype], QMAX[dtype]
        if relu:                    # ORT folds Relu into Q only at the lowest zero point
            return lo
        if r < 0.15:
            return lo
        if r < 0.3:
            return hi
        mid = (lo + hi) // 2
        return int(np.clip(mid + self.rng.integers(-60, 61), lo, hi))

    def pick_scale(self, std):
        # about 3 sigma over the int8 range, spread over 8x both ways
        s = 3.0 * max(std, 1e-6) / 127.0 * float(np.exp(self.rng.uniform(-1.5, 1.5)))
        return float(np.float32(s))

    def dq(self, t):
        s = self.const("s", np.float32(t.scale))
        z = self.const("z", NP[t.dtype](t.zp))
        t.uses += 1
        return self.node("DequantizeLinear", [t.name, s, z])

    def q(self, f, shape, std, scale=None, zp=None, dtype=None, relu=False, terminal=False):
        dtype = dtype or self.dtype
        scale = self.pick_scale(std) if scale is None else scale
        zp = self.pick_zp(dtype, relu) if zp is None else zp
        s = self.const("s", np.float32(scale))
        z = self.const("z", NP[dtype](zp))
        out = self.node("QuantizeLinear", [f, s, z])
        t = QTensor(out, shape, scale, zp, dtype, std, terminal)
        self.live.append(t)
        return t

    def add_input(self, shape):
        name = f"input{len(self.inputs)}"
        self.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
        std = float(np.exp(self.rng.uniform(-2, 2)))
        self.feeds[name] = (self.rng.standard_normal(shape) * std).astype(np.float32)
        return self.q(name, shape, std)

    def pick(self, pred=lambda t: True):
        cands = [t for t in self.live if not t.terminal and pred(t)]
        if not cands:
            return None
        if self.rng.random() < 0.6:
            return cands[-1]
        return cands[int(self.rng.integers(len(cands)))]

    def weights(self, shape, per_channel):
        w = self.rng.integers(-127, 128, shape).astype(np.int8)
        if self.rng.random() < 0.1:
            w[...] = np.where(self.rng.random(shape) < 0.5, -128, 127).astype(np.int8)
        wstd = float(np.exp(self.rng.uniform(-5, -1)))
        if per_channel:
            ws = (wstd / 73.0 * np.exp(self.rng.uniform(-0.7, 0.7, shape[0]))).astype(np.float32)
        else:
            ws = np.float32(wstd / 73.0)
        return w, ws, wstd

    def act(self, f):
        """Optional Relu/Clip after a conv/matmul; returns (float, relu?, bounded?)."""
        r = self.rng.random()
        if r < 0.5:
            return f, False, False
        if r < 0.8:
            return self.node("Relu", [f]), True, False
        if r < 0.9:
            # Clip(0, 6): ORT folds it when the Q range lies inside [0, 6]
            lo = self.const("c", np.float32(0.0))
            hi = self.const("c", np.float32(6.0))
            return self.node("Clip", [f, lo, hi]), True, True
        # Relu that ORT cannot fold (zero point above the minimum): float path
        return self.node("Relu", [f]), False, True

    # -- layers ------------------------------------------------------------
    def conv(self):
        t = self.pick(lambda t: len(t.shape) == 4)
        if t is None:
            return False
        N, C, H, W = t.shape
        rng = self.rng
        kind = rng.choice(["dense", "dense", "depthwise", "grouped"])
        kh, kw = int(rng.integers(1, 6)), int(rng.integers(1, 6))
        sh, sw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        dil = [1, 1]
        if rng.random() < 0.3:
            dil = [int(rng.integers(1, 4)), int(rng.integers(1, 4))]
        pads = [int(rng.integers(0, k)) if rng.random() < 0.7 else 0 for k in (kh, kw, kh, kw)]
        eh, ew = (kh - 1) * dil[0] + 1, (kw - 1) * dil[1] + 1
        if H + pads[0] + pads[2] < eh or W + pads[1] + pads[3] < ew:
            return False
        OH = (H + pads[0] + pads[2] - eh) // sh + 1
        OW = (W + pads[1] + pads[3] - ew) // sw + 1
        if kind == "depthwise":
            group, cout = C, C * int(rng.choice([1, 1, 2]))
        elif kind == "grouped":
            divs = [g for g in range(2, C) if C % g == 0]
            if not divs:
                return False
            group = int(rng.choice(divs))
            cout = group * int(rng.integers(1, 4))
        else:
            group, cout = 1, int(rng.integers(1, 33))
        if N * cout * OH * OW > self.max_elems:
            return False
        bounded = kind == "grouped" or (kind == "dense" and dil != [1, 1])
        if "grouped-conv" in self.avoid and group > 1 and not (group == C and cout == C):
            return False
        cin_g = C // group
        w, ws, wstd = self.weights([cout, cin_g, kh, kw], per_channel=rng.random() < 0.6)
        xd = self.dq(t)
        wn = self.const("w", w)
        wsn = self.const("s", ws)
        wzn = self.const("z", np.zeros(cout, np.int8) if np.ndim(ws) else np.int8(0))
        wd = self.node("DequantizeLinear", [wn, wsn, wzn], axis=0) if np.ndim(ws) else \
            self.node("DequantizeLinear", [wn, wsn, wzn])
        ins = [xd, wd]
        if rng.random() < 0.7:
            bs = (np.float32(t.scale) * ws).astype(np.float32)
            bias = rng.integers(-2000, 2001, cout).astype(np.int32)
            bn = self.const("b", bias)
            bsn = self.const("s", bs)
            bzn = self.const("z", np.zeros(cout, np.int32) if np.ndim(ws) else np.int32(0))
            bd = self.node("DequantizeLinear", [bn, bsn, bzn], axis=0) if np.ndim(ws) else \
                self.node("DequantizeLinear", [bn, bsn, bzn])
            ins.append(bd)
        attrs = dict(kernel_shape=[kh, kw], strides=[sh, sw], pads=pads, group=group)
        if dil != [1, 1]:
            attrs["dilations"] = dil
        f = self.node("Conv", ins, **attrs)
        f, relu, b2 = self.act(f)
        std = t.std * wstd * np.sqrt(cin_g * kh * kw) * 1.3
        bounded = bounded or b2
        self.q(f, [N, cout, OH, OW], std, relu=relu, terminal=bounded)
        self.layers.append((f"Conv {kind} k{kh}x{kw} s{sh}x{sw} d{dil} p{pads} g{group} "
                            f"{t.shape}->{cout}", not bounded))
        return True

    def conv_transpose(self):
        """A QDQ ConvTranspose (stride 1-3, kernel 1 to 2s + 1, pads, output
        padding, optional bias and activation). ORT runs it in float; the
        NPU runs it as a convolution and a DepthToSpace when its output is a
        multiple of the stride (the host otherwise), and its exact integer
        sum can round apart from ORT's float one on near-ties: bounded (one
        LSB) and terminal."""
        t = self.pick(lambda t: len(t.shape) == 4)
        if t is None:
            return False
        N, C, H, W = t.shape
        rng = self.rng
        s = int(rng.integers(1, 4))
        k = int(rng.integers(1, 2 * s + 2))
        pads = [int(rng.integers(0, k)) if rng.random() < 0.5 else 0 for _ in range(4)]
        outpad = [int(rng.integers(0, s)) if rng.random() < 0.3 else 0 for _ in range(2)]
        OH = (H - 1) * s + k - pads[0] - pads[2] + outpad[0]
        OW = (W - 1) * s + k - pads[1] - pads[3] + outpad[1]
        group, cout = 1, int(rng.integers(1, 17))
        divs = [g for g in range(2, C + 1) if C % g == 0]
        if divs and rng.random() < 0.3:  # grouped, depthwise when group = C
            group = int(rng.choice(divs))
            cout = group * int(rng.integers(1, 4))
        if OH < 1 or OW < 1 or N * cout * OH * OW > self.max_elems:
            return False
        per_channel = rng.random() < 0.6
        # [C, cout/group, k, k]; per-channel parameters along axis 1
        w, ws, wstd = self.weights([cout // group, C, k, k], per_channel)
        w = np.ascontiguousarray(w.transpose(1, 0, 2, 3))
        xd = self.dq(t)
        wn, wsn = self.const("w", w), self.const("s", ws)
        wzn = self.const("z", np.zeros(cout // group, np.int8) if per_channel else np.int8(0))
        wd = self.node("DequantizeLinear", [wn, wsn, wzn], axis=1) if per_channel else \
            self.node("DequantizeLinear", [wn, wsn, wzn])
        ins = [xd, wd]
        if rng.random() < 0.7:
            bs = (np.float32(t.scale) * (np.tile(ws, group) if per_channel else ws)
                  ).astype(np.float32)
            bn = self.const("b", rng.integers(-2000, 2001, cout).astype(np.int32))
            bsn = self.const("s", bs)
            bzn = self.const("z", np.zeros(cout, np.int32) if per_channel else np.int32(0))
            bd = self.node("DequantizeLinear", [bn, bsn, bzn], axis=0) if per_channel else \
                self.node("DequantizeLinear", [bn, bsn, bzn])
            ins.append(bd)
        attrs = dict(kernel_shape=[k, k], strides=[s, s], pads=pads)
        if group > 1:
            attrs["group"] = group
        if any(outpad):
            attrs["output_padding"] = outpad
        f = self.node("ConvTranspose", ins, **attrs)
        f, relu, _ = self.act(f)
        std = t.std * wstd * np.sqrt(C // group * k * k / (s * s)) * 1.3
        self.q(f, [N, cout, OH, OW], std, relu=relu, terminal=True)
        self.layers.append((f"ConvTranspose k{k} s{s} p{pads} op{outpad} g{group} "
                            f"{t.shape}->{cout}", False))
        return True

    def matmul(self):
        t = self.pick(lambda t: len(t.shape) >= 2)
        if t is None:
            return False
        rng = self.rng
        K = t.shape[-1]
        M = int(np.prod(t.shape[:-1]))
        n = int(rng.integers(1, 41))
        if M * n > self.max_elems or K > 512:
            return False
        w, ws, wstd = self.weights([K, n], per_channel=False)
        xd = self.dq(t)
        wd = self.node("DequantizeLinear", [self.const("w", w), self.const("s", ws),
                                            self.const("z", np.int8(0))])
        gemm = len(t.shape) == 2 and rng.random() < 0.5
        if gemm:
            transB = int(rng.integers(2))
            if transB:
                w2 = np.ascontiguousarray(w.T)
                wd = self.node("DequantizeLinear", [self.const("w", w2), self.const("s", ws),
                                                    self.const("z", np.int8(0))])
            ins = [xd, wd]
            if rng.random() < 0.7:
                bias = rng.integers(-3000, 3001, n).astype(np.int32)
                bd = self.node("DequantizeLinear", [self.const("b", bias),
                                                    self.const("s", np.float32(np.float32(t.scale) * ws)),
                                                    self.const("z", np.int32(0))])
                ins.append(bd)
            f = self.node("Gemm", ins, transB=transB)
        else:
            f = self.node("MatMul", [xd, wd])
        f, relu, bounded = self.act(f)
        std = t.std * wstd * np.sqrt(K) * 1.3
        self.q(f, t.shape[:-1] + [n], std, relu=relu, terminal=bounded)
        self.layers.append((f"{'Gemm' if gemm else 'MatMul'} {t.shape}x[{K},{n}]", not bounded))
        return True

    def add(self):
        rng = self.rng
        t = self.pick()
        if t is None:
            return False
        others = [o for o in self.live if o is not t and not o.terminal and o.shape == t.shape]
        op = "Add" if rng.random() < 0.75 else "Mul"
        bounded = op == "Mul"
        if others and rng.random() < 0.8:
            o = others[int(rng.integers(len(others)))]
            od = self.dq(o)
            ostd = o.std
            desc = "same shape"
        else:
            # constant operand, broadcast or full; quantized like the activations
            shape = list(t.shape)
            mode = rng.integers(4)
            if mode == 0:
                shape = [1] * len(shape)
            elif mode == 1 and len(shape) == 4:
                shape = [1, shape[1], 1, 1]
            elif mode == 2:
                shape = shape[-1:]
            if shape == t.shape and "const-full" in self.avoid:
                return False
            ostd = float(np.exp(rng.uniform(-2, 1)))
            sc = self.pick_scale(ostd)
            zp = self.pick_zp("int8")
            c = rng.integers(-128, 128, shape).astype(np.int8)
            od = self.node("DequantizeLinear", [self.const("k", c), self.const("s", np.float32(sc)),
                                                self.const("z", np.int8(zp))])
            bounded = bounded or shape != t.shape
            desc = f"const {shape}"
        f = self.node(op, [self.dq(t), od])
        std = (t.std + ostd) if op == "Add" else t.std * ostd
        relu = False
        if rng.random() < 0.2:
            f, relu = self.node("Relu", [f]), True
        self.q(f, t.shape, std, relu=relu, terminal=bounded)
        self.layers.append((f"{op} {t.shape} {desc}", not bounded))
        return True

    def pool(self):
        t = self.pick(lambda t: len(t.shape) == 4)
        if t is None:
            return False
        rng = self.rng
        N, C, H, W = t.shape
        kind = rng.choice(["max", "max", "gap", "gmp", "avg"])
        if kind in ("gap", "gmp"):
            op = "GlobalAveragePool" if kind == "gap" else "GlobalMaxPool"
            f = self.node(op, [self.dq(t)])
            shape = [N, C, 1, 1]
            same = kind == "gmp"
            attrs = {}
        else:
            kh, kw = int(rng.integers(1, min(H, 4) + 1)), int(rng.integers(1, min(W, 4) + 1))
            sh, sw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
            pads = [int(rng.integers(0, k)) if rng.random() < 0.5 else 0 for k in (kh, kw, kh, kw)]
            OH = (H + pads[0] + pads[2] - kh) // sh + 1
            OW = (W + pads[1] + pads[3] - kw) // sw + 1
            attrs = dict(kernel_shape=[kh, kw], strides=[sh, sw], pads=pads)
            op = "MaxPool" if kind == "max" else "AveragePool"
            if kind == "avg" and rng.random() < 0.5:
                attrs["count_include_pad"] = 1
            f = self.node(op, [self.dq(t)], **attrs)
            shape = [N, C, OH, OW]
            same = kind == "max"
        bounded = kind == "avg"
        if same:   # ORT runs MaxPool on int8 when input and output parameters agree
            self.q(f, shape, t.std, scale=t.scale, zp=t.zp, dtype=t.dtype, terminal=bounded)
        else:
            self.q(f, shape, t.std * (0.6 if kind == "gap" else 1.0), terminal=bounded)
        self.layers.append((f"{op} {t.shape} {attrs}", not bounded))
        return True

    def relu(self):
        t = self.pick()
        if t is None:
            return False
        f = self.node("Relu", [self.dq(t)])
        self.q(f, t.shape, t.std, scale=t.scale, zp=QMIN[t.dtype], dtype=t.dtype)
        self.layers.append((f"Relu {t.shape}", True))
        return True

    def concat(self):
        rng = self.rng
        t = self.pick(lambda t: len(t.shape) >= 2)
        if t is None:
            return False
        axis = int(rng.integers(len(t.shape)))
        parts = [t] + [o for o in self.live if o is not t and not o.terminal
                       and len(o.shape) == len(t.shape)
                       and all(a == b for i, (a, b) in enumerate(zip(o.shape, t.shape)) if i != axis)]
        if len(parts) == 1:
            parts = [t, t]
        parts = parts[:int(rng.integers(2, 4))]
        shape = list(t.shape)
        shape[axis] = sum(p.shape[axis] for p in parts)
        if int(np.prod(shape)) > self.max_elems:
            return False
        f = self.node("Concat", [self.dq(p) for p in parts], axis=axis)
        same = all(p.scale == t.scale and p.zp == t.zp and p.dtype == t.dtype for p in parts)
        if same or rng.random() < 0.5:
            self.q(f, shape, t.std, scale=t.scale, zp=t.zp, dtype=t.dtype)
        else:
            self.q(f, shape, max(p.std for p in parts))
        self.layers.append((f"Concat axis {axis} of {[p.shape for p in parts]}", True))
        return True

    def reshape(self):
        rng = self.rng
        t = self.pick()
        if t is None:
            return False
        total = int(np.prod(t.shape))
        if rng.random() < 0.5 and len(t.shape) >= 2:
            perm = [int(p) for p in rng.permutation(len(t.shape))]
            f = self.node("Transpose", [self.dq(t)], perm=perm)
            shape = [t.shape[p] for p in perm]
            desc = f"Transpose {t.shape} perm {perm}"
        else:
            rank = int(rng.integers(2, 5))
            shape, rest = [], total
            for _ in range(rank - 1):
                divs = [d for d in range(1, min(rest, 64) + 1) if rest % d == 0]
                d = int(rng.choice(divs))
                shape.append(d)
                rest //= d
            shape.append(rest)
            target = list(shape)
            if rng.random() < 0.3:
                target[int(rng.integers(rank))] = -1
            f = self.node("Reshape", [self.dq(t), self.const("shape", np.array(target, np.int64))])
            desc = f"Reshape {t.shape}->{target}"
        self.q(f, shape, t.std, scale=t.scale, zp=t.zp, dtype=t.dtype)
        self.layers.append((desc, True))
        return True

    def float_op(self):
        rng = self.rng
        t = self.pick()
        if t is None:
            return False
        # Softmax is left out: ORT 1.23.2's QLinearSoftmax wraps a probability
        # that rounds to 256 (1.0 at scale 1/256) to 0 (docs/security.md).
        op = rng.choice(["Sigmoid", "Tanh"])
        if op == "Softmax":
            axis = -1 if rng.random() < 0.5 else len(t.shape) - 1
            f = self.node("Softmax", [self.dq(t)], axis=axis)
            # ORT's QDQ softmax expects output scale 1/256 (zero point -128 / 0)
            self.q(f, t.shape, 0.3, scale=1.0 / 256, zp=QMIN[self.dtype], terminal=True)
            desc = f"Softmax axis {axis} {t.shape}"
        else:
            f = self.node(op, [self.dq(t)])
            self.q(f, t.shape, 0.5, terminal=True)
            desc = f"{op} {t.shape}"
        self.layers.append((desc, False))
        return True


    def slice(self):
        """Slice of one axis (start, end, step > 0): ORT copies the int8 codes
        when input and output share scale and zero point, so it is exact."""
        rng = self.rng
        t = self.pick(lambda t: any(d > 1 for d in t.shape))
        if t is None:
            return False
        axes = [i for i, d in enumerate(t.shape) if d > 1]
        axis = int(rng.choice(axes))
        d = t.shape[axis]
        start = int(rng.integers(0, d - 1))
        end = int(rng.integers(start + 1, d + 1))
        step = 1 if rng.random() < 0.7 else int(rng.integers(1, 3))
        n = (end - start + step - 1) // step
        shape = list(t.shape)
        shape[axis] = n
        ins = [self.dq(t), self.const("st", np.array([start], np.int64)),
               self.const("en", np.array([end], np.int64)),
               self.const("ax", np.array([axis if rng.random() < 0.7 else axis - len(t.shape)],
                                         np.int64))]
        if step != 1 or rng.random() < 0.3:
            ins.append(self.const("sp", np.array([step], np.int64)))
        f = self.node("Slice", ins)
        self.q(f, shape, t.std, scale=t.scale, zp=t.zp, dtype=t.dtype)
        self.layers.append((f"Slice {t.shape} axis {axis} [{start}:{end}:{step}]", True))
        return True

    def resize(self):
        """Nearest Resize of H and W by integer factors (asymmetric, floor:
        output pixel o reads o // f) or by a non-integer scale; nearest copies
        codes, so it is exact with shared scale and zero point."""
        rng = self.rng
        t = self.pick(lambda t: len(t.shape) == 4)
        if t is None:
            return False
        N, C, H, W = t.shape
        if rng.random() < 0.75:
            fy, fx = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        else:
            fy, fx = float(rng.choice([0.5, 1.5, 2.5])), float(rng.choice([0.5, 1.5, 2.0]))
        OH, OW = int(np.floor(H * fy)), int(np.floor(W * fx))
        if OH < 1 or OW < 1 or N * C * OH * OW > self.max_elems:
            return False
        roi = self.const("roi", np.array([], np.float32))
        scales = self.const("sc", np.array([1, 1, fy, fx], np.float32))
        f = self.node("Resize", [self.dq(t), roi, scales], mode="nearest",
                      coordinate_transformation_mode="asymmetric", nearest_mode="floor")
        self.q(f, [N, C, OH, OW], t.std, scale=t.scale, zp=t.zp, dtype=t.dtype)
        self.layers.append((f"Resize nearest {t.shape} x({fy}, {fx})", True))
        return True

    def batchnorm(self):
        """BatchNormalization (inference) on NCHW: ORT computes it in float,
        the NPU as a per-channel table of the same float operations."""
        rng = self.rng
        t = self.pick(lambda t: len(t.shape) == 4)
        if t is None:
            return False
        C = t.shape[1]
        gamma = rng.uniform(0.5, 1.5, C).astype(np.float32)
        beta = (rng.standard_normal(C) * t.std * 0.3).astype(np.float32)
        mean = (rng.standard_normal(C) * t.std * 0.3).astype(np.float32)
        var = (rng.uniform(0.5, 2.0, C) * t.std * t.std).astype(np.float32)
        f = self.node("BatchNormalization",
                      [self.dq(t), self.const("g", gamma), self.const("b", beta),
                       self.const("m", mean), self.const("v", var)],
                      epsilon=float(rng.choice([1e-5, 1e-3])))
        self.q(f, t.shape, t.std)
        self.layers.append((f"BatchNormalization {t.shape}", True))
        return True

    def space_depth(self):
        """DepthToSpace (DCR or CRD) or SpaceToDepth of a uint8 NCHW tensor:
        ORT copies the codes (it drops the Q/DQ pair; its kernels have no
        int8, so int8 graphs do not get these layers)."""
        rng = self.rng
        t = self.pick(lambda t: len(t.shape) == 4 and t.dtype == "uint8")
        if t is None:
            return False
        N, C, H, W = t.shape
        b = int(rng.integers(2, 4))
        if rng.random() < 0.5 and C % (b * b) == 0:
            mode = "DCR" if rng.random() < 0.5 else "CRD"
            f = self.node("DepthToSpace", [self.dq(t)], blocksize=b, mode=mode)
            shape, desc = [N, C // (b * b), H * b, W * b], f"DepthToSpace {mode} {b}"
        elif H % b == 0 and W % b == 0:
            f = self.node("SpaceToDepth", [self.dq(t)], blocksize=b)
            shape, desc = [N, C * b * b, H // b, W // b], f"SpaceToDepth {b}"
        else:
            return False
        if int(np.prod(shape)) > self.max_elems:
            return False
        self.q(f, shape, t.std, scale=t.scale, zp=t.zp, dtype=t.dtype)
        self.layers.append((f"{desc} {t.shape}", True))
        return True

    def pad(self):
        """A constant Pad of 0.0 (the zero point once quantized, as
        TensorFlow's explicit SAME padding) of H and W, or of another value:
        exact (ORT pads the codes or quantizes the padded floats)."""
        rng = self.rng
        t = self.pick(lambda t: len(t.shape) == 4)
        if t is None:
            return False
        N, C, H, W = t.shape
        pads = [0, 0] + [int(rng.integers(0, 3)) for _ in range(2)] + \
               [0, 0] + [int(rng.integers(0, 3)) for _ in range(2)]
        shape = [N, C, H + pads[2] + pads[6], W + pads[3] + pads[7]]
        if int(np.prod(shape)) > self.max_elems:
            return False
        value = 0.0 if rng.random() < 0.8 else float(np.float32(t.scale * 3))
        f = self.node("Pad", [self.dq(t), self.const("pads", np.array(pads, np.int64)),
                              self.const("pv", np.float32(value))], mode="constant")
        self.q(f, shape, t.std, scale=t.scale, zp=t.zp, dtype=t.dtype)
        self.layers.append((f"Pad {pads} value {value} {t.shape}", True))
        return True

    def leaky_relu(self):
        """LeakyRelu: ORT's QLinearLeakyRelu is a table of the float function
        over the input codes, as is the NPU's."""
        t = self.pick()
        if t is None:
            return False
        alpha = float(np.float32(self.rng.choice([0.01, 0.1, 0.2, 0.3])))
        f = self.node("LeakyRelu", [self.dq(t)], alpha=alpha)
        self.q(f, t.shape, t.std)
        self.layers.append((f"LeakyRelu {alpha} {t.shape}", True))
        return True


LAYERS = [("conv", 5), ("matmul", 3), ("add", 3), ("pool", 2), ("relu", 1), ("conv_transpose", 1),
          ("concat", 2), ("reshape", 2), ("float_op", 1), ("slice", 1),
          ("resize", 1), ("batchnorm", 1), ("leaky_relu", 1), ("space_depth", 1),
          ("pad", 1)]


# Features --avoid can leave out, to look past open bugs (docs/security.md).
AVOIDABLE = {"const-full": "Add/Mul with a constant operand of the full shape",
             "grouped-conv": "grouped convolution (1 < group, not depthwise with multiplier 1)",
             "token-depth-1": "random configs with queues.token_depth 1"}


def generate(rng, max_layers=6, avoid=(), family="cnn"):
    """Returns (ModelProto, feeds {name: array}, info dict). `family` picks
    the generator: "cnn" (the layers above) or "transformer" (transformer.py:
    attention, LayerNorm, GELU, FFN blocks)."""
    if family == "transformer":
        from . import transformer
        return transformer.generate(rng, avoid=avoid)
    if family != "cnn":
        raise ValueError(f"unknown graph family {family!r}")
    b = GraphBuilder(rng, avoid=avoid)
    n_inputs = 1 if rng.random() < 0.8 else 2
    for _ in range(n_inputs):
        if rng.random() < 0.75:
            shape = [int(rng.choice([1, 1, 1, 2])), int(rng.integers(1, 17)),
                     int(rng.integers(1, 15)), int(rng.integers(1, 15))]
        else:
            shape = [int(rng.integers(1, 9)), int(rng.integers(1, 65))]
            if rng.random() < 0.3:
                shape = [int(rng.integers(1, 4))] + shape
        b.add_input(shape)
    names = [n for n, _ in LAYERS]
    weights = np.array([w for _, w in LAYERS], float)
    target = int(rng.integers(1, max_layers + 1))
    tries = 0
    while len(b.layers) < target and tries < 60:
        tries += 1
        getattr(b, names[rng.choice(len(names), p=weights / weights.sum())])()
    if not b.layers:
        b.relu()
    return finish(b, opset=13)


def finish(b, opset):
    """The model of builder `b`: every quantized tensor nobody consumed
    becomes a dequantized graph output."""
    # graph outputs: every quantized tensor nobody consumed, dequantized
    outputs = []
    for t in b.live:
        if t.uses == 0:
            name = f"output{len(outputs)}"
            s = b.const("s", np.float32(t.scale))
            z = b.const("z", NP[t.dtype](t.zp))
            b.node("DequantizeLinear", [t.name, s, z], [name])
            outputs.append((name, t))
    graph = helper.make_graph(
        b.nodes, "fuzz", b.inputs,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, t.shape) for n, t in outputs],
        initializer=b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    info = {"layers": [d for d, _ in b.layers],
            "bounded": any(not e for _, e in b.layers),
            "outputs": {n: {"scale": t.scale, "zero_point": t.zp, "dtype": t.dtype,
                            "bounded": t.terminal} for n, t in outputs}}
    return model, b.feeds, info
