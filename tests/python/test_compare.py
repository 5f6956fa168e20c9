"""`systole compare` (Python and CLI) against ONNX Runtime on digits: every
layer bit-exact for the compiler's binary, and a binary whose /conv2/Conv
requantization scale was corrupted by hand is reported at that layer.

Needs node and ONNX Runtime in build/ort (tools/setup.sh); missing ones fail
the test with the name of what to install."""
import os
import shutil
import subprocess

import numpy as np
import pytest
from onnx import numpy_helper
import onnx

import systole
from systole.compare import compare

from conftest import DIGITS, ROOT


def _need_ort():
    assert shutil.which("node"), "node not found: install the Debian package nodejs"
    ort = os.environ.get("SYSTOLE_ORT_DIR", os.path.join(ROOT, "build", "ort"))
    assert os.path.isdir(os.path.join(ort, "node_modules", "onnxruntime-node")), \
        "ONNX Runtime not installed in %s: run tools/setup.sh" % ort


def _conv2_requant_scales(model):
    """The fp32 per-channel scales /conv2/Conv's REQUANT multiplies by:
    input scale x weight scale / output scale (docs/isa.md, REQUANT)."""
    m = onnx.load(model)
    init = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    w = init["conv2.weight_scale"].astype(np.float32)
    # MaxPool keeps its input's quantization (the Relu's).
    s_in = init["/Relu_output_0_scale"].astype(np.float32)
    s_out = init["/conv2/Conv_output_0_scale"].astype(np.float32)
    return (s_in * w / s_out).astype(np.float32)


def _corrupt(data, scales):
    """Finds the scale vector in the binary and multiplies channel 3's by
    1.05: a one-layer requantization error."""
    for align in range(4):
        n = (len(data) - align) // 4
        words = np.frombuffer(data[align:align + 4 * n], dtype=np.float32)
        for i in range(n - len(scales) + 1):
            if np.array_equal(words[i:i + len(scales)], scales):
                bad = scales.copy()
                bad[3] *= np.float32(1.05)
                off = align + 4 * i
                return data[:off] + bad.tobytes() + data[off + 4 * len(bad):]
    raise AssertionError("the /conv2/Conv requantization scales are not in "
                         "the binary")


def test_compare_exact(digits_qdq, digits_inputs):
    _need_ort()
    c = compare(digits_qdq, inputs=digits_inputs[0])
    nodes = [l.node for l in c.layers]
    for layer in ("/conv1/Conv", "/pool/MaxPool", "/conv2/Conv", "/Add",
                  "/conv3/Conv", "/Flatten", "/fc/Gemm"):
        assert layer in nodes
    assert c.exact and c.first_difference is None, c.format()
    assert all(l.cosine == pytest.approx(1.0) for l in c.layers)


def test_compare_names_the_corrupted_layer(digits_qdq, digits_inputs,
                                           tmp_path):
    _need_ort()
    prog = systole.compile(digits_qdq, reuse_dram=False)
    bad = systole.Program.from_bytes(
        _corrupt(prog.to_bytes(), _conv2_requant_scales(digits_qdq)))
    x = digits_inputs[0]
    c = compare(digits_qdq, bad, {"input": x})
    first = c.first_difference
    assert first is not None and first.node == "/conv2/Conv", c.format()
    # Everything before it is still exact; the error is a few steps.
    before = c.layers[:c.layers.index(first)]
    assert [l.node for l in before] == ["input_QuantizeLinear", "/conv1/Conv",
                                        "/pool/MaxPool"]
    assert all(l.exact for l in before)
    assert 0 < first.differing < first.count and first.max_steps >= 1

    # The CLI: `systole compare MODEL BIN --input FILE` prints the layer.
    npu = str(tmp_path / "bad.npu")
    bad.save(npu)
    inp = str(tmp_path / "x.npy")
    np.save(inp, x)
    exe = os.path.join(systole._systole.binary_dir(), "bin", "systole")
    proc = subprocess.run([exe, "compare", digits_qdq, npu, "--input", inp],
                          capture_output=True, text=True)
    assert proc.returncode == 3, proc.stderr
    assert "first layer that differs: /conv2/Conv (Conv" in proc.stdout, \
        proc.stdout


def test_compare_refuses_a_binary_with_dram_reuse(digits_qdq, digits_inputs):
    prog = systole.compile(digits_qdq)  # reuse_dram=True
    with pytest.raises(systole.Error, match="--no-dram-reuse"):
        compare(digits_qdq, prog, digits_inputs[0])


# Zoo models whose outputs are bit-exact with ORT and whose intermediates
# used to be reported as differing: float ops inside QDQ groups (encoders:
# LayerNorm, Softmax, GELU, decomposed LayerNorm at opset 13), Slices the
# NPU runs at their input's quantization, convolutions whose activation the
# NPU applies in their epilogue (oww_embedding: tf2onnx, NHWC graph;
# ppocr_cls: hardswish and squeeze-excitation).
EXACT_ZOO = ["encoder_opset13", "encoder_opset17", "oww_embedding", "ppocr_cls"]


def _zoo(name):
    folder = os.path.join(systole._systole.binary_dir(), "cache", "models", name)
    model = os.path.join(folder, name + "_int8_qdq.onnx")
    assert os.path.isfile(model), "%s is missing: tools/setup.sh builds the zoo" % model
    return model, np.load(os.path.join(folder, "inputs", "input_0.npy"))


@pytest.mark.parametrize("name", EXACT_ZOO)
def test_compare_reports_no_difference_on_exact_models(name):
    _need_ort()
    model, x = _zoo(name)
    c = compare(model, inputs=x)
    assert c.exact and c.first_difference is None, c.format()
    # Every compared tensor really agrees (no layer matched to the wrong
    # value and "exact" by tolerance), and the graph output is among them.
    assert all(l.bitwise_differing == 0 for l in c.layers), c.format()
    assert "output" in [l.name for l in c.layers]
    if name == "oww_embedding":
        # Its convs are never stored: Max(x, 0) runs in their epilogue.
        fused = [o for o in c.left_out if o.reason == "transient"]
        assert len(fused) >= 10 and all(o.op_type == "Conv" for o in fused)


@pytest.fixture(scope="session")
def float_island_transformer(tmp_path_factory):
    """The 2-layer encoder whose Softmax, LayerNorm and attention matmuls
    stay float (models/systole_models/transformer.py), built here."""
    import sys
    sys.path.insert(0, os.path.join(ROOT, "models"))
    from systole_models import transformer
    folder = tmp_path_factory.mktemp("transformer")
    transformer.build(folder)
    return (str(folder / "transformer_int8_qdq.onnx"),
            np.load(str(folder / "inputs" / "input_0.npy")))


def test_compare_float_islands(float_island_transformer):
    # Float tensors (LayerNorm outputs, the attention's matmuls) are compared
    # by ulps and are bit-equal (host math as ORT's); the P x V product,
    # which ORT requantizes by QDQ propagation, is left out with that reason.
    _need_ort()
    model, x = float_island_transformer
    c = compare(model, inputs=x)
    assert c.exact, c.format()
    floats = [l for l in c.layers if l.is_float]
    assert len(floats) >= 4 and all(l.bitwise_differing == 0 for l in floats), c.format()
    requantized = [o.node for o in c.left_out if o.reason == "requantized"]
    assert requantized == ["/layers.0/self_attn/MatMul_2", "/layers.1/self_attn/MatMul_2"], \
        c.format()
