#!/usr/bin/env python3
"""Megatron-LM's Table 1 (Narayanan et al., SC'21) through the plan simulator
(issue 18).

Each row's GPT (python/models/gpt_config.py: tied embeddings, sequence 2048,
vocabulary 51200) is compiled as a CUDA training plan with the row's tensor
parallelism (the inner mesh axis, inside an 8-GPU node), pipeline stages
(interleaved 1F1B, micro-batch size 1, as Megatron ran them) and data
parallelism, bf16 mixed precision, full activation recomputation and AdamW
(no ZeRO: Megatron all-reduced its gradients), then replayed on
clusters/a100-80gb-sxm.json (memory capacity raised: the table checks time,
not fit) with --simulate. The paper's iteration time follows from its FLOP
formula and achieved TFLOP/s per GPU:

  F = 96 B s l h^2 (1 + s / (6 h) + V / (16 l h)),  time = F / (GPUs * X)

Rows with more micro-batches than --max-microbatches are simulated at two
smaller counts M1 < M2 and extrapolated linearly in M (a 1F1B step is
(M + bubble) micro-batch times plus a fixed tail: the gradient all-reduce
and the update); --validate checks that model on a row that also runs in
full.

  /usr/bin/python3 bench/megatron_table1.py [--bin build/bin] [--rows 1,2]
        [--max-microbatches 16] [--validate ROW] [--write-docs]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from docs_block import write_block  # noqa: E402

MARKER_BEGIN = "<!-- megatron-table1: begin -->"
MARKER_END = "<!-- megatron-table1: end -->"

SEQ, VOCAB = 2048, 51200
# params, heads, hidden, layers, TP, PP, GPUs, global batch, TFLOP/s per GPU
TABLE1 = [
    ("1.7B", 24, 2304, 24, 1, 1, 32, 512, 137),
    ("3.6B", 32, 3072, 30, 2, 1, 64, 512, 138),
    ("7.5B", 32, 4096, 36, 4, 1, 128, 512, 142),
    ("18.4B", 48, 6144, 40, 8, 1, 256, 1024, 135),
    ("39.1B", 64, 8192, 48, 8, 2, 512, 1536, 138),
    ("76.1B", 80, 10240, 60, 8, 4, 1024, 1792, 140),
    ("145.6B", 96, 12288, 80, 8, 8, 1536, 2304, 148),
    ("310.1B", 128, 16384, 96, 8, 16, 1920, 2160, 155),
    ("529.6B", 128, 20480, 105, 8, 35, 2520, 2520, 163),
    ("1T", 160, 25600, 128, 8, 64, 3072, 3072, 163),
]


def paper_flops(batch, layers, hidden):
    return 96 * batch * SEQ * layers * hidden ** 2 * (
        1 + SEQ / (6 * hidden) + VOCAB / (16 * layers * hidden))


def compile_and_simulate(args, work, row, microbatches):
    """Simulated step seconds and compile seconds of `row` with
    `microbatches` micro-batches per data-parallel replica."""
    name, heads, hidden, layers, tp, pp, gpus, batch, _ = row
    dp = gpus // (tp * pp)
    # PP = 1: each replica's share of the batch in one micro-batch (the
    # products are as efficient; gradient accumulation only repeats them);
    # PP > 1: micro-batches of one sequence.
    per_micro = batch // dp if pp == 1 else 1
    model = os.path.join(work, f"gpt-{name}-{microbatches}.mlir")
    subprocess.run(
        [sys.executable, os.path.join(ROOT, "python", "models",
                                      "gpt_config.py"),
         "--layers", str(layers), "--hidden", str(hidden), "--heads",
         str(heads), "--seq", str(SEQ), "--vocab", str(VOCAB), "--batch",
         str(dp * per_micro * microbatches), "--tied-embeddings", "-o",
         model], check=True)
    mesh = f"{dp}x{tp}" if tp > 1 else f"{dp}"
    flags = [model, "--train", "--label=labels", "--optimizer=adamw",
             "--precision=bf16", "--recompute=full", "--zero=0",
             f"--device=cuda:sm_80", f"--mesh={mesh}",
             "--sbp-strategy=" + ("data,tensor" if tp > 1 else "data"),
             "--emit=plan", "-o", os.path.join(work, "plan"),
             f"--simulate={args.cluster_file}"]
    if microbatches > 1:
        flags.append(f"--microbatches={microbatches}")
    if pp > 1:
        chunks = virtual_stages(args, layers, pp)
        flags += [f"--stages={pp}"]
        flags += ["--schedule=interleaved", f"--virtual-stages={chunks}"] \
            if chunks > 1 else ["--schedule=1f1b"]
    sim = os.path.join(work, f"sim-{name}-{microbatches}.json")
    flags.append(f"--simulate-json={sim}")
    if args.trace:
        flags.append(f"--simulate-trace={sim[:-5]}.trace.json")
    start = time.time()
    run = subprocess.run([os.path.join(args.bin, "oneflow-opt")] + flags,
                         capture_output=True, text=True)
    seconds = time.time() - start
    if run.returncode != 0:
        raise RuntimeError(f"{name}: oneflow-opt failed:\n{run.stderr[-3000:]}")
    report = json.load(open(sim))
    return report, seconds


def virtual_stages(args, layers, pp):
    """The most chunks per stage, up to --virtual-stages, that split the
    layers evenly (1: plain 1F1B)."""
    chunks = args.virtual_stages
    while chunks > 1 and layers % (pp * chunks):
        chunks -= 1
    return chunks


def simulate_row(args, work, row):
    """(step seconds, how it was obtained, compile seconds, report)."""
    name, heads, hidden, layers, tp, pp, gpus, batch, _ = row
    dp = gpus // (tp * pp)
    full = 1 if pp == 1 else batch // dp
    if full <= args.max_microbatches:
        report, seconds = compile_and_simulate(args, work, row, full)
        return report["step_seconds"], f"{full} micro-batch(es)", seconds, \
            report
    # The interleaved schedule runs micro-batches in groups of PP.
    group = pp if virtual_stages(args, layers, pp) > 1 else 1
    m1 = group * -(-args.max_microbatches // 2 // group)
    m2 = max(group * -(-args.max_microbatches // group), m1 + group)
    r1, s1 = compile_and_simulate(args, work, row, m1)
    r2, s2 = compile_and_simulate(args, work, row, m2)
    slope = (r2["step_seconds"] - r1["step_seconds"]) / (m2 - m1)
    step = r2["step_seconds"] + slope * (full - m2)
    return step, f"{full} extrapolated from {m1} and {m2}", s1 + s2, r2


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--cluster",
                        default=os.path.join(ROOT, "clusters",
                                             "a100-80gb-sxm.json"))
    parser.add_argument("--rows", default="1,2,3,4",
                        help="1-based Table 1 rows (default: the PP=1 rows)")
    parser.add_argument("--max-microbatches", type=int, default=16)
    parser.add_argument("--virtual-stages", type=int, default=2)
    parser.add_argument("--validate", type=int, default=0,
                        help="a row to run both in full and extrapolated")
    parser.add_argument("--trace", action="store_true",
                        help="also write each replay's Chrome trace")
    parser.add_argument("--work", default="",
                        help="keep the models, plans and reports here")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()

    work = args.work or tempfile.mkdtemp(prefix="megatron-table1-")
    os.makedirs(work, exist_ok=True)
    cluster = json.load(open(args.cluster))
    cluster["device"]["memory_capacity"] *= 10000
    cluster["name"] += " (memory x10000)"
    args.cluster_file = os.path.join(work, "a100-relaxed.json")
    json.dump(cluster, open(args.cluster_file, "w"))

    results = []
    for index in [int(r) for r in args.rows.split(",") if r]:
        row = TABLE1[index - 1]
        name, heads, hidden, layers, tp, pp, gpus, batch, tflops = row
        flops = paper_flops(batch, layers, hidden)
        paper = flops / (gpus * tflops * 1e12)
        step, how, seconds, report = simulate_row(args, work, row)
        error = (step - paper) / paper
        results.append((row, paper, step, error, flops / (gpus * step) / 1e12,
                        how, seconds, report))
        print(f"{name}: paper {paper:.2f} s, simulated {step:.2f} s "
              f"({error:+.1%}), {how}, compile {seconds:.0f} s, "
              f"compute {report['compute_seconds']:.2f} s, exposed comm "
              f"{report['exposed_communication_seconds']:.2f} s, bubble "
              f"{report['bubble_seconds']:.2f} s", flush=True)

    validation = ""
    if args.validate:
        row = TABLE1[args.validate - 1]
        dp = row[6] // (row[4] * row[5])
        full = row[7] // dp
        saved = args.max_microbatches
        report, _ = compile_and_simulate(args, work, row, full)
        args.max_microbatches = max(2, full // 4)
        step, how, _, _ = simulate_row(args, work, row)
        args.max_microbatches = saved
        validation = (
            f"Extrapolation check ({row[0]}): {full} micro-batches simulated "
            f"{report['step_seconds']:.3f} s, {how}: {step:.3f} s "
            f"({(step - report['step_seconds']) / report['step_seconds']:+.2%}).")
        print(validation, flush=True)

    lines = [
        "Narayanan et al. (SC'21) Table 1 on the simulator, "
        f"{time.strftime('%Y-%m-%d')}: CUDA plans (bf16 products on "
        "cuBLASLt, full recomputation, AdamW without ZeRO) replayed on "
        "`clusters/a100-80gb-sxm.json` (memory capacity raised):",
        "",
        "| model | TP | PP | GPUs | batch | micro-batches | paper (s) | "
        "simulated (s) | error | simulated TFLOP/s per GPU (paper) | "
        "compile (s) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row, paper, step, error, achieved, how, seconds, _ in results:
        name, _, _, _, tp, pp, gpus, batch, tflops = row
        lines.append(f"| {name} | {tp} | {pp} | {gpus:,} | {batch:,} | {how} "
                     f"| {paper:.2f} | {step:.2f} | {error:+.1%} | "
                     f"{achieved:.0f} ({tflops}) | {seconds:.0f} |")
    if results:
        errors = [abs(r[3]) for r in results]
        lines += ["", f"Mean absolute error {sum(errors) / len(errors):.1%}, "
                  f"max {max(errors):.1%} over {len(errors)} row(s)."]
    if validation:
        lines += ["", validation]
    table = "\n".join(lines)
    print(table)
    if args.write_docs:
        write_block(MARKER_BEGIN, MARKER_END, table,
                    "## Megatron-LM's Table 1 on the simulator\n\n"
                    "`bench/megatron_table1.py`")


if __name__ == "__main__":
    main()
