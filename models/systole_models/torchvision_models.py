"""torchvision classifiers with random (seeded) weights, exported to ONNX.

No weights can be downloaded here, and the NPU's correctness does not depend
on trained weights: what matters is the architecture and bit-exactness against
ORT. Inputs are seeded random normals, matching random weights.

An untrained net keeps BatchNorm at mean 0 / variance 1, which folds into
all-zero conv biases (leaving the int32 bias path untested) and lets
activations drift far from unit scale (MobileNetV2's logits come out around
1e-9). So before export the BatchNorm statistics are re-estimated on random
inputs, as a trained net's would be on data: every BN then normalizes its
conv's output, and the folded biases are real numbers.
"""

import numpy as np
import torch
import torchvision

from . import torch_export

INPUT_SHAPE = (1, 3, 224, 224)
ARCHITECTURES = {
    "resnet18": torchvision.models.resnet18,
    "resnet50": torchvision.models.resnet50,
    "mobilenet_v2": torchvision.models.mobilenet_v2,
}
WEIGHT_SEED = 0
BN_STATS_SEED = 3000     # inputs used to estimate BatchNorm statistics
BN_STATS_BATCHES = 2
BN_STATS_BATCH_SIZE = 8
REFERENCE_SEED = 1000   # inputs stored with the references
CALIBRATION_SEED = 2000  # inputs used only for calibration, distinct from the references


def estimate_batchnorm_statistics(module):
    """Sets every BN's running mean/var to the exact average over a few random batches."""
    for m in module.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None  # cumulative average instead of an exponential one
    gen = torch.Generator().manual_seed(BN_STATS_SEED)
    module.train()
    with torch.no_grad():
        for _ in range(BN_STATS_BATCHES):
            module(torch.randn(BN_STATS_BATCH_SIZE, *INPUT_SHAPE[1:], generator=gen))
    module.eval()


def export(name, path):
    torch.manual_seed(WEIGHT_SEED)
    module = ARCHITECTURES[name](weights=None)
    estimate_batchnorm_statistics(module)
    return torch_export.export(module, INPUT_SHAPE, path)


def random_inputs(count, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((count, *INPUT_SHAPE[1:])).astype(np.float32)


def describe(name):
    return (f"torchvision.models.{name}(weights=None) after torch.manual_seed({WEIGHT_SEED}); BatchNorm "
            f"statistics estimated on {BN_STATS_BATCHES}x{BN_STATS_BATCH_SIZE} standard normal inputs "
            f"(torch.Generator seed {BN_STATS_SEED}); exported in eval mode with BN folded")
