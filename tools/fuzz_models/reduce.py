"""Delta debugging of a failing case to a small graph (issue 17).

Works on the ONNX graph itself, so it reduces any case, generated or not.
Greedy, smallest candidate first, a candidate kept when it still fails with
the same kind (harness.Result.kind: compile / run-<backend> /
mismatch-<backend> / cycles-*):

* nodes from the back: make one quantized tensor (a QuantizeLinear output)
  the only graph output (dequantized), dropping everything it does not need;
  or keep one of the original outputs;
* nodes from the front: feed a quantized tensor from a new float graph input
  (QuantizeLinear of it, same scale and zero point), dropping its producers;
* shapes: halve or decrement the spatial dimensions and the batch of each
  graph input (ORT checks the result still type-checks; constants keep
  channel counts).

The result is written as a case directory (model.onnx, input_*.npy,
ref_*.npy = ORT's outputs, case.json with the failure, hw.json).
"""

import copy
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from . import harness


def _inits(model):
    return {i.name: i for i in model.graph.initializer}


def prune(model, feeds):
    g = model.graph
    needed = {o.name for o in g.output}
    keep = []
    for n in reversed(list(g.node)):
        if any(o in needed for o in n.output):
            keep.append(n)
            needed.update(i for i in n.input if i)
    keep.reverse()
    del g.node[:]
    g.node.extend(keep)
    used = {i for n in keep for i in n.input} | {o.name for o in g.output}
    inits = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(inits)
    ins = [i for i in g.input if i.name in used]
    del g.input[:]
    g.input.extend(ins)
    return model, {k: v for k, v in feeds.items() if k in {i.name for i in ins}}


def _qparams(model, qnode):
    inits = _inits(model)
    s = float(numpy_helper.to_array(inits[qnode.input[1]]))
    zt = inits[qnode.input[2]]
    z = int(numpy_helper.to_array(zt))
    dtype = "int8" if zt.data_type == TensorProto.INT8 else "uint8"
    return s, z, dtype


def _shapes(model, feeds):
    m = copy.deepcopy(model)
    try:
        m = onnx.shape_inference.infer_shapes(m, strict_mode=True)
    except Exception:
        return None
    shapes = {}
    for vi in list(m.graph.value_info) + list(m.graph.output) + list(m.graph.input):
        dims = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        shapes[vi.name] = dims
    return shapes


def cut_output(model, feeds, info, qnode):
    m = copy.deepcopy(model)
    s, z, dtype = _qparams(m, qnode)
    out = qnode.output[0]
    old = {o.name: o for o in m.graph.output}
    # an original output's DequantizeLinear keeps its name (and its bound)
    for n in m.graph.node:
        if n.op_type == "DequantizeLinear" and n.input[0] == out and n.output[0] in old:
            del m.graph.output[:]
            m.graph.output.append(old[n.output[0]])
            i2 = dict(info, outputs={n.output[0]: info["outputs"][n.output[0]]})
            return prune(m, feeds) + (i2,)
    shapes = _shapes(m, feeds)
    if shapes is None or out not in shapes:
        return None
    sn, zn = "red_s", "red_z"
    m.graph.initializer.extend([numpy_helper.from_array(np.float32(s), sn),
                                numpy_helper.from_array(np.array(z, np.int8 if dtype == "int8" else np.uint8), zn)])
    m.graph.node.append(helper.make_node("DequantizeLinear", [out, sn, zn], ["output_r"], name="red_dq"))
    del m.graph.output[:]
    m.graph.output.append(helper.make_tensor_value_info("output_r", TensorProto.FLOAT, shapes[out]))
    i2 = dict(info, outputs={"output_r": {"scale": s, "zero_point": z, "dtype": dtype, "bounded": False}})
    return prune(m, feeds) + (i2,)


def cut_input(model, feeds, info, qnode, rng):
    m = copy.deepcopy(model)
    shapes = _shapes(m, feeds)
    src = qnode.input[0]
    if shapes is None or src not in shapes or src in {i.name for i in m.graph.input}:
        return None
    s, z, dtype = _qparams(m, qnode)
    shape = shapes[src]
    name = f"input_r{len(m.graph.input)}"
    for n in m.graph.node:
        if n.name == qnode.name:
            n.input[0] = name
    m.graph.input.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
    lo, hi = (-128, 127) if dtype == "int8" else (0, 255)
    q = rng.integers(lo - 8, hi + 9, shape)
    f2 = dict(feeds)
    f2[name] = (((q - z) + rng.uniform(-0.5, 0.5, shape)) * s).astype(np.float32)
    return prune(m, f2) + (info,)


def shrink_inputs(model, feeds, info):
    """Candidates with one graph input's dimension made smaller."""
    out = []
    for k, vi in enumerate(model.graph.input):
        dims = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        for axis, d in enumerate(dims):
            if axis == 1 and len(dims) == 4:
                continue        # channels are tied to the weights
            for nd in sorted({d // 2, d - 1}):
                if nd < 1 or nd == d:
                    continue
                m = copy.deepcopy(model)
                new = list(dims)
                new[axis] = nd
                t = m.graph.input[k].type.tensor_type
                t.shape.dim[axis].dim_value = nd
                f2 = dict(feeds)
                f2[vi.name] = np.ascontiguousarray(
                    np.take(feeds[vi.name], range(nd), axis=axis)).astype(feeds[vi.name].dtype)
                # outputs' declared shapes are recomputed by shape inference
                inferred = _shapes(_strip_output_shapes(m), f2)
                if inferred is None:
                    continue
                for o in m.graph.output:
                    if o.name not in inferred:
                        break
                    od = o.type.tensor_type.shape
                    del od.dim[:]
                    for v in inferred[o.name]:
                        od.dim.add().dim_value = v
                else:
                    out.append((m, f2, info))
    return out


def _strip_output_shapes(model):
    m = copy.deepcopy(model)
    for o in m.graph.output:
        o.type.tensor_type.ClearField("shape")
    return m


class Reducer:
    def __init__(self, case, res, systole, backend):
        self.rec, self.feeds, self.hw = harness.load_case(case)
        self.hw_path = Path(case) / "hw.json"
        self.model = onnx.load(Path(case) / "model.onnx")
        self.kind, self.systole, self.backend = res.kind, systole, backend
        self.tmp = Path(tempfile.mkdtemp(prefix="fuzz-reduce-"))
        self.tries = 0
        self.last = res

    def fails(self, model, feeds, info):
        self.tries += 1
        d = self.tmp / f"t{self.tries}"
        try:
            onnx.checker.check_model(model)
        except Exception:
            return False
        hw = json.loads(self.hw_path.read_text()) if self.hw_path.exists() else self.hw
        harness.save_case(d, model, feeds, info, hw)
        try:
            res = harness.check_case(d, self.systole, self.backend)
        except Exception:
            return False
        ok = res.status == "failed" and res.kind == self.kind
        if ok:
            self.last = res
        shutil.rmtree(d, ignore_errors=True)
        return ok

    def step(self, model, feeds, info, rng):
        qnodes = [n for n in model.graph.node if n.op_type == "QuantizeLinear"]
        cands = []
        for qn in qnodes:
            for c in (cut_output(model, feeds, info, qn), cut_input(model, feeds, info, qn, rng)):
                if c is not None and len(c[0].graph.node) < len(model.graph.node):
                    cands.append(c)
        cands.sort(key=lambda c: len(c[0].graph.node))
        for c in cands:
            if self.fails(*c):
                return c
        size = sum(int(np.prod(v.shape)) for v in feeds.values())
        for c in shrink_inputs(model, feeds, info):
            if sum(int(np.prod(v.shape)) for v in c[1].values()) < size and self.fails(*c):
                return c
        return None

    def run(self, max_steps=40):
        rng = np.random.default_rng(0)
        cur = (self.model, self.feeds, self.rec["info"])
        for _ in range(max_steps):
            nxt = self.step(*cur, rng)
            if nxt is None:
                break
            cur = nxt
        return cur


def reduce_case(case, res, systole, backend, dest):
    r = Reducer(case, res, systole, backend)
    model, feeds, info = r.run()
    dest = Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    hw = json.loads(r.hw_path.read_text()) if r.hw_path.exists() else r.hw
    info = {k: v for k, v in info.items() if k != "layers"}
    info["original_layers"] = r.rec["info"].get("layers", [])
    info = dict(info, failure={"kind": r.last.kind, "message": r.last.msg, "backend": backend,
                               "from": str(case), "reduction_runs": r.tries,
                               "nodes": len(model.graph.node)})
    harness.save_case(dest, model, feeds, info, hw)
    harness.ort_reference(dest, feeds)
    shutil.rmtree(r.tmp, ignore_errors=True)
    return dest
