"""Transformer encoders (torch.nn.TransformerEncoder) for the zoo, at two opsets.

opset 13 has no LayerNormalization: torch writes LayerNorm as ReduceMean, Sub,
Pow, ReduceMean, Add, Sqrt, Div, Mul, Add. opset 17 writes one
LayerNormalization node. GELU is its Erf formula in both. Weights are random
(torch.manual_seed(0)); shape arithmetic of the attention's reshapes is folded
into initializers (transformer.fold_shape_arithmetic). The project's quantizer
then makes every MatMul with a constant weight an int8 op and leaves the rest
(bias Adds, LayerNorm, Softmax, GELU, activation x activation MatMuls) as float
ops between quantized tensors.
"""

import numpy as np
import onnx
import torch

from . import torch_export
from .transformer import fold_shape_arithmetic

D_MODEL, HEADS, FF, LAYERS, SEQ = 64, 4, 128, 2, 16
SEED = 0
ENCODERS = {"encoder_opset13": 13, "encoder_opset17": 17}


def export(name, path):
    torch.manual_seed(SEED)
    layer = torch.nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, dropout=0.0, activation="gelu",
                                             batch_first=True)
    module = torch.nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
    torch_export.export(module, (1, SEQ, D_MODEL), path, opset=ENCODERS[name], grad=True)
    m = onnx.load(str(path))
    fold_shape_arithmetic(m)
    onnx.checker.check_model(m)
    onnx.save(m, str(path))
    return m


def random_inputs(count, seed):
    return np.random.default_rng(seed).standard_normal((count, SEQ, D_MODEL)).astype(np.float32)


def describe(name):
    return (f"torch.nn.TransformerEncoder({LAYERS} x TransformerEncoderLayer(d_model={D_MODEL}, nhead={HEADS}, "
            f"dim_feedforward={FF}, gelu, batch_first)), torch.manual_seed({SEED}), exported at opset "
            f"{ENCODERS[name]}, input [1, {SEQ}, {D_MODEL}]")
