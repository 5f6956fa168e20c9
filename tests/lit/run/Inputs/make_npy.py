# Writes a .npy for the lit tests: make_npy.py OUT DTYPE SHAPE(comma) START
import sys
import numpy as np
out, dtype, shape, start = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
dims = [int(d) for d in shape.split(",")]
n = int(np.prod(dims))
np.save(out, (np.arange(n) + start).astype(dtype).reshape(dims))
