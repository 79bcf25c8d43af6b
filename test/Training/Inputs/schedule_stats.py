#!/usr/bin/env python3
"""Checks of pipeline-schedule runs for test/Training/pipeline-schedules.test,
printed as parseable lines (the analysis is bench/pipeline_schedules.py's).

  schedule_stats.py trace PLAN_DIR TRACE.json --microbatches M [--warmup W]
      ranks: 0 1                       (the trace's pid values)
      rank R: fwd mb 0 1 2 3; bwd mb 0 1 2 3; sends N; recvs N
      rank R order: F0 F1 B0 F2 ... U  (compute blocks of the last step, in order)
      bubble measured: MEAN (PER RANK): within (0, 1) | OUT OF RANGE
      bubble simulated: ...             (plan replay, unlimited cores)
      bubble blocks: ...                (block-level schedule simulation)
      bubble theory: (S-1)/(V*M+S-1)  (V: chunks per rank; 1 unless interleaved)
    exits 1 when a rank lacks a micro-batch's forward or backward, sends or
    receives, the ranks are not 0..S-1, or a bubble is outside (0, 1).

  schedule_stats.py uniform PLAN_DIR --microbatches M
      uniform costs: plan replay BUBBLE; blocks BUBBLE; theory BUBBLE
      idle per work: plan replay RATIO; (S-1)/(V*M) RATIO: within 0.05 | OFF
    the simulations with every micro-batch's forward costing 1 and backward 2
    on every stage (1/V and 2/V per chunk, spread evenly over its tasks),
    everything else free: the block simulation must give the theory exactly,
    the plan replay at most it (finer dependencies can overlap a little).
    The second line is the bubble as Megatron-LM states it, idle time over
    work time, against (S-1)/(V*M).

  schedule_stats.py memory GPIPE.log 1F1B.log
      stage S: gpipe BYTES 1f1b BYTES: lower | equal | HIGHER
    from oneflow-run's `memory per rank (regsts):` lines (one device per
    stage); exits 1 when 1F1B needs more on a stage or not less on stage 0.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "bench"))
import pipeline_schedules as ps  # noqa: E402


def block_order(events, rank):
    last = max(e["args"]["step"] for e in events)
    tasks = sorted((e for e in events if e["pid"] == rank and e["tid"] == "compute"
                    and e["args"]["step"] == last), key=lambda e: e["ts"])
    order = []
    for e in tasks:
        phase, mb = ps.task_label(e["name"])
        if phase == "other":
            continue
        chunk = ps.task_chunk(e["name"])
        word = ({"fwd": "F", "bwd": "B"}.get(phase, "U") + ("" if mb is None else str(mb))
                + (f"v{chunk}" if chunk else ""))
        if not order or order[-1] != word:
            order.append(word)
    return order


def in_range(values):
    # A rank that other processes slowed down can be busy throughout (bubble
    # 0); the pipeline as a whole must still idle somewhere, and never always.
    values = list(values)
    return all(0.0 <= v < 1.0 for v in values) and 0.0 < ps.mean(values) < 1.0


def cmd_trace(args):
    ok = True
    events = ps.load_trace(args.trace)
    result = ps.analyze(args.plan, args.trace, args.warmup)
    ranks = sorted({e["pid"] for e in events})
    print("ranks: " + " ".join(map(str, ranks)))
    if ranks != list(range(result["ranks"])):
        print(f"error: the plan has {result['ranks']} ranks")
        ok = False
    want = list(range(args.microbatches))
    for r in ranks:
        c = result["contents"][r]
        print(f"rank {r}: fwd mb {' '.join(map(str, sorted(c['fwd'])))}; "
              f"bwd mb {' '.join(map(str, sorted(c['bwd'])))}; "
              f"sends {c['send']}; recvs {c['recv']}")
        print(f"rank {r} order: {' '.join(block_order(events, r))}")
        if sorted(c["fwd"]) != want or sorted(c["bwd"]) != want or not c["send"] or not c["recv"]:
            ok = False
    for key in ("measured", "simulated", "blocks"):
        values = result[key]
        good = in_range(values.values())
        ok &= good
        print(f"bubble {key}: {ps.mean(values.values()):.3f} ({ps.fmt_ranks(values)}): "
              f"{'within (0, 1)' if good else 'OUT OF RANGE'}")
    plan = ps.load_plan(args.plan)
    print(f"bubble theory: {ps.theory(len(ranks), args.microbatches, ps.plan_chunks(plan)):.3f}")
    return 0 if ok else 1


def cmd_uniform(args):
    plan = ps.load_plan(args.plan)
    chunks = ps.plan_chunks(plan)

    def key(t):
        return (t["rank"], ps.task_label(t["name"]), ps.task_chunk(t["name"]))

    count = {}
    for t in plan["tasks"]:
        if t["stream"] == "compute":
            count[key(t)] = count.get(key(t), 0) + 1
    durations = {}
    for t in plan["tasks"]:
        if t["stream"] == "compute":
            cost = {"fwd": 1.0, "bwd": 2.0}.get(ps.task_label(t["name"])[0], 0.0) / chunks
            durations[t["id"]] = cost / count[key(t)]
    span, busy, _ = ps.simulate_plan(plan, durations)
    bspan, bbusy = ps.simulate_blocks(plan, durations)
    replay = ps.mean(1 - b / span for b in busy.values())
    blocks = ps.mean(1 - b / bspan for b in bbusy.values())
    stages = plan["num_ranks"]
    want = ps.theory(stages, args.microbatches, chunks)
    print(f"uniform costs: plan replay {replay:.4f}; blocks {blocks:.4f}; theory {want:.4f}")
    ratio = ps.mean(span / b - 1 for b in busy.values())
    megatron = (stages - 1) / (chunks * args.microbatches)
    close = abs(ratio - megatron) <= 0.05
    print(f"idle per work: plan replay {ratio:.4f}; (S-1)/(V*M) {megatron:.4f}: "
          f"{'within 0.05' if close else 'OFF'}")
    return 0 if abs(blocks - want) < 1e-9 and replay <= want + 1e-9 and close else 1


def cmd_memory(args):
    with open(args.gpipe) as f:
        gpipe = ps.parse_memory(f.read())
    with open(args.onef1b) as f:
        onef1b = ps.parse_memory(f.read())
    ok = sorted(gpipe) == sorted(onef1b)
    for s in sorted(gpipe):
        a, b = gpipe[s], onef1b.get(s, 0)
        verdict = "lower" if b < a else "equal" if b == a else "HIGHER"
        print(f"stage {s}: gpipe {a} 1f1b {b}: {verdict}")
        ok &= b <= a and (s != 0 or b < a)
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("trace")
    t.add_argument("plan")
    t.add_argument("trace")
    t.add_argument("--microbatches", type=int, required=True)
    t.add_argument("--warmup", type=int, default=1)
    u = sub.add_parser("uniform")
    u.add_argument("plan")
    u.add_argument("--microbatches", type=int, required=True)
    m = sub.add_parser("memory")
    m.add_argument("gpipe")
    m.add_argument("onef1b")
    args = parser.parse_args()
    return {"trace": cmd_trace, "uniform": cmd_uniform, "memory": cmd_memory}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
