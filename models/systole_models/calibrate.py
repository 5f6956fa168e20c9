"""Min/max calibration of every float tensor, run through the ORT reference.

Ranges are taken over all calibration samples together (ORT's MinMaxCalibrater
without moving average). The float model runs with every intermediate exposed
as an output (ort_run.js --all-outputs), one sample per ORT run.
"""

import numpy as np

from . import ort_runner


def tensor_ranges(float_model_path, input_name, samples):
    """samples: array [N, ...] of batch-1 inputs. Returns {tensor: (min, max)} incl. the input."""
    outputs = ort_runner.run(float_model_path, {input_name: samples}, all_outputs=True, split_batch=True)
    outputs[input_name] = samples
    return {name: (np.float32(a.min()), np.float32(a.max()))
            for name, a in outputs.items() if a.dtype == np.float32 and a.size}
