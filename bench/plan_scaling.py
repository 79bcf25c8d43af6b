#!/usr/bin/env python3
"""Plan size and compile cost against the rank count (issue 17, one
program per rank role). Compiles the AdamW training step of the 8-layer
GPT-style decoder (d=32, 4 heads, seq 16, vocab 128, batch 64, exported by
PyTorch) for data-parallel meshes of 1 to 1,024 ranks, with shared programs
(the default) and with one program per rank (`--share-programs=false`,
up to 64 ranks), then GPT-3 175B from `python/models/gpt_config.py` on the
3-D layout of 1,024 ranks (`--mesh=16x8 --sbp-strategy=data,tensor
--stages=8`). Prints and writes to docs/benchmarks.md: compile seconds,
peak memory of the compiler, plan.pb bytes, programs in the plan.

  /usr/bin/python3 bench/plan_scaling.py --bin build/bin
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python", "models"))
import gpt as gpt_model  # noqa: E402
from docs_block import write_block  # noqa: E402

MARKER_BEGIN = "<!-- plan-scaling: begin -->"
MARKER_END = "<!-- plan-scaling: end -->"
VOCAB, SEQ, D_MODEL, HEADS, LAYERS, BATCH = 128, 16, 32, 4, 8, 64


def compile_plan(bin_dir, model, plan, args):
    """(seconds, peak MiB, plan.pb bytes, programs, summary) of one compile;
    seconds is oneflow-opt's own total from its `time:` line."""
    run = subprocess.run(
        ["/usr/bin/time", "-f", "maxrss %M",
         os.path.join(bin_dir, "oneflow-opt"), model, "--train"] + args +
        ["--optimizer=adamw", "--emit=plan", "-o", plan],
        capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"oneflow-opt {' '.join(args)} failed:\n"
                           f"{run.stderr[-3000:]}")
    total = re.search(r"time: .*; total ([0-9.]+) s", run.stderr)
    rss = re.search(r"maxrss (\d+)", run.stderr)
    programs = re.search(r"programs: (\d+) shared by", run.stderr)
    ranks = re.search(r"kernels: \d+ over (\d+) rank", run.stderr)
    return (float(total.group(1)), int(rss.group(1)) / 1024,
            os.path.getsize(os.path.join(plan, "plan.pb")),
            int(programs.group(1)) if programs else int(ranks.group(1)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--meshes", default="1,2,8,64,1024")
    parser.add_argument("--unshared-up-to", type=int, default=64)
    parser.add_argument("--no-gpt3", action="store_true")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    torch.manual_seed(0)
    gpt = gpt_model.GPT(vocab_size=VOCAB, block_size=SEQ, d_model=D_MODEL,
                        n_head=HEADS, n_layer=LAYERS).eval()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        model = os.path.join(work, "gpt.onnx")
        torch.onnx.export(gpt, (torch.randint(0, VOCAB, (BATCH, SEQ)),),
                          model, opset_version=17, input_names=["tokens"],
                          output_names=["logits"])
        for ranks in [int(m) for m in args.meshes.split(",")]:
            for shared in (True, False):
                if not shared and (ranks == 1 or ranks > args.unshared_up_to):
                    continue
                flags = ["--label=targets"]
                if ranks > 1:
                    flags.append(f"--mesh={ranks}")
                if not shared:
                    flags.append("--share-programs=false")
                plan = os.path.join(work, f"p{ranks}{'s' if shared else 'u'}")
                seconds, mib, size, programs = compile_plan(
                    args.bin, model, plan, flags)
                name = (f"8-layer GPT, {ranks} rank(s), "
                        f"{'shared programs' if shared else 'one program per rank'}")
                rows.append((name, seconds, mib, size, programs))
                print(rows[-1], flush=True)

        if not args.no_gpt3:
            gpt3 = os.path.join(work, "gpt3.mlir")
            subprocess.run(
                [sys.executable, os.path.join(ROOT, "python", "models",
                                              "gpt_config.py"),
                 "--layers", "96", "--hidden", "12288", "--heads", "96",
                 "--seq", "2048", "--vocab", "51200", "--batch", "128",
                 "-o", gpt3], check=True)
            plan = os.path.join(work, "gpt3")
            seconds, mib, size, programs = compile_plan(
                args.bin, gpt3, plan,
                ["--label=labels", "--mesh=16x8",
                 "--sbp-strategy=data,tensor", "--stages=8",
                 "--microbatches=8"])
            rows.append(("GPT-3 175B, batch 128, 16x8 mesh x 8 stages "
                         "(1,024 ranks), 8 micro-batches", seconds, mib, size,
                         programs))
            print(rows[-1], flush=True)

    lines = [
        "AdamW training plans (`--emit=plan`), compile only; seconds are "
        "oneflow-opt's own total, memory is its peak resident set:",
        "",
        "| model and layout | compile s | peak MiB | plan.pb bytes | "
        "programs in the plan |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, seconds, mib, size, programs in rows:
        lines.append(f"| {name} | {seconds:.1f} | {mib:.0f} | {size:,} | "
                     f"{programs} |")
    table = "\n".join(lines)
    print(table)
    if args.no_write:
        return
    write_block(MARKER_BEGIN, MARKER_END, table,
                "## Plans for many ranks\n\n`bench/plan_scaling.py`")


if __name__ == "__main__":
    main()
