"""The Python package against ONNX Runtime's references and the CLI's
figures: compile, run (functional and cycle), save/load, reports, presets,
HwConfig, sweep, and errors as systole.Error with the compiler's message."""
import json
import os

import numpy as np
import pytest

import systole


def test_presets_and_hwconfig_round_trip(tmp_path):
    presets = systole.presets()
    assert "default-32x32" in presets and "edge-16x16" in presets
    cfg = presets["default-32x32"]
    assert (cfg["array"]["rows"], cfg["array"]["cols"]) == (32, 32)
    assert systole.HwConfig.preset("default-32x32") == cfg
    # JSON text and file round trips give the same validated config.
    assert systole.HwConfig.from_json(cfg.to_json()) == cfg
    path = tmp_path / "hw.json"
    cfg.save(str(path))
    assert systole.HwConfig.from_json(str(path)) == cfg
    d = cfg.to_dict()
    d["array"]["rows"] = 16
    assert systole.HwConfig(d)["array"]["rows"] == 16
    assert cfg["array"]["rows"] == 32  # to_dict is a copy


def test_bad_hwconfig_names_the_field():
    d = systole.presets()["default-32x32"].to_dict()
    del d["array"]["rows"]
    with pytest.raises(systole.Error, match=r"array\.rows"):
        systole.HwConfig(d)
    with pytest.raises(systole.Error, match="no-such-preset"):
        systole.compile("unused.onnx", hw="no-such-preset")


def test_compile_report(digits_program):
    rep = digits_program.report
    assert rep["hw"] == "default-32x32"
    assert rep["predicted_cycles"] == sum(l["predicted_cycles"]
                                          for l in rep["layers"]) > 0
    assert any(l["op"] for l in rep["layers"])
    ins, outs = digits_program.inputs, digits_program.outputs
    assert [(i["name"], i["dtype"], i["shape"]) for i in ins] == \
        [("input", "float32", [1, 1, 8, 8])]
    assert [(o["name"], o["dtype"], o["shape"]) for o in outs] == \
        [("output", "float32", [1, 10])]
    assert digits_program.hw == systole.presets()["default-32x32"]
    # Placement as the CLI reports it: digits' MACs by hand, conv 1x16x3x3
    # on 8x8 (9216), conv 16x16x3x3 on 4x4 after the pool (36864), conv
    # 16x32x3x3 stride 2 on 2x2 (18432), FC 128x10 (1280), all on the NPU.
    place = rep["placement"]
    assert (place["npu_macs"], place["host_macs"]) == (65792, 0)
    assert place["npu_mac_percent"] == 100


@pytest.mark.parametrize("backend", ["functional", "cycle"])
def test_run_is_bit_exact_with_ort(digits_program, digits_inputs, digits_refs,
                                   backend):
    for x, ref in zip(digits_inputs, digits_refs):
        res = systole.run(digits_program, {"input": x}, backend=backend)
        out = res.outputs["output"]
        assert out.dtype == np.float32 and out.shape == (1, 10)
        assert np.array_equal(out, ref), (out, ref)


def test_run_statistics(digits_program, digits_inputs):
    res = digits_program.run({"input": digits_inputs[0]}, backend="cycle")
    assert res.stats["total_cycles"] == res.cycles > 0
    assert res.energy["total"] > 0
    assert res.energy["total"] == pytest.approx(
        sum(v for k, v in res.energy.items() if k != "total"))
    assert res.roofline["bound"] in ("compute", "memory")
    assert 0 < res.roofline["bound_cycles"] <= res.cycles
    # The cycle model and the estimate agree (docs/sweep.md).
    est = digits_program.analyze("estimate")
    assert est["total_cycles"] == res.cycles
    assert est["backend"] == "estimate"


def test_save_load(digits_program, digits_inputs, tmp_path):
    path = str(tmp_path / "d.npu")
    digits_program.save(path)
    loaded = systole.load(path)
    assert loaded.to_bytes() == digits_program.to_bytes()
    assert loaded.report is None
    x = digits_inputs[1]
    a = digits_program.run({"input": x}, backend="functional").outputs
    b = systole.run(path, x, backend="functional").outputs  # bare array
    assert np.array_equal(a["output"], b["output"])
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[4:8] = b"XXXX"  # the FlatBuffers file identifier
    with pytest.raises(systole.Error):
        systole.Program.from_bytes(bytes(data))


def test_input_errors(digits_program, digits_inputs):
    with pytest.raises(systole.Error, match="input"):
        digits_program.run({"input": digits_inputs[0].astype(np.float64)})
    with pytest.raises(systole.Error, match="'input'.*not given"):
        digits_program.run({}, backend="functional")
    with pytest.raises(systole.Error, match="backend 'fast'"):
        digits_program.run({"input": digits_inputs[0]}, backend="fast")


def test_unsupported_op_raises_the_importers_message(tmp_path):
    import onnx
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Det", ["x"], ["y"], name="the_det")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = str(tmp_path / "det.onnx")
    onnx.save(model, path)
    with pytest.raises(systole.Error) as e:
        systole.compile(path)
    assert "Det" in str(e.value) and "det.onnx" in str(e.value)


def test_compile_options(digits_qdq, digits_inputs):
    with pytest.raises(TypeError, match="no_such_option"):
        systole.compile(digits_qdq, no_such_option=1)
    batch = np.concatenate(digits_inputs)
    prog = systole.compile(digits_qdq, hw=systole.HwConfig.preset("edge-16x16"),
                           input_shapes={"input": [3, 1, 8, 8]},
                           reuse_dram=False)
    assert prog.hw.name == "edge-16x16"
    res = prog.run({"input": batch}, backend="functional", dump_tensors=True)
    assert res.outputs["output"].shape == (3, 10)
    # With reuse_dram=False every tensor of the binary is readable.
    names = {t["name"] for t in prog.tensors if t["kind"] != "constant"}
    assert names == set(res.tensors) and len(names) > 2
    assert np.array_equal(res.tensors["output"], res.outputs["output"])


def test_sweep_rows_match_a_python_compile(digits_qdq, tmp_path):
    out = str(tmp_path / "sweep")
    rows = systole.sweep(digits_qdq, arrays=["8x8", (16, 16)],
                         srams=["64K"], dram_bw=[8], mode="estimate",
                         out=out, jobs=2)
    assert [(r["rows"], r["cols"]) for r in rows] == [(8, 8), (16, 16)]
    assert all(r["status"] == "ok" and r["cycles"] > 0 for r in rows), rows
    assert rows[0]["cycles"] > rows[1]["cycles"]
    # Point 1 compiled here for its config: the same cycles as the worker's.
    cfg = systole.HwConfig.from_json(os.path.join(out, "points",
                                                  "0001.hw.json"))
    est = systole.compile(digits_qdq, hw=cfg).analyze("estimate")
    assert est["total_cycles"] == rows[1]["cycles"]
    assert os.path.exists(os.path.join(out, "sweep.csv"))


def test_infeasible_config_raises_the_planners_message(digits_qdq):
    d = systole.presets()["tiny-4x4"].to_dict()
    d["sram"].update(scratchpad_bytes=1024, accumulator_bytes=64,
                     accumulator_banks=1)
    with pytest.raises(systole.Error) as e:
        systole.compile(digits_qdq, hw=d)
    msg = str(e.value)
    assert "no tiling fits the hardware config 'tiny-4x4'" in msg
    assert "/conv1/Conv" in msg and "see current operation" not in msg


def test_rtl_backend_equals_systemc(digits_qdq, digits_inputs, digits_refs):
    prog = systole.compile(digits_qdq, hw="rtl-8x8")
    rtl = prog.run(digits_inputs[2], backend="rtl")
    cyc = prog.run(digits_inputs[2], backend="cycle")
    assert np.array_equal(rtl.outputs["output"], digits_refs[2])
    assert rtl.cycles == cyc.cycles > 0
    with pytest.raises(systole.Error, match="no Verilated RTL"):
        systole.compile(digits_qdq).run(digits_inputs[0], backend="rtl")
