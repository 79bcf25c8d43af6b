"""Numbers for scripts/gpu-check.sh.

  gpu_check.py flops CUDA.LOG STEPS
      FLOPs per step of a CUDA plan, from the stand-in libraries' call log
      (ONEFLOW_CUDA_STANDIN_LOG) of a STEPS-step run: 2*m*n*k*batch per
      cuBLASLt product, 2*N*K*OH*OW*(C/groups)*R*S per cuDNN convolution
      (forward and backward data; weight gradients are im2col kernels and
      cuBLASLt products, counted as products). Work of generated kernels
      (im2col, element-wise, reductions, norms, softmax) is not counted.
  gpu_check.py step-ms RUN.STDOUT METRICS.jsonl
      Median ms per step over steps 1.. (step 0 loads and plans): oneflow-
      run's mean ms/step spread over the steps by their samples/s.
  gpu_check.py gpu-ms TIMES.jsonl CALL
      Median over steps 1.. of the GPU time per step of the
      ONEFLOW_CUDA_GPU_TIMES records of CALL: "matmul" (the cuBLASLt
      products) or "kernel" (whole KERNEL firings: the GPU's busy time).
  gpu_check.py one-step TIMES.jsonl OUT
      The "matmul" records of one step (the last) for oneflow-cuda-gemm-bench.
  gpu_check.py bf16-data DIR
      Inputs a, b, p, q (.npy, f32 values that bf16 holds exactly) of
      test/Codegen/CUDA/Inputs/bf16-products.mlir.
  gpu_check.py bf16-compare DATA GPU CPU
      The bf16 products y = a b^T and z = p q of the CUDA plan's outputs
      (directory GPU, cuBLASLt bf16 GEMMs, f32 accumulation) against the
      exact products (float64): within half a bf16 unit plus f32 rounding
      of the sum; and against the CPU plan's (CPU, widened f32 GEMMs):
      within one bf16 unit. Prints the largest errors; exits 1 on a miss.
"""
import json
import re
import statistics
import sys


def fields(line):
    return dict(re.findall(r"(\w+)=([^\s,]+(?:,[^\s=]+)*)", line))


def dims(text):
    return [int(x) for x in text.split(",")]


def flops(args):
    log, steps = args[0], int(args[1])
    total = 0.0
    for line in open(log):
        word = line.split(" ", 1)[0]
        if word == "cublasLtMatmul" and "rejected" not in line:
            f = fields(line)
            total += 2.0 * int(f["m"]) * int(f["n"]) * int(f["k"]) * int(f.get("batch", 1))
        elif word.startswith("cudnnConvolution"):
            f = fields(line)
            x, w, y = dims(f["x"]), dims(f["w"]), dims(f["y"])
            groups = int(f.get("groups", 1))
            # x = N,C,H,W  w = K,C/groups,R,S  y = N,K,OH,OW (same for the
            # backward data pass, which does the forward's work).
            conv = 2.0 * y[0] * y[1] * y[2] * y[3] * (x[1] // groups) * w[2] * w[3]
            total += conv
    print(f"{total / steps:.0f}")


def step_ms(args):
    out, metrics = args
    text = open(out).read()
    match = re.search(r"ran (\d+) steps? in [\d.]+ ms: ([\d.]+) ms/step", text)
    if not match:
        sys.exit(f"error: no 'ran N steps' line in {out}")
    mean = float(match.group(2))
    rates = [json.loads(line)["samples_per_s"] for line in open(metrics) if line.strip()]
    inverse = [1.0 / r for r in rates]
    scale = mean / (sum(inverse) / len(inverse))
    per_step = [x * scale for x in inverse]
    steady = per_step[1:] or per_step
    print(f"{statistics.median(steady):.4f}")


def records(path, call):
    for line in open(path):
        if line.strip():
            record = json.loads(line)
            if record["call"] == call:
                yield record


def gpu_ms(args):
    per_step = {}
    for r in records(args[0], args[1]):
        per_step[r["step"]] = per_step.get(r["step"], 0.0) + r["gpu_ms"]
    if not per_step:
        sys.exit(f"error: no {args[1]} records in {args[0]}")
    steps = sorted(per_step)
    steady = [per_step[s] for s in steps[1:]] or [per_step[steps[0]]]
    print(f"{statistics.median(steady):.4f}")


def one_step(args):
    matmuls = list(records(args[0], "matmul"))
    if not matmuls:
        sys.exit(f"error: no cuBLASLt products in {args[0]}")
    last = max(r["step"] for r in matmuls)
    with open(args[1], "w") as out:
        for r in matmuls:
            if r["step"] == last:
                out.write(r["shape"] + "\n")


def to_bf16(x):
    """float32 values rounded to bf16 (nearest even), as float32."""
    import numpy as np
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


def bf16_data(args):
    import numpy as np
    rng = np.random.default_rng(7)
    shapes = {"a": (64, 256), "b": (96, 256), "p": (4, 32, 64),
              "q": (4, 64, 48)}
    for name, shape in shapes.items():
        np.save(f"{args[0]}/{name}.npy",
                to_bf16(rng.standard_normal(shape).astype(np.float32)))


def bf16_compare(args):
    import numpy as np
    data, gpu, cpu = args
    x = {n: np.load(f"{data}/{n}.npy").astype(np.float64) for n in "abpq"}
    exact = {"y": (x["a"] @ x["b"].T, np.abs(x["a"]) @ np.abs(x["b"]).T),
             "z": (x["p"] @ x["q"], np.abs(x["p"]) @ np.abs(x["q"]))}
    ok = True
    for name, (ref, magnitude) in exact.items():
        g = np.load(f"{gpu}/{name}.npy").astype(np.float64)
        c = np.load(f"{cpu}/{name}.npy").astype(np.float64)
        # Half a bf16 unit of the result, plus f32 sums' rounding.
        tol = 2.0 ** -8 * np.abs(ref) + 2.0 ** -20 * magnitude
        exact_err = np.max(np.abs(g - ref) - tol)
        unit = 2.0 ** -7 * np.maximum(np.abs(g), np.abs(c)) + 1e-30
        cpu_units = np.max(np.abs(g - c) / unit)
        good = exact_err <= 0 and cpu_units <= 1
        ok &= good
        print(f"bf16 {name}: max |gpu - exact| - tolerance {exact_err:.3g}, "
              f"max |gpu - cpu| {cpu_units:.2f} bf16 units: "
              f"{'ok' if good else 'MISMATCH'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    commands = {"flops": flops, "step-ms": step_ms, "gpu-ms": gpu_ms,
                "one-step": one_step, "bf16-data": bf16_data,
                "bf16-compare": bf16_compare}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    commands[sys.argv[1]](sys.argv[2:])
