"""ONNX Runtime's com.microsoft QLinearSoftmax, step for step, in numpy.

ORT's QDQ transformer turns DequantizeLinear -> Softmax -> QuantizeLinear
into QLinearSoftmax (UnaryOpQDQRules), whose CPU kernel
(contrib_ops/cpu/quantization/qlinear_softmax.cc) does not compute a float
softmax: a 256-entry float table of exp((i - 255 + shift) * x_scale) built
in double, the row's sum of table entries in float, then
nearbyintf(vt * floor(1 / y_scale) / sum) + zero point, with the int8
kernel's wrap-around of results above 127.
"""
import numpy as np


def table(x_scale, reduce_len, signed):
    """The kernel's lookup table, indexed by the byte it reads."""
    f32max = np.float32(np.finfo(np.float32).max)
    ratio = np.float32(f32max / np.float32(reduce_len))  # float / size_t: float
    # log of a float is std::log(float), logf: a float result (one row of
    # ViT-B/16's attention rounds differently with the double log).
    shift = np.float64(np.log(ratio))
    shift = max(0.0, shift - 5.0) / np.float64(np.float32(x_scale))
    out = np.zeros(256, np.float32)
    for i in range(256):
        v = np.exp((np.float64(i) - 255.0 + shift) * np.float64(np.float32(x_scale)))
        out[(i - 128) & 255 if signed else i] = np.float32(v)
    return out


def qlinear_softmax(x, x_scale, y_scale, y_zp, axis=-1):
    """x: int8 or uint8 codes; softmax over `axis` (opset 13)."""
    signed = x.dtype == np.int8
    x = np.moveaxis(x, axis, -1)
    rows = x.reshape(-1, x.shape[-1]).astype(np.int32)
    d = rows.shape[1]
    t = table(x_scale, d, signed)
    c = np.float32(np.floor(np.float32(1.0) / np.float32(y_scale)))
    y = np.empty(rows.shape, np.int64)
    for r, row in enumerate(rows):
        xmax = row.max()
        idx = ((127 - xmax + row) & 255) if signed else (255 - xmax + row)
        vt = t[idx]
        s = np.float32(0)
        for v in vt:  # the kernel's sequential float sum
            s = np.float32(s + v)
        q = np.rint((vt * c).astype(np.float32) / s).astype(np.int64) + int(y_zp)
        y[r] = q
    if signed:
        y = np.where(y > 255, -1, ((y + 128) & 255) - 128).astype(np.int8)
    else:
        y = np.minimum(y, 255).astype(np.uint8)
    return np.moveaxis(y.reshape(x.shape), -1, axis)
