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


class FirstOutput(torch.nn.Module):
    """Segmentation models return {"out": ...}; the ONNX model has that one output."""

    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, x):
        return self.module(x)["out"]


def _small_vit():
    vit = torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4,
                                               hidden_dim=64, mlp_dim=128, num_classes=10)
    # torchvision zero-initializes the head (it is meant to be trained); an all-zero Gemm is no
    # user's model (and the compiler refuses it: docs/models.md), so give it random weights.
    torch.nn.init.normal_(vit.heads.head.weight, std=0.1)
    torch.nn.init.normal_(vit.heads.head.bias, std=0.1)
    return vit


def _small_convnext():
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    return ConvNeXt([CNBlockConfig(32, 64, 1), CNBlockConfig(64, None, 1)], stochastic_depth_prob=0.0,
                    num_classes=10)


tv = torchvision.models
# name: (constructor, input height/width, how it was made, for the manifest)
ARCHITECTURES = {
    "resnet18": (lambda: tv.resnet18(weights=None), 224, "resnet18(weights=None)"),
    "resnet50": (lambda: tv.resnet50(weights=None), 224, "resnet50(weights=None)"),
    "mobilenet_v2": (lambda: tv.mobilenet_v2(weights=None), 224, "mobilenet_v2(weights=None)"),
    "resnext50_32x4d": (lambda: tv.resnext50_32x4d(weights=None), 64, "resnext50_32x4d(weights=None)"),
    "regnet_y_400mf": (lambda: tv.regnet_y_400mf(weights=None), 64, "regnet_y_400mf(weights=None)"),
    "mobilenet_v3_small": (lambda: tv.mobilenet_v3_small(weights=None), 64, "mobilenet_v3_small(weights=None)"),
    "mobilenet_v3_large": (lambda: tv.mobilenet_v3_large(weights=None), 96, "mobilenet_v3_large(weights=None)"),
    "densenet121": (lambda: tv.densenet121(weights=None), 64, "densenet121(weights=None)"),
    "googlenet": (lambda: tv.googlenet(weights=None, aux_logits=False, init_weights=True), 64,
                  "googlenet(weights=None, aux_logits=False, init_weights=True)"),
    "shufflenet_v2_x0_5": (lambda: tv.shufflenet_v2_x0_5(weights=None), 64, "shufflenet_v2_x0_5(weights=None)"),
    "squeezenet1_1": (lambda: tv.squeezenet1_1(weights=None), 64, "squeezenet1_1(weights=None)"),
    "efficientnet_b0": (lambda: tv.efficientnet_b0(weights=None), 64, "efficientnet_b0(weights=None)"),
    "mnasnet0_5": (lambda: tv.mnasnet0_5(weights=None), 64, "mnasnet0_5(weights=None)"),
    "lraspp_mobilenet_v3_large": (
        lambda: FirstOutput(tv.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None)), 96,
        "segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None)['out']"),
    "vit_small": (_small_vit, 32, "VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4, "
                                  "hidden_dim=64, mlp_dim=128, num_classes=10), head weights N(0, 0.1)"),
    "convnext_small": (_small_convnext, 64, "ConvNeXt([CNBlockConfig(32, 64, 1), CNBlockConfig(64, None, 1)], "
                                            "stochastic_depth_prob=0, num_classes=10)"),
}
# uint8-activation variants: same float model, quantized with uint8 activations
UINT8_VARIANTS = {"mobilenet_v2_uint8": "mobilenet_v2", "squeezenet1_1_uint8": "squeezenet1_1",
                  "mobilenet_v3_small_uint8": "mobilenet_v3_small"}


def arch(name):
    return UINT8_VARIANTS.get(name, name)


def input_shape(name):
    return (1, 3, ARCHITECTURES[arch(name)][1], ARCHITECTURES[arch(name)][1])
WEIGHT_SEED = 0
BN_STATS_SEED = 3000     # inputs used to estimate BatchNorm statistics
BN_STATS_BATCHES = 2
BN_STATS_BATCH_SIZE = 8
REFERENCE_SEED = 1000   # inputs stored with the references
CALIBRATION_SEED = 2000  # inputs used only for calibration, distinct from the references


def estimate_batchnorm_statistics(module, shape=INPUT_SHAPE):
    """Sets every BN's running mean/var to the exact average over a few random batches."""
    for m in module.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None  # cumulative average instead of an exponential one
    gen = torch.Generator().manual_seed(BN_STATS_SEED)
    module.train()
    with torch.no_grad():
        for _ in range(BN_STATS_BATCHES):
            module(torch.randn(BN_STATS_BATCH_SIZE, *shape[1:], generator=gen))
    module.eval()


def export(name, path):
    torch.manual_seed(WEIGHT_SEED)
    module = ARCHITECTURES[arch(name)][0]()
    estimate_batchnorm_statistics(module, input_shape(name))
    return torch_export.export(module, input_shape(name), path, allow_batchnorm=arch(name) == "densenet121",
                               grad=arch(name) == "vit_small")


def random_inputs(count, seed, name="resnet18"):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((count, *input_shape(name)[1:])).astype(np.float32)


def describe(name):
    what = ARCHITECTURES[arch(name)][2]
    # Models written outside torchvision name their file themselves.
    source = what if "/" in what else f"torchvision.models.{what}"
    return (f"{source} after torch.manual_seed({WEIGHT_SEED}); BatchNorm "
            f"statistics estimated on {BN_STATS_BATCHES}x{BN_STATS_BATCH_SIZE} standard normal inputs "
            f"(torch.Generator seed {BN_STATS_SEED}); exported in eval mode with BN folded")
