"""Quantization arithmetic, mirroring onnxruntime.quantization bit for bit.

Activations: per-tensor asymmetric int8 (or uint8, ORT's QUInt8) from a calibrated [min, max] widened
to include 0 (so that zero padding is exact). Weights: per-channel symmetric
int8 in [-127, 127] (zero point 0). Bias: int32 with scale x_scale * w_scale[c]
so the NPU adds it straight into the int32 accumulator. The float32/float64
steps follow ORT's quant_utils.compute_scale_zp / quantize_nparray /
quantize_bias_static_impl so a model quantized here and by ORT's own tool
gets the same numbers.
"""

from dataclasses import dataclass

import numpy as np

ACT_QMIN, ACT_QMAX = -128, 127
ACT_RANGES = {"int8": (-128, 127, np.int8), "uint8": (0, 255, np.uint8)}
WEIGHT_QMAX = 127  # symmetric: [-127, 127] keeps -w representable


@dataclass(frozen=True)
class ActQuant:
    """Per-tensor quantization of an activation: real = scale * (q - zero_point).
    zero_point is np.int8 or np.uint8; its type is the activation's type."""
    scale: np.float32
    zero_point: np.int8


def activation_quant(rmin, rmax, dtype="int8"):
    qmin, qmax, np_type = ACT_RANGES[dtype]
    rmin = np.minimum(np.float32(rmin), np.float32(0))
    rmax = np.maximum(np.float32(rmax), np.float32(0))
    scale = np.float64(rmax - rmin) / np.float64(qmax - qmin)
    if scale < np.finfo(np.float32).tiny:  # all-zero tensor: any scale is exact
        return ActQuant(np.float32(1.0), np_type(0))
    zero_point = np.clip(np.round(qmin - rmin / scale), qmin, qmax)
    return ActQuant(np.float32(scale), np_type(zero_point))


def quantize_activation(x, q):
    """What QuantizeLinear computes (round half to even, saturate)."""
    info = np.iinfo(q.zero_point.dtype)
    y = np.round(np.asarray(x, np.float32) / q.scale) + np.float32(q.zero_point)
    return np.clip(y, info.min, info.max).astype(q.zero_point.dtype)


def weight_quant_per_channel(w, axis):
    """Returns (int8 weights, float32 scale per channel along `axis`)."""
    w = np.asarray(w, np.float32)
    moved = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
    absmax = np.maximum(np.abs(moved.min(axis=1)), np.abs(moved.max(axis=1)))
    scales = (absmax.astype(np.float64) * 2 / (2 * WEIGHT_QMAX)).astype(np.float32)
    scales[scales < np.finfo(np.float32).tiny] = np.float32(1.0)
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.round(w / scales.reshape(shape))
    return np.clip(q, ACT_QMIN, ACT_QMAX).astype(np.int8), scales


def bias_quant(b, x_scale, w_scales):
    """Returns (int32 bias, float32 bias scale per channel = x_scale * w_scale)."""
    scales = (np.float32(x_scale) * np.asarray(w_scales, np.float32)).astype(np.float32)
    q = np.round(np.asarray(b, np.float32) / scales)
    return np.clip(q, -(2 ** 31), 2 ** 31 - 1).astype(np.int32), scales


def weight_quant_per_tensor(w):
    """Returns (int8 weights, scalar float32 scale): ORT's per_channel=False, used for MatMul."""
    q, scales = weight_quant_per_channel(np.asarray(w, np.float32).reshape(1, -1), 0)
    return q.reshape(np.shape(w)), scales.reshape(())
