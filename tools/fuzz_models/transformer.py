"""Random transformer blocks as quantized QDQ ONNX graphs (issue 31).

A graph is float input [B, T, C] -> QuantizeLinear -> 1-2 blocks ->
DequantizeLinear -> float output, written as ORT's quantize_static (QDQ
format) writes an exported encoder:

* linear layers: DequantizeLinear of the activation and of an int8 weight
  (per tensor, or per output column at opset >= 13) -> MatMul -> Q, then
  the float bias by Add (DQ -> Add -> Q), or, in half the graphs, half the
  time at the head of the float island that reads the result;
* multi-head attention (1-4 heads): Q/K/V projections, Reshape to
  [B, T, H, D] and Transpose to [B, H, T, D] (K to [B, H, D, T], directly
  or by a second Transpose), scores = MatMul(Q, K^T) of two activations,
  sometimes a float position bias added in its own island (DQ -> Add of
  a float constant [H, T, T] -> Q, as Swin's), then one float island DQ ->
  scale (Mul by 1/sqrt(D) or Div by sqrt(D),
  or the scale applied to Q before) -> additive mask -> Softmax -> Q,
  MatMul with V, Transpose back, Reshape, output projection. One head is
  sometimes written without the head reshapes (3-D MatMuls). The mask is a
  constant (causal or padding) or a second graph input (int64 or bool,
  [B, T]) turned into an additive float mask as HF BERT does (Unsqueeze,
  Cast, Sub from 1, Mul by -10000 or float32's lowest);
* LayerNorm as the opset-17 LayerNormalization op (over the last axis, or
  the last two, with or without bias) or the decomposed form exporters
  write before opset 17 (ReduceMean, Sub, Pow 2, ReduceMean, Add eps,
  Sqrt, Div, Mul gamma, Add beta), operands in either order;
* GELU in erf form (Div by sqrt 2 or Mul by 1/sqrt 2, Erf, Add 1, Mul x
  and Mul 0.5, the 0.5 first or last) or tanh form
  (0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), x^3 by Pow 3 or two
  Muls);
* residual Adds of two activations (QLinearAdd in ORT), pre- or post-LN;
  post-LN ones in 30% of the graphs left in float for the LayerNorm.

Softmax also runs on a non-last axis (the attention's query or head axis,
or a closing Softmax of [B, T, C] on any axis); graphs are opset 17, 13 or
11 (the opset-11 Softmax coerces to 2-D).

Every layer is tagged `exact`: ORT runs the MatMuls, Adds and data
movement in integer arithmetic, and the float islands (LayerNorm, GELU,
scale + mask + Softmax) with kernels the host repeats operation for
operation (docs/host.md, "Arithmetic as ORT's"). Which kernels depends on
the island's input: ORT gives each consumer of a DequantizeLinear its own
copy before fusing, so a decomposed LayerNorm or GELU that reads a DQ runs
as written (a LayerNorm's tail as SimplifiedLayerNormalization), one that
reads a float bias or residual Add as LayerNormalization,
SkipLayerNormalization, BiasGelu or FastGelu; a DQ -> Softmax -> Q island
runs as com.microsoft.QLinearSoftmax.
"""

import math

import numpy as np
from onnx import TensorProto, helper

from .graphgen import QMIN, GraphBuilder, finish

MASK_VALUES = (-10000.0, float(np.finfo(np.float32).min))
SQRT2 = float(np.float32(math.sqrt(2.0)))
SQRT_2_OVER_PI = float(np.float32(math.sqrt(2.0 / math.pi)))


class TransformerBuilder(GraphBuilder):
    def __init__(self, rng, opset, avoid=()):
        super().__init__(rng, max_elems=4096, avoid=avoid)
        self.opset = opset
        self.mask_kind = "none"
        self.mask_cache = {}
        self.fold_bias, self.float_residual = 0.0, False

    # -- helpers -----------------------------------------------------------
    def f32(self, value):
        return self.const("c", np.float32(value))

    def either(self, op, a, b, p=0.8):
        """A binary op with its operands in the usual order with probability p."""
        return self.node(op, [a, b] if self.rng.random() < p else [b, a])

    def unsqueeze(self, x, axes):
        if self.opset >= 13:
            return self.node("Unsqueeze", [x, self.const("axes", np.array(axes, np.int64))])
        return self.node("Unsqueeze", [x], axes=axes)

    def same(self, f, t, shape):
        """Q with t's parameters: ORT drops the Q/DQ pair around data movement."""
        return self.q(f, shape, t.std, scale=t.scale, zp=t.zp, dtype=t.dtype)

    def reshape_to(self, t, shape):
        target = list(shape)
        r = self.rng.random()
        if r < 0.25:
            target[0] = target[1] = 0           # copy B and T, as folded exports write
        elif r < 0.45:
            target[int(self.rng.integers(len(target)))] = -1
        f = self.node("Reshape", [self.dq(t), self.const("shape", np.array(target, np.int64))])
        return self.same(f, t, shape)

    def transpose_to(self, t, perm):
        f = self.node("Transpose", [self.dq(t)], perm=list(perm))
        return self.same(f, t, [t.shape[p] for p in perm])

    @staticmethod
    def softmax_scale(qlinear):
        """quantize_static's Softmax output scale, 1/256, unless ORT runs the
        island as com.microsoft.QLinearSoftmax: ORT 1.23.2's kernel
        multiplies by floor(1 / scale) and does not saturate, so a
        probability that rounds to 256 (an axis of size 1, a dominant score)
        wraps to 0 (docs/security.md). At 1/128 every probability fits."""
        return 1.0 / 128 if qlinear else 1.0 / 256

    # -- layers ------------------------------------------------------------
    def linear(self, t, n, bias=True, fold=False):
        """DQ(x) x DQ(int8 W) -> MatMul -> Q, then + float bias -> Q; with
        `fold`, the bias Add is left to the float island that reads the
        result (island_in), as quantizers that skip Adds write it."""
        rng = self.rng
        K = t.shape[-1]
        per_channel = self.opset >= 13 and rng.random() < 0.5
        w, ws, wstd = self.weights([n, K], per_channel)
        w = np.ascontiguousarray(w.T)
        if per_channel:
            wd = self.node("DequantizeLinear", [self.const("w", w), self.const("s", ws),
                                                self.const("z", np.zeros(n, np.int8))], axis=1)
        else:
            wd = self.node("DequantizeLinear", [self.const("w", w), self.const("s", ws),
                                                self.const("z", np.int8(0))])
        shape = t.shape[:-1] + [n]
        std = t.std * wstd * math.sqrt(K) * 1.3
        y = self.q(self.node("MatMul", [self.dq(t), wd]), shape, std)
        desc = f"MatMul {t.shape}x[{K},{n}] {'per-channel' if per_channel else 'per-tensor'}"
        if bias:
            b = self.const("bias", (rng.standard_normal(n) * std * 0.5).astype(np.float32))
            if fold:
                y.pending_bias = b
                desc += " + bias in the next island"
            else:
                y = self.q(self.either("Add", self.dq(y), b), shape, std * 1.1)
                desc += " + bias"
        self.layers.append((desc, True))
        return y

    def island_in(self, t):
        """DQ of t, plus the float bias its linear layer left to this island."""
        f = self.dq(t)
        bias = getattr(t, "pending_bias", None)
        return f if bias is None else self.either("Add", f, bias)

    def fold(self):
        return self.rng.random() < self.fold_bias

    def mask_for(self, rank):
        """The additive float mask for scores of this rank (None: no mask)."""
        if self.mask_kind == "none":
            return None
        if rank in self.mask_cache:
            return self.mask_cache[rank]
        if self.mask_kind == "causal":
            m = self.mask_np if self.rng.random() < 0.5 else \
                self.mask_np.reshape([1] * (rank - 2) + list(self.mask_np.shape))
            name = self.const("mask", m)
        elif self.mask_kind == "padding":
            B, T = self.mask_np.shape
            name = self.const("mask", self.mask_np.reshape([B] + [1] * (rank - 2) + [T]))
        else:   # HF BERT: (1.0 - float(mask[:, None, None, :])) * lowest
            u = self.unsqueeze(self.mask_input, [1, 2] if rank == 4 else [1])
            c = self.node("Cast", [u], to=TensorProto.FLOAT)
            inv = self.node("Sub", [self.f32(1.0), c])
            name = self.either("Mul", inv, self.f32(self.mask_value))
        self.mask_cache[rank] = name
        return name

    def make_mask(self, B, T):
        rng = self.rng
        kinds = ["none", "causal", "padding", "int64", "bool"]
        self.mask_kind = kinds[int(rng.choice(len(kinds), p=[0.3, 0.2, 0.1, 0.25, 0.15]))]
        if self.mask_kind == "none":
            return
        self.mask_value = MASK_VALUES[int(rng.integers(2))]
        if self.mask_kind == "causal":
            self.mask_np = (np.triu(np.ones((T, T)), 1) * self.mask_value).astype(np.float32)
            return
        lengths = rng.integers(1, T + 1, B)
        valid = np.arange(T)[None, :] < lengths[:, None]
        if self.mask_kind == "padding":
            self.mask_np = np.where(valid, 0.0, self.mask_value).astype(np.float32)
            return
        name = "attention_mask"
        etype = TensorProto.INT64 if self.mask_kind == "int64" else TensorProto.BOOL
        self.inputs.append(helper.make_tensor_value_info(name, etype, [B, T]))
        self.feeds[name] = valid.astype(np.int64 if self.mask_kind == "int64" else np.bool_)
        self.mask_input = name

    def attention(self, x, H):
        rng = self.rng
        B, T, C = x.shape
        D = C // H
        q, k, v = self.linear(x, C), self.linear(x, C), self.linear(x, C)
        scale_at = ["div", "mul", "query"][int(rng.choice(3, p=[0.45, 0.4, 0.15]))]
        if scale_at == "query":     # the scale applied to Q (an island of its own)
            f = self.either("Mul", self.dq(q), self.f32(1.0 / math.sqrt(D)))
            q = self.q(f, q.shape, q.std / math.sqrt(D))
        if H == 1 and rng.random() < 0.4:
            qh, kt, vh = q, self.transpose_to(k, [0, 2, 1]), v
            layout = "3-D"
        else:
            def heads(t, perm):
                return self.transpose_to(self.reshape_to(t, [B, T, H, D]), perm)
            qh = heads(q, [0, 2, 1, 3])
            if rng.random() < 0.7:
                kt = heads(k, [0, 2, 3, 1])
            else:
                kt = self.transpose_to(heads(k, [0, 2, 1, 3]), [0, 1, 3, 2])
            vh = heads(v, [0, 2, 1, 3])
            layout = f"{H} heads"
        rank = len(qh.shape)
        sshape = qh.shape[:-1] + [T]
        s = self.q(self.node("MatMul", [self.dq(qh), self.dq(kt)]), sshape,
                   q.std * k.std * math.sqrt(D))
        if rng.random() < 0.3:
            # A float position bias (Swin's, one [H, T, T] block for every
            # batch; T5-style) added in its own island: the quantizer leaves
            # the constant in float and ORT runs DQ -> Add -> Q unfused.
            bias = rng.normal(0.0, s.std, sshape[1:]).astype(np.float32)
            f = self.either("Add", self.dq(s), self.const("pos_bias", bias))
            s = self.q(f, sshape, s.std * math.sqrt(2.0))
            layout += " + position bias"
        # float island: scale, mask, Softmax
        f = s_dq = self.dq(s)
        if scale_at == "div":
            f = self.node("Div", [f, self.f32(math.sqrt(D))])
        elif scale_at == "mul":
            f = self.either("Mul", f, self.f32(1.0 / math.sqrt(D)))
        mask = self.mask_for(rank)
        if mask is not None:
            f = self.either("Add", f, mask)
        r = rng.random()
        axis = -1 if r < 0.45 else rank - 1 if r < 0.8 else rank - 2 if r < 0.92 else 1
        qlinear = f == s_dq            # DQ -> Softmax -> Q: ORT's QLinearSoftmax
        f = self.node("Softmax", [f], axis=axis)
        if rng.random() < 0.8 or qlinear:   # quantize_static's fixed Softmax output
            p = self.q(f, sshape, 0.3, scale=self.softmax_scale(qlinear), zp=QMIN[self.dtype])
        else:
            p = self.q(f, sshape, 0.3)
        self.layers.append((f"Attention scores {layout} {sshape} scale {scale_at} "
                            f"mask {self.mask_kind} Softmax axis {axis}", True))
        ctx = self.q(self.node("MatMul", [self.dq(p), self.dq(vh)]),
                     vh.shape[:-2] + [T, vh.shape[-1]], v.std * 0.8)
        if rank == 4:
            ctx = self.reshape_to(self.transpose_to(ctx, [0, 2, 1, 3]), [B, T, C])
        return self.linear(ctx, C, fold=self.fold())

    def layer_norm(self, x, xd=None):
        """LayerNorm of x (or of the float xd of x's shape: a residual Add
        left unquantized)."""
        rng = self.rng
        C = x.shape[-1]
        eps = float(rng.choice([1e-5, 1e-6, 1e-12]))
        gamma = self.const("gamma", (1 + 0.3 * rng.standard_normal(C)).astype(np.float32))
        beta = self.const("beta", (0.3 * rng.standard_normal(C)).astype(np.float32))
        axis = -1 if rng.random() < 0.7 else len(x.shape) - 1
        skip = xd is not None
        xd = xd or self.dq(x)
        if self.opset >= 17 and rng.random() < 0.5:
            # normalized over [T, C], scale and bias of that shape; not after a
            # float residual Add: ORT 1.23.2 fuses that pair into a
            # SkipLayerNormalization that then refuses a 2-D gamma
            if not skip and rng.random() < 0.1:
                axis = 1 if rng.random() < 0.5 else -2
                tc = x.shape[1:]
                gamma = self.const("gamma", (1 + 0.3 * rng.standard_normal(tc)).astype(np.float32))
                beta = self.const("beta", (0.3 * rng.standard_normal(tc)).astype(np.float32))
            ins = [xd, gamma] + ([beta] if rng.random() < 0.85 else [])
            f = self.node("LayerNormalization", ins, axis=axis, epsilon=eps)
            form = "op" + ("" if len(ins) == 3 else " no bias")
        else:
            m = self.node("ReduceMean", [xd], axes=[axis], keepdims=1)
            d = self.node("Sub", [xd, m])
            var = self.node("ReduceMean", [self.node("Pow", [d, self.f32(2.0)])], axes=[axis],
                            keepdims=1)
            sd = self.node("Sqrt", [self.node("Add", [var, self.f32(eps)])])
            n = self.node("Div", [d, sd])
            f = self.either("Add", self.either("Mul", n, gamma), beta)
            form = "decomposed"
        y = self.q(f, x.shape, 1.2)
        self.layers.append((f"LayerNorm {form} {x.shape} axis {axis} eps {eps}", True))
        return y

    def gelu(self, x):
        rng = self.rng
        xd = self.island_in(x)
        half_first = rng.random() < 0.5
        if rng.random() < 0.6:
            if rng.random() < 0.85:
                e = self.node("Erf", [self.node("Div", [xd, self.f32(SQRT2)])])
            else:   # TensorFlow's exports multiply by 1/sqrt 2
                e = self.node("Erf", [self.either("Mul", xd, self.f32(1.0 / math.sqrt(2.0)))])
            one_plus = self.either("Add", e, self.f32(1.0))
            form = "erf"
        else:
            if rng.random() < 0.5:
                x3, cube = self.node("Pow", [xd, self.f32(3.0)]), "Pow"
            else:
                x3, cube = self.node("Mul", [self.node("Mul", [xd, xd]), xd]), "Mul"
            inner = self.either("Add", xd, self.either("Mul", x3, self.f32(0.044715)))
            th = self.node("Tanh", [self.either("Mul", inner, self.f32(SQRT_2_OVER_PI))])
            one_plus = self.either("Add", th, self.f32(1.0))
            form = f"tanh ({cube})"
        if half_first:
            f = self.node("Mul", [self.either("Mul", xd, self.f32(0.5)), one_plus])
        else:
            f = self.either("Mul", self.node("Mul", [xd, one_plus]), self.f32(0.5))
        y = self.q(f, x.shape, 0.7 * x.std)
        self.layers.append((f"GELU {form} 0.5 {'first' if half_first else 'last'} {x.shape}", True))
        return y

    def residual(self, x, y, quantize=True):
        """x + y, quantized, or left in float for the LayerNorm after it."""
        f = self.either("Add", self.dq(x), self.island_in(y), p=0.5)
        self.layers.append((f"Residual Add {x.shape}{'' if quantize else ' in float'}", True))
        return self.q(f, x.shape, x.std + y.std) if quantize else f

    def block(self, x, H, F, pre_ln):
        r = self.rng.random()
        parts = ["attention", "ffn"] if r < 0.7 else ["attention"] if r < 0.85 else ["ffn"]
        for part in parts:
            h = self.layer_norm(x) if pre_ln else x
            if part == "attention":
                y = self.attention(h, H)
            else:
                g = self.gelu(self.linear(h, F, fold=self.fold()))
                y = self.linear(g, x.shape[-1], fold=self.fold())
            if pre_ln:
                x = self.residual(x, y)
            elif self.float_residual:
                x = self.layer_norm(x, xd=self.residual(x, y, quantize=False))
            else:
                x = self.layer_norm(self.residual(x, y))
        return x

    def closing_softmax(self, x):
        """A Softmax of [B, T, C] on any axis (a classifier-like head), a
        second graph output: x stays one too, since a Softmax at 1/128
        keeps few codes of it."""
        axis = int(self.rng.choice([-1, 2, 1, 0]))
        f = self.node("Softmax", [self.dq(x)], axis=axis)
        x.uses -= 1
        self.q(f, x.shape, 0.3, scale=self.softmax_scale(qlinear=True), zp=QMIN[self.dtype])
        self.layers.append((f"Softmax {x.shape} axis {axis}", True))


def shape_of(rng, max_elems=4096):
    """(B, T, C, H, F): at most max_elems values in any activation, the
    attention scores [B, H, T, T] included."""
    H = int(rng.integers(1, 5))
    D = int(rng.integers(max(2, -(-8 // H)), 96 // H + 1))
    C = H * D
    B = int(rng.choice([1, 1, 1, 2]))
    tmax = min(40, max_elems // (B * C), math.isqrt(max_elems // (B * H)))
    T = int(rng.integers(4, tmax + 1))
    F = int(rng.choice([f for f in (C, 2 * C, 4 * C) if B * T * f <= max_elems]))
    return B, T, C, H, F


def generate(rng, avoid=()):
    """Returns (ModelProto, feeds {name: array}, info dict)."""
    r = rng.random()
    opset = 17 if r < 0.45 else 13 if r < 0.9 else 11
    b = TransformerBuilder(rng, opset, avoid=avoid)
    B, T, C, H, F = shape_of(rng)
    x = b.add_input([B, T, C])
    b.make_mask(B, T)
    pre_ln = rng.random() < 0.5
    # bias Adds left to the next float island; post-LN residual Adds left in
    # float (the LayerNorm reads the sum): ORT fuses these (BiasGelu,
    # FastGelu, SkipLayerNormalization)
    b.fold_bias = float(rng.choice([0.0, 0.5]))
    b.float_residual = rng.random() < 0.3
    for _ in range(1 if rng.random() < 0.7 else 2):
        x = b.block(x, H, F, pre_ln)
    if pre_ln and rng.random() < 0.7:
        x = b.layer_norm(x)
    if rng.random() < 0.15:
        b.closing_softmax(x)
    model, feeds, info = finish(b, opset)
    info["family"] = "transformer"
    info["opset"] = opset
    return model, feeds, info
