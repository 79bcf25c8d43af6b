#!/usr/bin/env python3
"""Pipeline schedules (GPipe, 1F1B, interleaved 1F1B) of the GPT-style decoder: bubble
fraction, peak activation memory per stage and step time, measured from
`oneflow-run --trace` and simulated from the plan.

For each S in --stages, M in --microbatches and schedule, compiles the
batch-8 test GPT (test/Import/ONNX/Inputs/torch/gpt_opset17.onnx with its
batch rewritten to 8) into S stages of one device each (S ranks), runs
--steps training steps with a Chrome trace and reports, over the steady
steps (all but the first --warmup):

  measured bubble   per rank, 1 - (time its compute stream is busy) / (the
                    step's span: first task start to last task end over all
                    ranks in that step, from the previous step's end at the
                    earliest), summed over the steady steps; the table shows
                    the mean over ranks and each rank's value.
  simulated bubble  the same fraction for a replay of the plan with the
                    measured task durations on unlimited cores (see
                    `simulate_plan`): every (rank, stream) thread runs its
                    tasks in plan order, a task starts once its thread is
                    free, its inputs' producers, its wait_for tasks and, for a
                    RECV, the matching SEND (peer and tag) are done. It does
                    not depend on how many cores the run had.
  block bubble      the schedule on the coarse level (see `simulate_blocks`):
                    each micro-batch's forward / backward on a stage is one
                    block of its measured duration, blocks run in the rank's
                    plan order, F(s,m) after F(s-1,m), B(s,m) after B(s+1,m)
                    and F(s,m); communication is free.
  theory            (S-1)/(V*M+S-1) (V: model chunks per stage, 1 unless
                    interleaved), equal stages, free communication, no
                    optimizer update.
  memory            the `memory per rank (regsts)` line of oneflow-run: the
                    bytes of activations and temporaries the memory planner
                    gives each rank (= stage); weights are separate.
  step ms           median over the steady steps of the time between the
                    ends of consecutive steps (last task end over all ranks).

  /usr/bin/python3 bench/pipeline_schedules.py --bin build/bin \
      [--stages 2,4] [--microbatches 4,8] [--schedules gpipe,1f1b,interleaved]
      [--virtual-stages 2] [--steps 5] [--json FILE] [--write] [--spin]

Every rank runs a compute and a comm thread. With OpenMPI's default a comm
thread blocked in MPI_Recv polls; on a small machine (2 cores here) that
another process also uses, the polling threads take the remaining core from
the compute threads for whole scheduler time slices (milliseconds per late
message, against kernels of a few µs). The bench therefore sets
OMPI_MCA_mpi_yield_when_idle=1 (blocked receives yield the core) unless the
variable is set already or --spin is given.

--write puts the table into docs/benchmarks.md (section "Pipeline
schedules"). The analysis functions are shared with the lit test
(test/Training/Inputs/schedule_stats.py).
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TORCH_INPUTS = os.path.join(ROOT, "test", "Import", "ONNX", "Inputs", "torch")
MARKER_BEGIN = "<!-- pipeline-schedules: begin -->"
MARKER_END = "<!-- pipeline-schedules: end -->"
SCHEDULES = ("gpipe", "1f1b")

# ---------------------------------------------------------------------------
# plan.pb (proto/oneflow/plan.proto), decoded from the protobuf wire format
# (no generated code needed).

TASK_KINDS = {0: "KERNEL", 1: "INPUT", 2: "OUTPUT", 3: "COLLECTIVE", 4: "ASSIGN"}
COLLECTIVE_KINDS = {0: "ALL_REDUCE", 1: "ALL_GATHER", 2: "REDUCE_SCATTER",
                    3: "ALL_TO_ALL", 4: "SEND", 5: "RECV"}


def _varint(buf, i):
    shift = value = 0
    while True:
        byte = buf[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, i


def _signed(value):
    return value - (1 << 64) if value >= 1 << 63 else value


def _fields(buf):
    """(field number, wire type, value): an int for varints, bytes otherwise."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(buf, i)
        elif wire == 1:
            value, i = buf[i:i + 8], i + 8
        elif wire == 2:
            length, i = _varint(buf, i)
            value, i = buf[i:i + length], i + length
        elif wire == 5:
            value, i = buf[i:i + 4], i + 4
        else:
            raise ValueError(f"plan.pb: unsupported wire type {wire}")
        yield number, wire, value


def _ints(wire, value):
    """A repeated integer field's entries, packed or not."""
    if wire == 0:
        return [_signed(value)]
    out, i = [], 0
    while i < len(value):
        v, i = _varint(value, i)
        out.append(_signed(v))
    return out


def _collective(buf):
    c = {"kind": "ALL_REDUCE", "group": [], "peer": 0, "tag": 0}
    for number, wire, value in _fields(buf):
        if number == 1:
            c["kind"] = COLLECTIVE_KINDS.get(value, str(value))
        elif number == 2:
            c["group"] += _ints(wire, value)
        elif number == 5:
            c["peer"] = _signed(value)
        elif number == 6:
            c["tag"] = _signed(value)
    return c


def _task(buf):
    t = {"id": 0, "kind": "KERNEL", "name": "", "rank": 0, "stream": "",
         "in": [], "out": [], "wait_for": [], "collective": None}
    for number, wire, value in _fields(buf):
        if number == 1:
            t["id"] = _signed(value)
        elif number == 2:
            t["kind"] = TASK_KINDS.get(value, str(value))
        elif number == 3:
            t["name"] = value.decode()
        elif number == 4:
            t["rank"] = _signed(value)
        elif number == 5:
            t["stream"] = value.decode()
        elif number == 7:
            t["in"] += _ints(wire, value)
        elif number == 8:
            t["out"] += _ints(wire, value)
        elif number == 10:
            t["collective"] = _collective(value)
        elif number == 11:
            t["wait_for"] += _ints(wire, value)
    return t


def _regst(buf):
    r = {"id": 0, "persistent": False, "rank": 0, "size_bytes": 0}
    for number, _, value in _fields(buf):
        if number == 1:
            r["id"] = _signed(value)
        elif number == 3:
            r["size_bytes"] = _signed(value)
        elif number == 5:
            r["persistent"] = bool(value)
        elif number == 8:
            r["rank"] = _signed(value)
    return r


def load_plan(plan_dir):
    """{'num_ranks', 'tasks' (in plan order), 'regsts' (id -> dict)}."""
    with open(os.path.join(plan_dir, "plan.pb"), "rb") as f:
        buf = f.read()
    plan = {"num_ranks": 1, "tasks": [], "regsts": {}}
    for number, _, value in _fields(buf):
        if number == 2:
            plan["num_ranks"] = value
        elif number == 5:
            r = _regst(value)
            plan["regsts"][r["id"]] = r
        elif number == 6:
            plan["tasks"].append(_task(value))
    return plan


# ---------------------------------------------------------------------------
# Traces and oneflow-run's stderr.

LABEL = re.compile(r"^(fwd|bwd) mb(\d+) (?:v(\d+) )?")


def task_label(name):
    """('fwd', m) / ('bwd', m) / ('update', None) / ('other', None)."""
    m = LABEL.match(name)
    if m:
        return m.group(1), int(m.group(2))
    if name.startswith("update "):
        return "update", None
    return "other", None


def task_chunk(name):
    """The rank's model chunk of an interleaved pipeline's task ("fwd mb2 v1
    ..." is chunk 1); 0 for everything else."""
    m = LABEL.match(name)
    return int(m.group(3)) if m and m.group(3) else 0


def load_trace(path):
    with open(path) as f:
        events = json.load(f)
    if isinstance(events, dict):
        events = events.get("traceEvents", [])
    return [e for e in events if e.get("ph") == "X"]


def parse_memory(text):
    """{rank: regst bytes} from oneflow-run's `memory per rank (regsts):` line."""
    m = re.search(r"memory per rank \(regsts\):((?: \d+:\d+)+)", text)
    if not m:
        raise ValueError("no 'memory per rank (regsts):' line in oneflow-run's output")
    return {int(r): int(b) for r, b in (p.split(":") for p in m.group(1).split())}


def _union_length(intervals):
    total, end = 0.0, None
    for a, b in sorted(intervals):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def steady_steps(events, warmup):
    steps = sorted({e["args"]["step"] for e in events})
    steady = [s for s in steps if s >= steps[0] + warmup]
    if not steady:
        raise ValueError(f"the trace has {len(steps)} steps, none after {warmup} warm-up")
    return steady


def measured_bubble(events, warmup):
    """Per rank 1 - compute busy / step span, over the steady steps; the
    median time between consecutive step ends (ms); the mean step span (ms).

    A step's span runs from its first task start to its last task end over
    all ranks, but starts no earlier than the previous step's end: ranks are
    not synchronized at step boundaries, so a rank that finished early (the
    last stage) starts the next step's inputs while stage 0 still updates,
    and unclipped spans would count that time twice."""
    steady = steady_steps(events, warmup)
    ranks = sorted({e["pid"] for e in events})
    by_step = {}
    for e in events:
        by_step.setdefault(e["args"]["step"], []).append(e)
    span_sum = 0.0
    busy = {r: 0.0 for r in ranks}
    ends = {s: max(e["ts"] + e["dur"] for e in evs) for s, evs in by_step.items()}
    for s in steady:
        evs = by_step[s]
        begin = min(e["ts"] for e in evs)
        if s - 1 in ends:
            begin = max(begin, ends[s - 1])
        span_sum += ends[s] - begin
        for r in ranks:
            busy[r] += _union_length([(max(e["ts"], begin), max(e["ts"] + e["dur"], begin))
                                      for e in evs if e["pid"] == r and e["tid"] == "compute"])
    bubble = {r: 1.0 - busy[r] / span_sum for r in ranks}
    gaps = [ends[s] - ends[s - 1] for s in steady if s - 1 in ends]
    step_ms = statistics.median(gaps) / 1e3 if gaps else span_sum / len(steady) / 1e3
    return bubble, step_ms, span_sum / len(steady) / 1e3


def task_durations(events, warmup, reduce=min):
    """task id -> its duration (µs) over the steady steps (default: the
    minimum, the least disturbed by other processes on the cores)."""
    steady = set(steady_steps(events, warmup))
    per_task = {}
    for e in events:
        if e["args"]["step"] in steady:
            per_task.setdefault(e["args"]["task"], []).append(e["dur"])
    return {t: reduce(d) for t, d in per_task.items()}


def message_latency(plan, events, warmup):
    """(mean, max) over the steady steps' SEND/RECV pairs of the time from
    the later of (send start, recv start) to the recv's end (µs): how long a
    message takes once both sides are there (clocks of different ranks agree
    to a few µs). Most take a few µs; a receive that waited long can take
    milliseconds when the cores are contended (its thread waits for a core)."""
    steady = set(steady_steps(events, warmup))
    when = {(e["args"]["task"], e["args"]["step"]): (e["ts"], e["ts"] + e["dur"])
            for e in events if e["args"]["step"] in steady}
    sends = {(t["rank"], t["collective"]["peer"], t["collective"]["tag"]): t["id"]
             for t in plan["tasks"] if t["collective"] and t["collective"]["kind"] == "SEND"}
    out = []
    for t in plan["tasks"]:
        c = t["collective"]
        if not c or c["kind"] != "RECV":
            continue
        send = sends.get((c["peer"], t["rank"], c["tag"]))
        for step in steady:
            if (t["id"], step) in when and (send, step) in when:
                (rs, re_), (ss, _) = when[(t["id"], step)], when[(send, step)]
                out.append(re_ - max(rs, ss))
    return (statistics.mean(out), max(out)) if out else (float("nan"), float("nan"))


def rank_contents(events):
    """rank -> {'fwd': micro-batches, 'bwd': ..., 'send': count, 'recv': count}."""
    out = {}
    for e in events:
        c = out.setdefault(e["pid"], {"fwd": set(), "bwd": set(), "send": 0, "recv": 0})
        phase, mb = task_label(e["name"])
        if phase in ("fwd", "bwd") and e["tid"] == "compute":
            c[phase].add(mb)
        if e["tid"] == "comm":
            if re.search(r"\bsend to rank \d+", e["name"]):
                c["send"] += 1
            elif re.search(r"\brecv from rank \d+", e["name"]):
                c["recv"] += 1
    return out


# ---------------------------------------------------------------------------
# Simulations.

def simulate_plan(plan, durations):
    """Replays one step of the plan on unlimited cores (one core per (rank,
    stream) thread) with the given task durations (µs; a task without one,
    e.g. never traced, takes 0). Every thread runs its tasks in plan order;
    a task starts when its thread finished the previous one, the producers
    of its non-persistent inputs, its wait_for tasks and (a RECV) the
    matching SEND (peer, tag) finished. A RECV then takes min(its own, the
    SEND's) measured duration: the measured RECV includes the wait for its
    sender, which the replay recomputes. Other collectives start when every
    member of the group (same tag and group) is there. Returns (span µs,
    {rank: compute-stream busy µs}, {task id: (start, end)})."""
    tasks = plan["tasks"]
    by_id = {t["id"]: t for t in tasks}
    producer = {}
    for t in tasks:
        for r in t["out"]:
            if not plan["regsts"].get(r, {}).get("persistent", False):
                producer.setdefault(r, t["id"])
    threads = {}
    for t in tasks:
        threads.setdefault((t["rank"], t["stream"]), []).append(t["id"])
    sends, groups = {}, {}
    for t in tasks:
        c = t["collective"]
        if c is None:
            continue
        if c["kind"] == "SEND":
            sends[(t["rank"], c["peer"], c["tag"])] = t["id"]
        elif c["kind"] != "RECV":
            groups.setdefault((c["kind"], c["tag"], tuple(sorted(c["group"]))), []).append(t["id"])

    def deps(t):
        out = [producer[r] for r in t["in"] if r in producer and producer[r] != t["id"]]
        out += t["wait_for"]
        c = t["collective"]
        if c is not None and c["kind"] == "RECV":
            key = (c["peer"], t["rank"], c["tag"])
            if key not in sends:
                raise ValueError(f"RECV '{t['name']}' (task {t['id']}) has no matching SEND")
            out.append(sends[key])
        return out

    dependencies = {t["id"]: deps(t) for t in tasks}
    time = {}
    pos = {k: 0 for k in threads}
    free = {k: 0.0 for k in threads}
    done = 0
    while done < len(tasks):
        progress = False
        for key, ids in threads.items():
            while pos[key] < len(ids):
                tid = ids[pos[key]]
                t = by_id[tid]
                if any(d not in time for d in dependencies[tid]):
                    break
                c = t["collective"]
                peers = []
                if c is not None and c["kind"] not in ("SEND", "RECV"):
                    peers = [p for p in groups.get((c["kind"], c["tag"], tuple(sorted(c["group"]))), [])
                             if p != tid]
                    # A collective waits for its members to arrive: each must be
                    # at the head of its thread with its own dependencies met.
                    if any(not _ready(p, by_id, threads, pos, dependencies, time) for p in peers):
                        break
                start = max([free[key]] + [time[d][1] for d in dependencies[tid]])
                dur = durations.get(tid, 0.0)
                if c is not None and c["kind"] == "RECV":
                    send = sends[(c["peer"], t["rank"], c["tag"])]
                    start = max(free[key], time[send][0])
                    dur = min(dur, durations.get(send, 0.0))
                    end = max(start + dur, time[send][1])
                elif peers:
                    arrive = max([start] + [_arrival(p, by_id, free, dependencies, time) for p in peers])
                    start, end = arrive, arrive + min([dur] + [durations.get(p, 0.0) for p in peers])
                else:
                    end = start + dur
                time[tid] = (start, end)
                free[key] = end
                pos[key] += 1
                done += 1
                progress = True
        if not progress:
            stuck = [by_id[ids[pos[k]]]["name"] for k, ids in threads.items() if pos[k] < len(ids)]
            raise ValueError("simulation deadlock at: " + "; ".join(stuck[:4]))
    span = max(e for _, e in time.values()) - min(s for s, _ in time.values())
    busy = {}
    for t in tasks:
        if t["stream"] == "compute":
            s, e = time[t["id"]]
            busy[t["rank"]] = busy.get(t["rank"], 0.0) + (e - s)
    for r in range(plan["num_ranks"]):
        busy.setdefault(r, 0.0)
    return span, busy, time


def _thread_of(t):
    return (t["rank"], t["stream"])


def _ready(tid, by_id, threads, pos, dependencies, time):
    if tid in time:
        return True
    key = _thread_of(by_id[tid])
    ids = threads[key]
    return pos[key] < len(ids) and ids[pos[key]] == tid and all(d in time for d in dependencies[tid])


def _arrival(tid, by_id, free, dependencies, time):
    if tid in time:
        return time[tid][0]
    return max([free[_thread_of(by_id[tid])]] + [time[d][1] for d in dependencies[tid]])


def plan_blocks(plan, durations):
    """rank -> [(label, µs)]: the rank's compute tasks in plan order, runs of
    one label ('fwd', m, chunk) / ('bwd', m, chunk) / ('update', None, 0) /
    ('other', None, 0) merged into blocks."""
    blocks = {}
    for t in plan["tasks"]:
        if t["stream"] != "compute":
            continue
        label = task_label(t["name"]) + (task_chunk(t["name"]),)
        seq = blocks.setdefault(t["rank"], [])
        d = durations.get(t["id"], 0.0)
        if seq and seq[-1][0] == label:
            seq[-1] = (label, seq[-1][1] + d)
        else:
            seq.append((label, d))
    return blocks


def simulate_blocks(plan, durations, stage_of_rank=None):
    """The schedule on the block level: each rank runs its blocks in plan
    order; F(s,m) starts after F(s-1,m), B(s,m) after B(s+1,m) and F(s,m)
    (stage s = rank unless stage_of_rank says otherwise; in an interleaved
    pipeline of S stages, chunk v of stage s is model stage v * S + s);
    communication and the other threads are free. Returns (span µs,
    {rank: busy µs})."""
    blocks = plan_blocks(plan, durations)
    stage = stage_of_rank or {r: r for r in blocks}
    count = len(set(stage.values()))
    chunks = 1 + max((label[2] for seq in blocks.values() for label, _ in seq), default=0)
    stages = list(range(count * chunks))
    present = {(label[0], label[2] * count + stage[r], label[1])
               for r, seq in blocks.items() for label, _ in seq}

    def needs(phase, s, mb):
        """The blocks (phase, stage, mb) must wait for; a stage's work
        that has no compute task (the loss's backward can be none) is
        replaced by what it waits for."""
        direct = []
        if phase == "fwd" and s != stages[0]:
            direct.append(("fwd", s - 1, mb))
        if phase == "bwd":
            direct.append(("fwd", s, mb))
            if s != stages[-1]:
                direct.append(("bwd", s + 1, mb))
        out = []
        for n in direct:
            out.extend([n] if n in present else needs(*n))
        return out
    end = {}
    pos = {r: 0 for r in blocks}
    free = {r: 0.0 for r in blocks}
    remaining = sum(len(b) for b in blocks.values())
    while remaining:
        progress = False
        for r, seq in blocks.items():
            while pos[r] < len(seq):
                (phase, mb, chunk), d = seq[pos[r]]
                s = chunk * count + stage[r]
                need = needs(phase, s, mb)
                if any(n not in end for n in need):
                    break
                start = max([free[r]] + [end[n] for n in need])
                free[r] = start + d
                if phase in ("fwd", "bwd"):
                    end[(phase, s, mb)] = free[r]
                pos[r] += 1
                remaining -= 1
                progress = True
        if not progress:
            raise ValueError("block simulation deadlock")
    span = max(free.values())
    busy = {r: sum(d for _, d in seq) for r, seq in blocks.items()}
    return span, busy


def theory(stages, microbatches, chunks=1):
    """The bubble's share of the step: (S-1)/(V*M+S-1) (V = 1: 1F1B)."""
    return (stages - 1) / (chunks * microbatches + stages - 1)


def plan_chunks(plan):
    """Model chunks per rank (interleaved pipelines: V; else 1)."""
    return 1 + max((task_chunk(t["name"]) for t in plan["tasks"]), default=0)


def analyze(plan_dir, trace_path, warmup):
    """Everything the bench and the test report for one run."""
    plan = load_plan(plan_dir)
    events = load_trace(trace_path)
    bubble, step_ms, span_ms = measured_bubble(events, warmup)
    latency = message_latency(plan, events, warmup)
    durations = task_durations(events, warmup)
    span, busy, _ = simulate_plan(plan, durations)
    sim = {r: 1.0 - busy[r] / span for r in sorted(busy)}
    bspan, bbusy = simulate_blocks(plan, durations)
    blk = {r: 1.0 - bbusy[r] / bspan for r in sorted(bbusy)}
    return {"ranks": plan["num_ranks"], "measured": bubble, "step_ms": step_ms,
            "span_ms": span_ms, "latency_us": latency, "simulated": sim, "simulated_step_ms": span / 1e3,
            "blocks": blk, "blocks_step_ms": bspan / 1e3, "contents": rank_contents(events)}


def mean(values):
    values = list(values)
    return sum(values) / len(values)


# ---------------------------------------------------------------------------
# The bench.

def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def prepare(work, batch):
    import numpy as np
    for name in ("tokens", "targets"):
        a = np.load(os.path.join(TORCH_INPUTS, f"gpt.train.{name}.npy"))
        np.save(os.path.join(work, f"{name}.npy"), a.reshape(-1, *a.shape[2:]))
    model = os.path.join(work, f"gpt_b{batch}.onnx")
    run([sys.executable, os.path.join(ROOT, "python", "tools", "onnx_set_batch.py"), "-q",
         os.path.join(TORCH_INPUTS, "gpt_opset17.onnx"), model, str(batch)])
    return model


def bench_one(bin_dir, model, work, stages, mb, schedule, steps, warmup, env=None,
              virtual=2):
    plan = os.path.join(work, f"s{stages}-m{mb}-{schedule}")
    chunks = virtual if schedule == "interleaved" else 1
    run([os.path.join(bin_dir, "oneflow-opt"), model, "--train", "--label=targets",
         "--optimizer=sgd", "--lr=0.1", f"--microbatches={mb}", f"--stages={stages}",
         f"--schedule={schedule}", f"--virtual-stages={chunks}", "--emit=plan", "-o", plan])
    trace = plan + ".trace.json"
    out = run([os.path.join(bin_dir, "oneflow-run"), plan,
               "--data", f"tokens={os.path.join(work, 'tokens.npy')}",
               "--data", f"targets={os.path.join(work, 'targets.npy')}",
               "--steps", str(steps), "--quiet", "--trace", trace], env=env)
    result = analyze(plan, trace, warmup)
    result["memory"] = parse_memory(out.stdout + out.stderr)
    result.update(stages=stages, microbatches=mb,
                  schedule=schedule if chunks == 1 else f"{schedule} (V={chunks})",
                  theory=theory(stages, mb, chunks))
    result.pop("contents")
    return result


def fmt_ranks(values):
    return " / ".join(f"{values[r]:.2f}" for r in sorted(values))


def table(results, cpus, steps, warmup, batch, load, spin):
    lines = [
        f"GPT-style test decoder (4 blocks, seq 16) with batch {batch}, SGD, one device "
        f"per stage (S ranks), {steps} steps of which the first {warmup} are warm-up, "
        f"{cpus} CPU core(s) in all, one OpenMP/OpenBLAS thread per rank; 1-minute load "
        f"average before the runs {min(load):.1f} to {max(load):.1f}; "
        + ("OpenMPI's default blocked receives (polling)." if spin else
           "blocked MPI receives yield their core (OMPI_MCA_mpi_yield_when_idle=1)."),
        "",
        "| S | M | schedule | step ms | bubble measured: mean (per rank) | simulated: mean "
        "(per rank) | blocks: mean | theory (S-1)/(V·M+S-1) | simulated step ms "
        "| message latency µs mean / max | activation bytes per stage |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        mem = " / ".join(str(r["memory"][k]) for k in sorted(r["memory"]))
        lines.append(
            f"| {r['stages']} | {r['microbatches']} | {r['schedule']} | {r['step_ms']:.2f} "
            f"| {mean(r['measured'].values()):.2f} ({fmt_ranks(r['measured'])}) "
            f"| {mean(r['simulated'].values()):.2f} ({fmt_ranks(r['simulated'])}) "
            f"| {mean(r['blocks'].values()):.2f} | {r['theory']:.2f} "
            f"| {r['simulated_step_ms']:.2f} | {r['latency_us'][0]:.0f} / {r['latency_us'][1]:.0f} "
            f"| {mem} |")
    over = sorted({r["stages"] for r in results if r["ranks"] > cpus})
    lines.append("")
    if spin:
        note = (f"Contended cores: every rank runs a compute and a comm thread, and a "
                f"comm thread blocked in MPI_Recv polls, so S ranks keep up to 2S threads "
                f"busy on the {cpus} core(s). A thread that loses its core stalls for a "
                f"scheduler time slice (milliseconds, against kernels of a few µs): "
                f"messages arrive late (the latency column's maximum) and kernels "
                f"stretch, so the measured bubbles and step times mostly show the "
                f"contention, and vary from run to run.")
    else:
        note = (f"Every rank runs a compute and a comm thread on the {cpus} core(s). "
                f"With OpenMPI's default a comm thread blocked in MPI_Recv polls: on an "
                f"idle machine that costs nothing measurable, but once another process "
                f"holds a core the polling threads take the rest for whole scheduler "
                f"time slices, so these runs let blocked receives yield (--spin keeps the default). "
                f"The measured bubbles still include the threads' wake-ups: a hop "
                f"between stages (compute thread, comm thread, MPI, the peer's comm and "
                f"compute threads) often waits hundreds of µs for a core, against "
                f"100-200 µs of work per micro-batch and stage in this small model.")
    if over:
        note += (f" S = {', '.join(map(str, over))} is oversubscribed even counting "
                 f"only the compute threads ({max(over)} single-thread ranks on {cpus} "
                 f"cores).")
    note += " The simulated columns do not depend on the cores."
    lines += [note, ""]
    lines.append(
        "Measured: per rank, 1 - (compute stream busy) / (step span over all ranks, "
        "from the previous step's end at the earliest), over the steady steps (the "
        "ranks' trace clocks start together, to a few µs). "
        "Simulated: the plan replayed on one core per (rank, stream) thread with each "
        "task's measured duration (its minimum over the steady steps): threads run their "
        "tasks in plan order, a task waits for its inputs' producers, its wait_for tasks "
        "and, a receive, for the matching send (peer, tag). Blocks: each micro-batch's "
        "forward / backward on a stage as one block, the rank's block order from the "
        "plan, F(s,m) after F(s-1,m), B(s,m) after B(s+1,m) and F(s,m), free "
        "communication. All three count the whole step (input slicing, loss, "
        "optimizer update) as work, which the theory leaves out; unequal stages (the "
        "last one holds the vocabulary projection and the loss) add bubble on the "
        "lighter stages. Activation bytes: oneflow-run's `memory per rank (regsts)`, "
        "stage 0 first.")
    return "\n".join(lines)


def write_docs(text, command):
    path = os.path.join(ROOT, "docs", "benchmarks.md")
    doc = open(path).read()
    block = f"{MARKER_BEGIN}\n{text}\n\nReproduce: `{command}`\n{MARKER_END}"
    if MARKER_BEGIN in doc:
        doc = re.sub(re.escape(MARKER_BEGIN) + ".*?" + re.escape(MARKER_END),
                     lambda _: block, doc, flags=re.S)
    else:
        doc = doc.rstrip("\n") + "\n\n## Pipeline schedules\n\n`bench/pipeline_schedules.py`\n\n" + block + "\n"
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(doc)
    os.replace(tmp, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--stages", default="2,4")
    parser.add_argument("--microbatches", default="4,8")
    parser.add_argument("--schedules", default="gpipe,1f1b,interleaved")
    parser.add_argument("--virtual-stages", type=int, default=2,
                        help="model chunks per stage of the interleaved schedule")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--spin", action="store_true",
                        help="keep OpenMPI's polling receives (default: "
                             "OMPI_MCA_mpi_yield_when_idle=1 unless already set)")
    parser.add_argument("--json", help="write the results as JSON to this file")
    parser.add_argument("--write", action="store_true",
                        help="put the table into docs/benchmarks.md")
    args = parser.parse_args()
    if args.steps <= args.warmup:
        parser.error("--steps must exceed --warmup")
    stages = [int(s) for s in args.stages.split(",")]
    mbs = [int(m) for m in args.microbatches.split(",")]
    schedules = args.schedules.split(",")
    cpus = os.cpu_count() or 1
    results, load = [], []
    env = dict(os.environ)
    if not args.spin:
        env.setdefault("OMPI_MCA_mpi_yield_when_idle", "1")
    with tempfile.TemporaryDirectory() as work:
        model = prepare(work, args.batch)
        for s in stages:
            for m in mbs:
                for sched in schedules:
                    load.append(os.getloadavg()[0])
                    r = bench_one(args.bin, model, work, s, m, sched, args.steps, args.warmup, env,
                                  args.virtual_stages)
                    print(f"S={s} M={m} {sched}: measured {mean(r['measured'].values()):.3f} "
                          f"simulated {mean(r['simulated'].values()):.3f} "
                          f"theory {r['theory']:.3f}", file=sys.stderr)
                    results.append(r)
    text = table(results, cpus, args.steps, args.warmup, args.batch, load, args.spin)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpus": cpus, "steps": args.steps, "warmup": args.warmup,
                       "batch": args.batch, "load_average": load, "spin": args.spin, "results": results}, f, indent=1)
    if args.write:
        command = ("/usr/bin/python3 bench/pipeline_schedules.py --bin build/bin "
                   f"--stages {args.stages} --microbatches {args.microbatches} "
                   f"--steps {args.steps}{' --spin' if args.spin else ''} --write")
        write_docs(text, command)


if __name__ == "__main__":
    main()
