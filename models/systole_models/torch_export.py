"""Exports PyTorch modules to the ONNX form the quantizer and compiler expect.

Eval-mode export with constant folding: the exporter folds every
BatchNormalization that follows a Conv into the Conv's weights and bias, so the
float graph only has ops with an integer counterpart on the NPU.
"""

from collections import Counter

import onnx
import torch

OPSET = 13
INPUT_NAME = "input"
OUTPUT_NAME = "output"


def export(module, input_shape, path, allow_batchnorm=False, opset=OPSET, grad=False):
    """allow_batchnorm: a BN that follows no Conv (DenseNet's pre-activation BN) may stay.
    grad=True exports with autograd on, which keeps nn.MultiheadAttention off its fused
    fast path (aten::_native_multi_head_attention has no ONNX export)."""
    module.eval()
    dummy = torch.zeros(*input_shape)
    with torch.set_grad_enabled(grad):
        torch.onnx.export(
            module, dummy, str(path),
            opset_version=opset,
            input_names=[INPUT_NAME], output_names=[OUTPUT_NAME],
            do_constant_folding=True,
            training=torch.onnx.TrainingMode.EVAL,
        )
    model = onnx.load(str(path))
    onnx.checker.check_model(model)
    leftover = [n.name for n in model.graph.node if n.op_type == "BatchNormalization"]
    if leftover and not allow_batchnorm:
        raise RuntimeError(f"{path}: BatchNormalization was not folded: {leftover[:5]}")
    return model


def op_counts(model):
    """{op_type: count}, with the domain prefixed for non-default domains."""
    counts = Counter(
        f"{n.domain}.{n.op_type}" if n.domain not in ("", "ai.onnx") else n.op_type
        for n in model.graph.node
    )
    return dict(sorted(counts.items()))
