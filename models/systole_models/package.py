"""Writes one model's folder: the three ONNX files, inputs, ORT references, manifest.json.

Layout of DIR/<name>/ (paths in manifest.json are relative to it):
  <name>_fp32.onnx  <name>_int8_qdq.onnx  <name>_int8_qop.onnx
  inputs/input_<i>.npy                  float32, the model's input shape
  ref_fp32/output_<i>.npy               ORT on the float model
  ref_qdq/output_<i>.npy                ORT on the QDQ model (float, after the final DequantizeLinear)
  ref_qdq/output_<i>_int8.npy           the int8 tensor that DequantizeLinear reads (bit-exact target)
  ref_qop/...                           the same for the QOperator model
  manifest.json
"""

import hashlib
import json
import tempfile
from pathlib import Path

import numpy as np
import onnx

from . import ort_runner
from .onnx_build import quantized
from .torch_export import op_counts

FORMAT_VERSION = 1
FORMS = ("fp32", "int8_qdq", "int8_qop")
REF_DIRS = {"fp32": "ref_fp32", "int8_qdq": "ref_qdq", "int8_qop": "ref_qop"}


def sha256_of(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _quant_info(plan, tensor):
    q = plan.params[tensor]
    return {"int8_tensor": quantized(tensor), "scale": float(q.scale), "zero_point": int(q.zero_point)}


def _value_info(vi):
    dims = [d.dim_value if d.HasField("dim_value") else d.dim_param for d in vi.type.tensor_type.shape.dim]
    return {"name": vi.name, "shape": dims,
            "dtype": onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[vi.type.tensor_type.elem_type].name}


def run_references(folder, name, inputs, input_name, output_name):
    """Runs ORT on every form; returns ({form: ref paths}, {form: op counts ORT executed})."""
    refs, executed = {}, {}
    for form in FORMS:
        model = folder / f"{name}_{form}.onnx"
        int8_name = quantized(output_name)
        extra = [] if form == "fp32" else [int8_name]
        with tempfile.TemporaryDirectory() as tmp:
            optimized = Path(tmp) / "optimized.onnx"
            # One session, one run per sample: the same as separate ort_run.js calls per input.
            outs = ort_runner.run(model, {input_name: inputs}, extra_outputs=extra, split_batch=True,
                                  optimized_model=optimized)
            executed[form] = op_counts(onnx.load(str(optimized)))
        ref_dir = folder / REF_DIRS[form]
        ref_dir.mkdir(parents=True, exist_ok=True)
        entry = {"output": [], "output_int8": []} if extra else {"output": []}
        for i in range(len(inputs)):
            path = f"{REF_DIRS[form]}/output_{i}.npy"
            np.save(folder / path, outs[output_name][i:i + 1])
            entry["output"].append(path)
            if extra:
                path = f"{REF_DIRS[form]}/output_{i}_int8.npy"
                np.save(folder / path, outs[int8_name][i:i + 1])
                entry["output_int8"].append(path)
        refs[form] = entry
    return refs, executed


def reference_info(inputs, refs):
    """The manifest's "reference" entry: how the ORT references were made."""
    return {
        "runner": "tools/ort/ort_run.js",
        "onnxruntime_node": ort_runner.ort_version(),
        "graph_optimization_level": "ORT default (all)",
        "session_config": {"session.qdqisint8allowed": "1"},
        "inputs": inputs,
        **refs,
    }


def save_models(folder, name, models):
    """Saves {form: ModelProto} as <name>_<form>.onnx; returns {form: file name}."""
    files = {}
    for form in FORMS:
        files[form] = f"{name}_{form}.onnx"
        onnx.save(models[form], str(Path(folder) / files[form]))
    return files


def write_package(folder, name, models, plan, ref_inputs, info):
    """models: {form: ModelProto}; ref_inputs: [N, ...] batch-1 samples; info: extra manifest keys."""
    folder = Path(folder)
    files = save_models(folder, name, models)
    (folder / "inputs").mkdir(parents=True, exist_ok=True)
    input_paths = []
    for i, x in enumerate(ref_inputs):
        input_paths.append(f"inputs/input_{i}.npy")
        np.save(folder / input_paths[-1], x[None])

    graph = models["fp32"].graph
    (inp,), (out,) = graph.input, graph.output
    refs, executed = run_references(folder, name, ref_inputs, inp.name, out.name)
    manifest = {
        "format_version": FORMAT_VERSION,
        "name": name,
        **info,
        "opset": max(o.version for o in models["int8_qdq"].opset_import if o.domain in ("", "ai.onnx")),
        "activation_type": plan.act_type,
        "files": files,
        "sha256": {f: sha256_of(folder / f) for f in files.values()},
        "input": {**_value_info(inp), "quant": _quant_info(plan, inp.name)},
        "output": {**_value_info(out), "quant": _quant_info(plan, out.name)},
        "op_types": {form: op_counts(models[form]) for form in FORMS},
        "ort_executed_op_types": executed,
        "reference": reference_info(input_paths, refs),
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest
