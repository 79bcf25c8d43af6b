"""Writes the data files the oneflow-run tests use into DIR.

weights.bin (f32 [-1, 3]: the scale 3 at offset 4), x.npy (f32 [1, 2, 3, 4]),
the same as an ONNX TensorProto (x.pb), and inputs that are wrong in one way
each.
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

out = sys.argv[1]
np.array([-1, 3], dtype=np.float32).tofile(f"{out}/weights.bin")
x = np.array([1, 2, 3, 4], dtype=np.float32)
np.save(f"{out}/x.npy", x)
with open(f"{out}/x.pb", "wb") as f:
    f.write(numpy_helper.from_array(x, "x").SerializeToString())
# A TensorProto with its values in float_data instead of raw_data.
typed = onnx.TensorProto(data_type=onnx.TensorProto.FLOAT, dims=[4])
typed.float_data.extend([1, 2, 3, 4])
with open(f"{out}/x_typed.pb", "wb") as f:
    f.write(typed.SerializeToString())
# bf16 [1.5, -3]: one 16-bit pattern per int32_data entry.
bf16 = onnx.TensorProto(data_type=onnx.TensorProto.BFLOAT16, dims=[2])
bf16.int32_data.extend([0x3FC0, 0xC040])
with open(f"{out}/b.pb", "wb") as f:
    f.write(bf16.SerializeToString())

np.save(f"{out}/x3.npy", np.zeros(3, np.float32))
np.save(f"{out}/x_f64.npy", np.zeros(4, np.float64))
np.save(f"{out}/x_2d.npy", np.zeros((2, 2), np.float32))
np.save(f"{out}/fortran.npy", np.asfortranarray(np.zeros((2, 2), np.float32)))
with open(f"{out}/x.npy", "rb") as f:
    data = f.read()
with open(f"{out}/truncated.npy", "wb") as f:
    f.write(data[:-3])
with open(f"{out}/bad.npy", "wb") as f:
    f.write(b"PK\x03\x04 a zip file, not .npy")
with open(f"{out}/x.txt", "w") as f:
    f.write("1 2 3 4\n")
