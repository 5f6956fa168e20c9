"""Post-training static quantization of a float ONNX model into both int8 forms."""

from .calibrate import tensor_ranges
from .emit_qdq import emit_qdq
from .emit_qop import emit_qop
from .quant_plan import plan_quantization


def quantize(float_model, float_model_path, input_name, calibration_samples, act_type="int8"):
    """Returns (qdq_model, qop_model, plan). act_type: "int8" or "uint8" activations."""
    ranges = tensor_ranges(float_model_path, input_name, calibration_samples)
    plan = plan_quantization(float_model, ranges, act_type)
    return emit_qdq(plan, float_model), emit_qop(plan, float_model), plan


def scheme(calibration_samples, calibration_source, act_type="int8"):
    """The manifest's description of how the int8 models were made."""
    return {
        "tool": "models/systole_models (Systole's own post-training static quantizer)",
        "activations": f"{act_type}, per-tensor asymmetric, min/max calibration incl. 0; "
                       "Relu/Clip absorbed into the producer using the post-activation range",
        "weights": "int8, per-channel (Conv: axis 0; Gemm: N axis; MatMul: per tensor) symmetric [-127, 127], "
                   "zero point 0, scale = max|w| / 127",
        "float_ops": "ops without an integer form run in float between DequantizeLinear and QuantizeLinear",
        "bias": "int32, zero point 0, scale = input_scale * weight_scale[c]",
        "shared_params_ops": ["MaxPool", "Flatten", "Reshape"],
        "calibration_samples": int(calibration_samples),
        "calibration_source": calibration_source,
    }
