"""A BERT-style encoder with int64 token ids and an attention mask (bench/transformers.py, issue 31).

BERT-Mini's shape (Turc et al. 2019: 4 layers, hidden 256, 4 heads, FFN
1024) with a vocabulary of 4096 and sequences of 128, written as HF
transformers' BertModel computes it: word + position + token-type (all 0)
embeddings, LayerNorm (eps 1e-12); per layer separate Q/K/V Linears, scores
Q K^T / sqrt(64) plus the additive mask, Softmax, context, output Linear,
residual + LayerNorm, then Linear 256->1024, GELU (erf), Linear 1024->256,
residual + LayerNorm. The mask is made additive inside the graph as
BertModel.get_extended_attention_mask does: (1 - float(mask[:, None, None,
:])) * float32's lowest. The output is the last hidden state [1, 128, 256].
Weights: N(0, 0.02) after torch.manual_seed(0) (BERT's initializer_range),
LayerNorm 1/0. Exported by torch.onnx at opset 17 (one LayerNormalization
node per LayerNorm, GELU as its Erf formula), shape arithmetic folded.

Quantized by the zoo's quantizer (quant_plan, emit_qdq, emit_qop) with the
zoo's 4 calibration and 3 reference samples. The zoo's calibrate.py and
package.py take one float input; here the two int64 inputs are fed together
and stay unquantized (the Gather of the embedding table and the mask's Cast
read them), and the package has the zoo's layout with one file per input
and sample (inputs/<input>_<i>.npy) and an "inputs" list in manifest.json.
Calibration sequences are unpadded (mask all 1, as when calibrating on
full-length text); the reference ones have 128, 100 and 37 valid tokens, so
the mask's path (quantized 0 -> -128 after Sub and Mul) is exercised.
"""

import json
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto

from . import ort_runner
from .emit_qdq import emit_qdq
from .emit_qop import emit_qop
from .onnx_build import quantized
from .package import (FORMAT_VERSION, FORMS, REF_DIRS, _quant_info, _value_info, reference_info, save_models,
                      sha256_of)
from .quant_plan import plan_quantization
from .quantize import scheme
from .torch_export import op_counts
from .transformer import fold_shape_arithmetic

NAME = "bert_mini"
LAYERS, HIDDEN, HEADS, FFN, SEQ, VOCAB = 4, 256, 4, 1024, 128, 4096
OPSET = 17
SEED = 0
CALIBRATION_SEED, REFERENCE_SEED = 2000, 1000
CALIBRATION_SAMPLES, REFERENCE_LENGTHS = 4, (128, 100, 37)
INPUTS = ("input_ids", "attention_mask")
OUTPUT = "output"


def _module():
    import torch
    from torch import nn

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.query, self.key, self.value = (nn.Linear(HIDDEN, HIDDEN) for _ in range(3))
            self.attn_out, self.attn_norm = nn.Linear(HIDDEN, HIDDEN), nn.LayerNorm(HIDDEN, eps=1e-12)
            self.intermediate, self.output = nn.Linear(HIDDEN, FFN), nn.Linear(FFN, HIDDEN)
            self.out_norm = nn.LayerNorm(HIDDEN, eps=1e-12)

        def heads(self, x):
            return x.view(1, SEQ, HEADS, HIDDEN // HEADS).permute(0, 2, 1, 3)

        def forward(self, h, mask):
            q, k, v = self.heads(self.query(h)), self.heads(self.key(h)), self.heads(self.value(h))
            scores = torch.matmul(q, k.transpose(-1, -2)) / ((HIDDEN // HEADS) ** 0.5)
            probs = torch.softmax(scores + mask, dim=-1)
            ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).reshape(1, SEQ, HIDDEN)
            a = self.attn_norm(self.attn_out(ctx) + h)
            return self.out_norm(self.output(nn.functional.gelu(self.intermediate(a))) + a)

    class Bert(nn.Module):
        def __init__(self):
            super().__init__()
            self.word, self.position, self.token_type = (nn.Embedding(VOCAB, HIDDEN), nn.Embedding(SEQ, HIDDEN),
                                                         nn.Embedding(2, HIDDEN))
            self.norm = nn.LayerNorm(HIDDEN, eps=1e-12)
            self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
            self.register_buffer("position_ids", torch.arange(SEQ)[None])
            self.register_buffer("token_type_ids", torch.zeros(1, SEQ, dtype=torch.long))

        def forward(self, input_ids, attention_mask):
            h = self.norm(self.word(input_ids) + self.token_type(self.token_type_ids) + self.position(self.position_ids))
            mask = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * torch.finfo(torch.float32).min
            for layer in self.layers:
                h = layer(h, mask)
            return h

    torch.manual_seed(SEED)
    bert = Bert()
    for m in bert.modules():  # BertPreTrainedModel._init_weights
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
        if isinstance(m, nn.Linear):
            nn.init.zeros_(m.bias)
    return bert.eval()


def export(path):
    import torch
    ids, mask = torch.zeros(1, SEQ, dtype=torch.long), torch.ones(1, SEQ, dtype=torch.long)
    with torch.no_grad():
        torch.onnx.export(_module(), (ids, mask), str(path), opset_version=OPSET, input_names=list(INPUTS),
                          output_names=[OUTPUT], do_constant_folding=True,
                          training=torch.onnx.TrainingMode.EVAL)
    model = onnx.load(str(path))
    fold_shape_arithmetic(model)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return model


def random_inputs(count, seed, lengths=None):
    """{input name: int64 [count, SEQ]}: uniform token ids, masks of `lengths` valid tokens (default all)."""
    ids = np.random.default_rng(seed).integers(0, VOCAB, (count, SEQ), dtype=np.int64)
    lengths = lengths or [SEQ] * count
    mask = (np.arange(SEQ)[None, :] < np.array(lengths)[:, None]).astype(np.int64)
    return {"input_ids": ids, "attention_mask": mask}


def quantize(fp32, fp32_path, feeds):
    """calibrate.tensor_ranges + quantize.quantize for several inputs, the int64 ones left unquantized."""
    outs = ort_runner.run(fp32_path, feeds, all_outputs=True, split_batch=True)
    ranges = {name: (np.float32(a.min()), np.float32(a.max()))
              for name, a in outs.items() if a.dtype == np.float32 and a.size}
    integer = [i.name for i in fp32.graph.input if i.type.tensor_type.elem_type != TensorProto.FLOAT]
    # plan_quantization wants a range for every graph input; the integer ones then leave the plan, so the
    # emitters put no QuantizeLinear on them.
    plan = plan_quantization(fp32, {**ranges, **{name: (0.0, 0.0) for name in integer}})
    for name in integer:
        del plan.params[name], plan.params_owner[name]
    return emit_qdq(plan, fp32), emit_qop(plan, fp32), plan


def write_package(folder, models, plan, feeds, info):
    """package.write_package for a model with several inputs (see the module docstring)."""
    files = save_models(folder, NAME, models)
    (folder / "inputs").mkdir(parents=True, exist_ok=True)
    count = len(feeds[INPUTS[0]])
    inputs = [{name: f"inputs/{name}_{i}.npy" for name in INPUTS} for i in range(count)]
    for i, paths in enumerate(inputs):
        for name, path in paths.items():
            np.save(folder / path, feeds[name][i:i + 1])
    refs, executed = {}, {}
    for form in FORMS:
        extra = [] if form == "fp32" else [quantized(OUTPUT)]
        with tempfile.TemporaryDirectory() as tmp:
            optimized = Path(tmp) / "optimized.onnx"
            outs = ort_runner.run(folder / files[form], feeds, extra_outputs=extra, split_batch=True,
                                  optimized_model=optimized)
            executed[form] = op_counts(onnx.load(str(optimized)))
        (folder / REF_DIRS[form]).mkdir(parents=True, exist_ok=True)
        refs[form] = {"output": [f"{REF_DIRS[form]}/output_{i}.npy" for i in range(count)]}
        for i, path in enumerate(refs[form]["output"]):
            np.save(folder / path, outs[OUTPUT][i:i + 1])
        if extra:
            refs[form]["output_int8"] = [f"{REF_DIRS[form]}/output_{i}_int8.npy" for i in range(count)]
            for i, path in enumerate(refs[form]["output_int8"]):
                np.save(folder / path, outs[extra[0]][i:i + 1])
    graph = models["fp32"].graph
    (out,) = graph.output
    manifest = {
        "format_version": FORMAT_VERSION,
        "name": NAME,
        **info,
        "opset": OPSET,
        "activation_type": plan.act_type,
        "files": files,
        "sha256": {f: sha256_of(folder / f) for f in files.values()},
        "inputs": [_value_info(i) for i in graph.input],
        "output": {**_value_info(out), "quant": _quant_info(plan, out.name)},
        "op_types": {form: op_counts(models[form]) for form in FORMS},
        "ort_executed_op_types": executed,
        "reference": reference_info(inputs, refs),
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def build(folder, progress=print):
    """Writes the package into folder; returns its manifest."""
    folder = Path(folder)
    fp32_path = folder / f"{NAME}_fp32.onnx"
    fp32 = export(fp32_path)
    progress("exported float model")
    calib = random_inputs(CALIBRATION_SAMPLES, CALIBRATION_SEED)
    qdq, qop, plan = quantize(fp32, fp32_path, calib)
    progress(f"calibrated on {CALIBRATION_SAMPLES} inputs and quantized")
    info = {
        "description": (f"BERT-style encoder (models/systole_models/bert.py): {LAYERS} layers, hidden {HIDDEN}, "
                        f"{HEADS} heads, FFN {FFN}, vocabulary {VOCAB}, sequence {SEQ}; weights N(0, 0.02) after "
                        f"torch.manual_seed({SEED}); additive mask (1 - mask) * float32 lowest in the graph"),
        "producer": "torch.onnx (PyTorch 1.13)",
        "quantization": scheme(CALIBRATION_SAMPLES, f"token ids uniform in [0, {VOCAB}), numpy default_rng("
                                                    f"{CALIBRATION_SEED}); attention masks all 1"),
        "reference_inputs": (f"token ids uniform in [0, {VOCAB}), numpy default_rng({REFERENCE_SEED}); "
                             f"attention masks of {', '.join(map(str, REFERENCE_LENGTHS))} valid tokens"),
    }
    refs = random_inputs(len(REFERENCE_LENGTHS), REFERENCE_SEED, list(REFERENCE_LENGTHS))
    manifest = write_package(folder, {"fp32": fp32, "int8_qdq": qdq, "int8_qop": qop}, plan, refs, info)
    progress("wrote ORT references")
    return manifest
