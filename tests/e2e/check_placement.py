"""Checks the placement summary of the compile report against the ONNX graph.

usage: check_placement.py SYSTOLE MODEL_DIR WORKDIR [--forms qdq,qop]
           [--hw default-32x32] [--min-npu-mac-percent P] [--json OUT.json]

For each form of the model (MODEL_DIR/*_int8_<form>.onnx, models/build_models.py):
compiles it with `systole compile --report`, then
  * recounts the MACs of every Conv/ConvTranspose/MatMul/Gemm/Einsum node
    (and their integer/QLinear forms) from the ONNX graph with ONNX shape
    inference, independently of the compiler, and requires the report's
    total, and each node's count (matched by ONNX node name), to equal it;
  * requires the figures of the printed "placement:" line to be the JSON's
    (ops and MACs on each side, shares rounded as printed) and one printed
    "host op" line per host op of the JSON;
  * requires `systole report` on the .npu to print the same placement lines;
  * with --min-npu-mac-percent, requires the NPU's share of the MACs to be at
    least P.
Prints one line per form with the figures; exits 1 on any failure.
"""
import argparse
import glob
import json
import os
import re
import sys

import numpy as np
import onnx
import onnx.numpy_helper

from check_zoo_model import run  # a missing systole is a failed result, not a crash
from onnx import shape_inference

PLACEMENT_LINE = re.compile(
    r"^placement: NPU (\d+) ops \(([\d.]+)%\) / (\d+) MACs \(([\d.]+)%\), "
    r"host (\d+) ops \(([\d.]+)%\) / (\d+) MACs \(([\d.]+)%\)$")
# ONNX ops with multiply-accumulates; the value is the index of the weight (or
# second operand) input, None where only the first input and output matter.
MAC_OPS = {"Conv": 1, "ConvInteger": 1, "QLinearConv": 3, "ConvTranspose": 1,
           "MatMul": 0, "MatMulInteger": 0, "QLinearMatMul": 0, "Gemm": 0, "Einsum": None}
UNCOUNTED_OPS = {"RNN", "GRU", "LSTM"}


def fixed_inputs(model):
    """Symbolic input dimensions set to 1, as the compiler defaults them."""
    for i in model.graph.input:
        for d in i.type.tensor_type.shape.dim:
            if d.HasField("dim_param") or d.dim_value <= 0:
                d.Clear()
                d.dim_value = 1
    return model


def shapes_of(model):
    shapes = {}
    for vi in list(model.graph.input) + list(model.graph.value_info) + list(model.graph.output):
        t = vi.type.tensor_type
        if t.HasField("shape") and all(d.HasField("dim_value") for d in t.shape.dim):
            shapes[vi.name] = [d.dim_value for d in t.shape.dim]
    for init in model.graph.initializer:
        shapes[init.name] = list(init.dims)
    for node in model.graph.node:
        if node.op_type == "Constant":
            for a in node.attribute:
                if a.name == "value":
                    shapes[node.output[0]] = list(a.t.dims)
    return shapes


def shape_values(model, shapes):
    """{name: int array} for the integer tensors computed from shapes and
    constants (Shape -> Gather/Slice -> Concat -> Resize sizes, ...), which
    ONNX 1.12's data propagation does not always carry through."""
    values = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer
              if i.data_type in (onnx.TensorProto.INT64, onnx.TensorProto.INT32)}
    for node in model.graph.node:
        ins = [values.get(i) if i else None for i in node.input]
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        op, out = node.op_type, None
        try:
            if op == "Constant" and "value" in attrs:
                out = onnx.numpy_helper.to_array(attrs["value"])
            elif op == "Shape" and node.input[0] in shapes:
                out = np.array(shapes[node.input[0]], np.int64)[attrs.get("start", 0):attrs.get("end")]
            elif any(v is None for v in ins[:1]):
                out = None
            elif op == "Gather" and ins[1] is not None:
                out = np.take(ins[0], ins[1], axis=attrs.get("axis", 0))
            elif op == "Slice" and all(v is not None for v in ins[1:3]):
                axes = ins[3] if len(ins) > 3 and ins[3] is not None else range(len(ins[1]))
                steps = ins[4] if len(ins) > 4 and ins[4] is not None else [1] * len(ins[1])
                idx = [slice(None)] * ins[0].ndim
                for a, b, e, st in zip(axes, ins[1], ins[2], steps):
                    idx[a] = slice(int(b), int(e), int(st))
                out = ins[0][tuple(idx)]
            elif op == "Concat" and all(v is not None for v in ins):
                out = np.concatenate(ins, axis=attrs["axis"])
            elif op in ("Cast", "Identity"):
                out = ins[0]
            elif op == "Unsqueeze" and (len(ins) > 1 or "axes" in attrs):
                out = np.expand_dims(ins[0], tuple(ins[1] if len(ins) > 1 else attrs["axes"]))
            elif op == "Squeeze":
                out = np.squeeze(ins[0])
            elif op in ("Mul", "Add", "Sub", "Div") and ins[1] is not None:
                f = {"Mul": np.multiply, "Add": np.add, "Sub": np.subtract, "Div": np.floor_divide}[op]
                out = f(ins[0], ins[1])
        except (ValueError, IndexError, KeyError, TypeError):
            out = None
        if out is not None and np.asarray(out).dtype.kind in "iu":
            values[node.output[0]] = np.asarray(out).astype(np.int64)
    return values


# Integer operands that decide an op's output shape.
SHAPE_OPERANDS = {"Resize": [3], "Reshape": [1], "Expand": [1], "Slice": [1, 2, 3, 4], "Tile": [1],
                  "Pad": [1], "ConstantOfShape": [0], "Split": [1], "Squeeze": [1], "Unsqueeze": [1]}


def infer(model):
    """Shape inference, then the Resize/Reshape/Expand shape operands it
    could not evaluate made constants, until nothing changes."""
    for _ in range(8):
        model = shape_inference.infer_shapes(model, data_prop=True)
        shapes = shapes_of(model)
        values = shape_values(model, shapes)
        known = {i.name for i in model.graph.initializer}
        folded = False
        for node in list(model.graph.node):
            operands = SHAPE_OPERANDS.get(node.op_type, [])
            if node.output[0] in shapes:
                continue
            for name in [node.input[i] for i in operands if i < len(node.input)]:
                if name and name not in known and name in values:
                    for producer in [n for n in model.graph.node if name in n.output]:
                        model.graph.node.remove(producer)
                    model.graph.initializer.append(onnx.numpy_helper.from_array(values[name], name))
                    known.add(name)
                    folded = True
        if not folded:
            return model, shapes
    return model, shapes


def onnx_macs(path):
    """{node name: MACs} for the MAC-doing nodes of the model, from shapes alone."""
    model, shapes = infer(fixed_inputs(onnx.load(path)))
    macs, uncounted = {}, []

    def shape(name, node):
        if name not in shapes:
            raise RuntimeError(f"{path}: node '{node.name}' ({node.op_type}): "
                               f"shape inference gives no static shape for '{name}'")
        return shapes[name]

    for node in model.graph.node:
        op = node.op_type
        if op in UNCOUNTED_OPS:
            uncounted.append(node.name)
            continue
        if op not in MAC_OPS:
            continue
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        out = int(np.prod(shape(node.output[0], node)))
        if op in ("Conv", "ConvInteger", "QLinearConv"):
            w = shape(node.input[MAC_OPS[op]], node)
            n = out * int(np.prod(w[1:]))           # W: [M, C/group, kH, kW]
        elif op == "ConvTranspose":
            x, w = shape(node.input[0], node), shape(node.input[1], node)
            n = int(np.prod(x)) * int(np.prod(w[1:]))  # W: [C, M/group, kH, kW]
        elif op == "Gemm":
            a = shape(node.input[0], node)
            n = out * (a[0] if attrs.get("transA", 0) else a[1])
        elif op == "Einsum":
            lhs = attrs["equation"].decode().replace(" ", "").split("->")[0].split(",")
            sizes = {}
            for term, name in zip(lhs, node.input):
                for letter, d in zip(term, shape(name, node)):
                    sizes[letter] = max(sizes.get(letter, 1), d)
            n = int(np.prod(list(sizes.values())))
        else:  # MatMul and its integer forms: output elements x K
            n = out * shape(node.input[0], node)[-1]
        macs[node.name] = n
    return macs, uncounted


def placement_lines(stdout):
    lines = stdout.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("placement: "):
            hosts = [l for l in lines[i + 1:] if l.startswith("  host op ")]
            return line, hosts
    return None, []


def check_form(args, model_path, work, reference):
    """(ok, messages, figures) for one ONNX file; `reference` is the QDQ
    file the independent count reads (ONNX shape inference stops at the
    com.microsoft ops of the QOperator form: its count is the QDQ form's, the
    same network, compared in total)."""
    errors = []
    npu = os.path.join(work, "model.npu")
    report = os.path.join(work, "report.json")
    r = run([args.systole, "compile", model_path, "-o", npu, "--hw", args.hw, "--report", report])
    if r.returncode != 0:
        return False, [f"compile failed ({r.returncode}): {r.stderr.strip()[-2000:]}"], {}
    with open(report) as f:
        p = json.load(f).get("placement")
    if p is None:
        return False, ["the --report JSON has no 'placement' object"], {}
    line, hosts = placement_lines(r.stdout)
    m = PLACEMENT_LINE.match(line or "")
    if not m:
        return False, [f"no placement line in the compile report (got {line!r})"], {}
    npu_ops, npu_op_pc, npu_macs, npu_mac_pc, host_ops, host_op_pc, host_macs, host_mac_pc = m.groups()
    all_ops, all_macs = p["npu_ops"] + p["host_ops"], p["npu_macs"] + p["host_macs"]
    expect = [(int(npu_ops), p["npu_ops"], "NPU ops"), (int(host_ops), p["host_ops"], "host ops"),
              (int(npu_macs), p["npu_macs"], "NPU MACs"), (int(host_macs), p["host_macs"], "host MACs"),
              (len(p["ops"]), all_ops, "ops listed")]
    for printed, want, what in expect:
        if printed != want:
            errors.append(f"{what}: printed {printed}, JSON {want}")
    share = 100.0 * p["npu_macs"] / all_macs if all_macs else 0.0
    for printed, want, digits, what in [(npu_mac_pc, share, 2, "NPU MAC %"),
                                        (host_mac_pc, 100.0 - share if all_macs else 0.0, 2, "host MAC %"),
                                        (npu_op_pc, 100.0 * p["npu_ops"] / all_ops if all_ops else 0, 1, "NPU op %"),
                                        (host_op_pc, 100.0 * p["host_ops"] / all_ops if all_ops else 0, 1, "host op %")]:
        if printed != f"{want:.{digits}f}":
            errors.append(f"{what}: printed {printed}, recomputed {want:.{digits}f}")
    host_list = [o for o in p["ops"] if o["placement"] == "host"]
    if len(hosts) != len(host_list):
        errors.append(f"{len(hosts)} 'host op' lines for {len(host_list)} host ops")
    else:
        for text, o in zip(hosts, host_list):
            if (o["name"] or "(unnamed)") not in text or f" {o['macs']} MACs" not in text:
                errors.append(f"host op line {text.strip()!r} does not name {o['name']} / {o['macs']} MACs")
    # Independent count.
    want, uncounted = onnx_macs(reference)
    got = {}
    for o in p["ops"]:
        got[o["name"]] = got.get(o["name"], 0) + o["macs"]
    if sum(want.values()) != all_macs:
        errors.append(f"total MACs: report {all_macs}, ONNX graph ({os.path.basename(reference)}) "
                      f"{sum(want.values())}")
        for name in sorted(set(want) | {n for n, v in got.items() if v}) if reference == model_path else []:
            if want.get(name, 0) != got.get(name, 0):
                errors.append(f"  {name}: report {got.get(name, 0)}, ONNX {want.get(name, 0)}")
    if uncounted:
        errors.append(f"recurrent nodes not counted by this check: {uncounted}")
    if args.min_npu_mac_percent is not None and share < args.min_npu_mac_percent:
        errors.append(f"NPU MAC share {share:.2f}% < {args.min_npu_mac_percent}%")
    # `systole report` on the binary prints the same summary.
    rr = run([args.systole, "report", npu])
    if rr.returncode != 0:
        errors.append(f"systole report failed ({rr.returncode}): {rr.stderr.strip()[-500:]}")
    elif placement_lines(rr.stdout) != (line, hosts):
        errors.append("systole report prints a different placement summary than systole compile")
    figures = {"npu_ops": p["npu_ops"], "host_ops": p["host_ops"], "npu_macs": p["npu_macs"],
               "host_macs": p["host_macs"], "npu_mac_percent": share, "placement_line": line,
               "host_ops_with_macs": [(o["name"], o["op"], o["macs"], o.get("reason", ""))
                                      for o in host_list if o["macs"]]}
    return not errors, errors, figures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("systole")
    ap.add_argument("model_dir")
    ap.add_argument("workdir")
    ap.add_argument("--forms", default="qdq,qop")
    ap.add_argument("--hw", default="default-32x32")
    ap.add_argument("--min-npu-mac-percent", type=float)
    ap.add_argument("--json")
    args = ap.parse_args()
    name = os.path.basename(os.path.normpath(args.model_dir))
    ok, results = True, {}
    qdq = sorted(glob.glob(os.path.join(args.model_dir, "*_int8_qdq.onnx")))
    for form in args.forms.split(","):
        found = sorted(glob.glob(os.path.join(args.model_dir, f"*_int8_{form}.onnx")))
        if not found:
            print(f"FAIL {name} {form}: no *_int8_{form}.onnx in {args.model_dir} "
                  f"(models/build_models.py --out DIR --only {name})")
            ok = False
            continue
        work = os.path.join(args.workdir, form)
        os.makedirs(work, exist_ok=True)
        try:
            if not qdq:
                raise RuntimeError(f"no *_int8_qdq.onnx in {args.model_dir} for the independent count")
            good, errors, figures = check_form(args, found[0], work, qdq[0])
        except Exception as e:  # a model the check cannot read is a failure, with the reason
            good, errors, figures = False, [f"{type(e).__name__}: {e}"], {}
        ok &= good
        results[form] = figures
        print(f"{'ok  ' if good else 'FAIL'} {name} {form} {args.hw}: {figures.get('placement_line', '')}")
        for e in errors:
            print(f"     {e}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
