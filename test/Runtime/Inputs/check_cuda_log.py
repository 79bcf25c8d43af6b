#!/usr/bin/env python3
"""Checks what oneflow-run did with a CUDA plan, from the call log of the
stand-in CUDA libraries (ONEFLOW_CUDA_STANDIN_LOG) of a one-rank run:

- every launch passes as many arguments as its PTX entry has parameters
  (read from the plan's fatbin, where the PTX is stored uncompressed);
- kernels run on one stream, and that stream is synchronized by the host
  only at the end of each step (no round trip between kernels);
- host/device copies happen only for the weights, the inputs (one per input
  and step) and the outputs (one per output and step), on another stream,
  and every output copy first waits for an event recorded on the kernels'
  stream;
- every step launches the same kernels in the same order, and makes the
  same cuBLASLt products (shapes and epilogues), on the kernels' stream,
  none rejected.

Prints one summary line for FileCheck (with the products per step by
cuBLASLt epilogue); exits 1 with the reasons otherwise.
"""
import argparse
import collections
import re
import sys


def ptx_entries(fatbin):
    data = open(fatbin, "rb").read().decode("latin-1")
    entries = {}
    for match in re.finditer(r"\.entry\s+(\w+)\s*\(([^)]*)\)", data):
        entries[match.group(1)] = match.group(2).count(".param")
    return entries


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("log")
    parser.add_argument("--fatbin", required=True)
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--inputs", type=int, required=True)
    parser.add_argument("--outputs", type=int, required=True)
    args = parser.parse_args()

    entries = ptx_entries(args.fatbin)
    lines = [l.split() for l in open(args.log) if l.strip()]
    errors = []

    def fields(words):
        return dict(w.split("=", 1) for w in words[1:] if "=" in w)

    launches = [(fields(w), w) for w in lines if w[0] == "cuLaunchKernel"]
    for f, _ in launches:
        name, params = f["function"], int(f["params"])
        if name not in entries:
            errors.append(f"launch of {name}, which the fatbin lacks")
        elif entries[name] != params:
            errors.append(f"{name} passes {params} arguments, its PTX entry "
                          f"has {entries[name]}")
    kernel_streams = {f["stream"] for f, _ in launches}
    if len(kernel_streams) != 1:
        errors.append(f"kernels on streams {sorted(kernel_streams)}")
    compute = next(iter(kernel_streams)) if kernel_streams else None

    # Steps end where the host waits for the kernels' stream.
    per_step, current, syncs_in_run = [], [], 0
    products_per_step, products = [], []
    recorded_on = {}
    copies = {"HtoD": [], "DtoH": [], "DtoD": []}
    waits_since_sync = {}
    cross_waits = 0
    for w in lines:
        f = fields(w)
        if w[0] == "cuEventRecord":
            recorded_on[f["event"]] = f["stream"]
        elif w[0] == "cuStreamWaitEvent":
            if recorded_on.get(f["event"]) not in (None, f["stream"]):
                cross_waits += 1
                waits_since_sync.setdefault(f["stream"], set()).add(
                    recorded_on[f["event"]])
        elif w[0] == "cuLaunchKernel":
            current.append(f["function"])
        elif w[0] == "cublasLtMatmul":
            if "rejected" in w:
                errors.append("cuBLASLt rejected a product")
            elif f["stream"] != compute:
                errors.append(f"a product on stream {f['stream']}, not the "
                              f"kernels' stream")
            else:
                products.append(" ".join(
                    f"{key}={f[key]}" for key in
                    ("m", "n", "k", "transa", "transb", "batch", "epilogue",
                     "beta")))
        elif w[0] == "cuStreamSynchronize":
            if f["stream"] == compute and current:
                per_step.append(current)
                products_per_step.append(products)
                current, products = [], []
        elif w[0] == "cuMemcpyAsync":
            kind = w[1]
            copies[kind].append(f["stream"])
            if kind == "DtoH" and compute not in waits_since_sync.get(
                    f["stream"], set()):
                errors.append("an output copy does not wait for the kernels")
            if kind in ("HtoD", "DtoH") and f["stream"] == compute:
                errors.append(f"a {kind} copy on the kernels' stream")
    if current:
        per_step.append(current)
        products_per_step.append(products)
    if len(per_step) != args.steps:
        errors.append(f"the kernels' stream is synchronized {len(per_step)} "
                      f"times with kernels before it, expected once per step "
                      f"({args.steps})")
    elif any(step != per_step[0] for step in per_step):
        errors.append("the steps launch different kernels")
    elif any(step != products_per_step[0] for step in products_per_step):
        errors.append("the steps make different products")
    expected_htod = 1 + args.steps * args.inputs  # weights, then inputs
    if len(copies["HtoD"]) != expected_htod:
        errors.append(f"{len(copies['HtoD'])} host-to-device copies, "
                      f"expected {expected_htod}")
    if len(copies["DtoH"]) != args.steps * args.outputs:
        errors.append(f"{len(copies['DtoH'])} device-to-host copies, "
                      f"expected {args.steps * args.outputs}")
    if errors:
        print("\n".join(sorted(set(errors))), file=sys.stderr)
        return 1
    counts = collections.Counter(
        product.split("epilogue=")[1].split()[0]
        for product in products_per_step[0])
    epilogues = ", ".join(f"{name} {n}" for name, n in sorted(counts.items()))
    print(f"cuda log: {len(launches)} launches ({len(per_step[0])} per step) "
          f"on one stream, all matching their PTX entries; "
          f"{cross_waits} waits across streams; "
          f"copies: {len(copies['HtoD'])} to the device, "
          f"{len(copies['DtoH'])} to the host; "
          f"{len(products_per_step[0])} products per step ({epilogues})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
