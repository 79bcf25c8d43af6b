"""Multi-rank test plans for oneflow-run, with their inputs and the results
NumPy expects.

  multirank.py collectives N DIR   every collective kind on N ranks (all
                                   dtypes, axis 0 and later axes, a sub-group
                                   in reversed order), a SEND/RECV ring and a
                                   flowing input over several steps; each
                                   rank's result is sent to rank 0 and is a
                                   graph output
  multirank.py check N DIR RESULTS TRACE STEPS [OMP]
                                   compares RESULTS/*.npy with DIR/expected
                                   exactly and checks the trace (every rank's
                                   firings) and the thread budget
  multirank.py failing KIND DIR    a 2-rank plan whose rank 1 fails: KIND is
                                   "symbol" (a kernel missing from the
                                   library), "exit" (rank 1 dies mid-run) or
                                   "throw" (a kernel throws mid-run); rank 0
                                   waits in an all-reduce meanwhile
  multirank.py mismatch DIR        a 2-rank plan whose all-gather tasks
                                   disagree on the axis
  multirank.py deadlock DIR        two collectives that ranks 0 and 1 enter in
                                   opposite orders
  multirank.py bench DIR MIB       a 2-rank all-reduce of a MIB MiB f32 tensor
  multirank.py watchdog N KIND DIR N ranks for the watchdog: KIND "steady"
                                   (each rank copies in 100 ms, then an
                                   all-reduce over every rank; rank 0 outputs
                                   the sum) or "hang" (the last rank's kernel
                                   test_hang hangs at its 3rd call; its result
                                   is sent to rank 0, which outputs it)

DIR gets plan.txtpb and weights.bin (plus x.npy and expected/ for the
collectives).
"""
import json
import os
import sys

import numpy as np

PLAN_DTYPE = {"f32": "F32", "f64": "F64", "f16": "F16", "bf16": "BF16",
              "i32": "I32", "i64": "I64", "bool": "BOOL"}
NUMPY = {"f32": np.float32, "f64": np.float64, "f16": np.float16,
         "i32": np.int32, "i64": np.int64, "bool": np.bool_}
SIZE = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "i32": 4, "i64": 8,
        "bool": 1}


def to_bytes(dtype, array):
    """The plan's bytes of `array` (bf16: the top halves of f32 values)."""
    if dtype == "bf16":
        bits = np.ascontiguousarray(array, dtype=np.float32).view(np.uint32)
        return (bits >> 16).astype(np.uint16).tobytes()
    return np.ascontiguousarray(array, dtype=NUMPY[dtype]).tobytes()


class Plan:
    def __init__(self, ranks):
        self.ranks = ranks
        self.regsts, self.tasks, self.inputs, self.outputs = [], [], [], []
        self.weights = bytearray()
        self.tag = 0

    def regst(self, name, dtype, shape, rank, slots=1, persistent=False,
              offset=-1):
        rid = len(self.regsts)
        size = SIZE[dtype] * int(np.prod(shape, dtype=np.int64))
        shape_text = " ".join(f"shape: {d}" for d in shape)
        self.regsts.append(
            f'regsts {{ id: {rid} name: "{name}" desc {{ dtype: '
            f'{PLAN_DTYPE[dtype]} {shape_text} }} size_bytes: {size} '
            f'num_slots: {slots} persistent: {str(persistent).lower()} '
            f'weights_offset: {offset} rank: {rank} }}')
        return rid

    def persistent(self, name, dtype, array, rank):
        while len(self.weights) % 64:
            self.weights.append(0)
        offset = len(self.weights)
        self.weights += to_bytes(dtype, array)
        return self.regst(name, dtype, list(array.shape), rank,
                          persistent=True, offset=offset)

    def task(self, kind, name, rank, stream, ins=(), outs=(), extra=""):
        tid = len(self.tasks)
        fields = [f"id: {tid}", f"kind: {kind}", f'name: "{name}"',
                  f"rank: {rank}", f'stream: "{stream}"']
        fields += [f"in_regsts: {r}" for r in ins]
        fields += [f"out_regsts: {r}" for r in outs]
        self.tasks.append("tasks { " + " ".join(fields) + " " + extra + " }")
        return tid

    def kernel(self, name, rank, symbol, ins, outs, stream="compute"):
        return self.task("KERNEL", name, rank, stream, ins, outs,
                         f'kernel_symbol: "{symbol}"')

    def collective(self, name, rank, kind, ins, outs, group=(), axis=0,
                   concat=0, peer=0, tag=0):
        group_text = " ".join(f"group: {g}" for g in group)
        return self.task("COLLECTIVE", name, rank, "comm", ins, outs,
                         f"collective {{ kind: {kind} {group_text} axis: "
                         f"{axis} concat_axis: {concat} peer: {peer} "
                         f"tag: {tag} }}")

    def new_tag(self):
        self.tag += 1
        return self.tag

    def input(self, name, rank, regst):
        """The INPUT task of graph input `name` on `rank`."""
        self.task("INPUT", f"input {name} r{rank}", rank, "io", (), (regst,),
                  f'io_name: "{name}"')

    def declare_input(self, name, dtype, shape, regst):
        shape_text = " ".join(f"shape: {d}" for d in shape)
        self.inputs.append(f'inputs {{ name: "{name}" desc {{ dtype: '
                           f'{PLAN_DTYPE[dtype]} {shape_text} }} regst: '
                           f'{regst} }}')

    def output(self, name, dtype, shape, regst):
        """A graph output on rank 0 from `regst` (on rank 0)."""
        shape_text = " ".join(f"shape: {d}" for d in shape)
        self.task("OUTPUT", f"output {name}", 0, "io", (regst,), (),
                  f'io_name: "{name}"')
        self.outputs.append(f'outputs {{ name: "{name}" desc {{ dtype: '
                            f'{PLAN_DTYPE[dtype]} {shape_text} }} regst: '
                            f'{regst} }}')

    def output_from(self, name, dtype, shape, rank, regst, slots=1):
        """A graph output of a regst on any rank: sent to rank 0 first."""
        if rank == 0:
            self.output(name, dtype, shape, regst)
            return
        tag = self.new_tag()
        self.collective(f"send {name}", rank, "SEND", (regst,), (), peer=0,
                        tag=tag)
        received = self.regst(f"{name} at 0", dtype, shape, 0, slots)
        self.collective(f"recv {name}", 0, "RECV", (), (received,),
                        peer=rank, tag=tag)
        self.output(name, dtype, shape, received)

    def text(self):
        head = [f"version: 1", f"num_ranks: {self.ranks}",
                'kernel_library: "kernels.so"', 'weights_file: "weights.bin"']
        return "\n".join(head + self.regsts + self.tasks + self.inputs +
                         self.outputs) + "\n"

    def write(self, directory):
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "plan.txtpb"), "w") as f:
            f.write(self.text())
        with open(os.path.join(directory, "weights.bin"), "wb") as f:
            f.write(bytes(self.weights) + b"\0" * 64)


def expected_collective(kind, ins, group, axis, concat):
    """Per member (in group order): what its task outputs."""
    size = len(group)
    if kind == "ALL_REDUCE":
        total = sum(x.astype(np.float64) for x in ins)
        return [total] * size
    if kind == "ALL_GATHER":
        return [np.concatenate(ins, axis=axis)] * size
    if kind == "REDUCE_SCATTER":
        total = sum(x.astype(np.float64) for x in ins)
        return np.split(total, size, axis=axis)
    if kind == "ALL_TO_ALL":
        return [np.concatenate([np.split(ins[j], size, axis=axis)[g]
                                for j in range(size)], axis=concat)
                for g in range(size)]
    raise ValueError(kind)


def out_shape(kind, shape, size, axis, concat):
    shape = list(shape)
    if kind == "ALL_GATHER":
        shape[axis] *= size
    elif kind == "REDUCE_SCATTER":
        shape[axis] //= size
    elif kind == "ALL_TO_ALL":
        shape[axis] //= size
        shape[concat] *= size
    return shape


def collectives(ranks, directory):
    rng = np.random.default_rng(7 + ranks)
    plan = Plan(ranks)
    every = list(range(ranks))
    sub = [ranks - 1, 0]  # a sub-group, in reversed order
    cases = [
        # name, kind, dtype, shape, axis, concat, group
        ("allreduce_f32", "ALL_REDUCE", "f32", [2, 3], 0, 0, every),
        ("allreduce_f64", "ALL_REDUCE", "f64", [5], 0, 0, every),
        ("allreduce_i32", "ALL_REDUCE", "i32", [2, 2], 0, 0, every),
        ("allreduce_i64", "ALL_REDUCE", "i64", [3, 1], 0, 0, every),
        ("allreduce_f16", "ALL_REDUCE", "f16", [4], 0, 0, every),
        ("allreduce_bf16", "ALL_REDUCE", "bf16", [2, 3], 0, 0, every),
        ("allgather_ax0_f32", "ALL_GATHER", "f32", [2, 3], 0, 0, every),
        ("allgather_ax1_f16", "ALL_GATHER", "f16", [2, 3], 1, 0, every),
        ("allgather_ax2_i64", "ALL_GATHER", "i64", [2, 2, 3], 2, 0, every),
        ("allgather_ax1_bool", "ALL_GATHER", "bool", [3, 2], 1, 0, every),
        ("allgather_ax1_bf16", "ALL_GATHER", "bf16", [1, 2, 2], 1, 0, every),
        ("reducescatter_ax0_f32", "REDUCE_SCATTER", "f32", [6, 2], 0, 0,
         every),
        ("reducescatter_ax1_i32", "REDUCE_SCATTER", "i32", [2, 6, 2], 1, 0,
         every),
        ("reducescatter_ax1_bf16", "REDUCE_SCATTER", "bf16", [2, 6], 1, 0,
         every),
        ("reducescatter_ax2_f64", "REDUCE_SCATTER", "f64", [2, 2, 6], 2, 0,
         every),
        ("reducescatter_ax0_f16", "REDUCE_SCATTER", "f16", [6], 0, 0, every),
        ("reducescatter_ax1_i64", "REDUCE_SCATTER", "i64", [3, 6], 1, 0,
         every),
        ("alltoall_0to1_f32", "ALL_TO_ALL", "f32", [6, 2], 0, 1, every),
        ("alltoall_1to0_i64", "ALL_TO_ALL", "i64", [2, 6], 1, 0, every),
        ("alltoall_1to1_f16", "ALL_TO_ALL", "f16", [2, 6, 2], 1, 1, every),
        ("alltoall_2to0_i32", "ALL_TO_ALL", "i32", [2, 2, 6], 2, 0, every),
        ("alltoall_0to0_bool", "ALL_TO_ALL", "bool", [6, 1], 0, 0, every),
        ("alltoall_1to2_bf16", "ALL_TO_ALL", "bf16", [3, 6, 1], 1, 2, every),
        ("alltoall_0to1_f64", "ALL_TO_ALL", "f64", [6, 3], 0, 1, every),
        ("sub_allreduce_i32", "ALL_REDUCE", "i32", [3], 0, 0, sub),
        ("sub_allgather_ax1_f32", "ALL_GATHER", "f32", [2, 3], 1, 0, sub),
        ("sub_reducescatter_ax1_f32", "REDUCE_SCATTER", "f32", [2, 4], 1, 0,
         sub),
        ("sub_alltoall_1to0_i64", "ALL_TO_ALL", "i64", [2, 4], 1, 0, sub),
    ]
    expected = {}
    for name, kind, dtype, shape, axis, concat, group in cases:
        if dtype == "bool":
            ins = [rng.integers(0, 2, size=shape).astype(np.bool_)
                   for _ in group]
        else:
            ins = [rng.integers(-9, 10, size=shape).astype(np.float64)
                   for _ in group]
        outs = expected_collective(kind, ins, group, axis, concat)
        oshape = out_shape(kind, shape, len(group), axis, concat)
        tag = plan.new_tag()
        results = []
        for g, rank in enumerate(group):
            local = plan.persistent(f"{name} in r{rank}", dtype,
                                    ins[g] if dtype != "bool" else ins[g],
                                    rank)
            result = plan.regst(f"{name} r{rank}", dtype, oshape, rank)
            plan.collective(f"{name} r{rank}", rank, kind, (local,),
                            (result,), group, axis, concat, tag=tag)
            results.append((rank, result))
        for g, (rank, result) in enumerate(results):
            out_name = f"{name}.r{rank}"
            plan.output_from(out_name, dtype, oshape, rank, result)
            npdtype = np.float32 if dtype == "bf16" else NUMPY[dtype]
            expected[out_name] = np.asarray(outs[g]).astype(npdtype)

    # A flowing input: x on every rank, scaled by rank + 1 (compute), summed
    # by an all-reduce and passed around a SEND/RECV ring (comm), over
    # several steps with two slots per regst.
    x = np.arange(1, 5, dtype=np.float32)
    scaled, sums = [], []
    for rank in every:
        xin = plan.regst(f"x r{rank}", "f32", [4], rank, slots=2)
        if rank == 0:
            plan.declare_input("x", "f32", [4], xin)
        plan.input("x", rank, xin)
        scale = plan.persistent(f"scale r{rank}", "f32",
                                np.array([rank + 1], np.float32), rank)
        xs = plan.regst(f"scaled r{rank}", "f32", [4], rank, slots=2)
        plan.kernel(f"scale r{rank}", rank, "test_scale", (xin, scale), (xs,))
        scaled.append(xs)
    tag = plan.new_tag()
    for rank in every:
        total = plan.regst(f"flow r{rank}", "f32", [4], rank, slots=2)
        plan.collective(f"flow sum r{rank}", rank, "ALL_REDUCE",
                        (scaled[rank],), (total,), every, tag=tag)
        sums.append(total)
    ring_tags = [plan.new_tag() for _ in every]
    for rank in every:  # every SEND of the ring before its RECVs
        plan.collective(f"ring send r{rank}", rank, "SEND", (scaled[rank],),
                        (), peer=(rank + 1) % ranks, tag=ring_tags[rank])
    ring = []
    for rank in every:
        got = plan.regst(f"ring r{rank}", "f32", [4], rank, slots=2)
        source = (rank - 1) % ranks
        plan.collective(f"ring recv r{rank}", rank, "RECV", (), (got,),
                        peer=source, tag=ring_tags[source])
        ring.append(got)
    total_scale = sum(r + 1 for r in every)
    for rank in every:
        plan.output_from(f"flow.r{rank}", "f32", [4], rank, sums[rank], 2)
        expected[f"flow.r{rank}"] = x * total_scale
        plan.output_from(f"ring.r{rank}", "f32", [4], rank, ring[rank], 2)
        expected[f"ring.r{rank}"] = x * ((rank - 1) % ranks + 1)

    # Each rank's thread budget, gathered.
    envs = []
    for rank in every:
        env = plan.regst(f"env r{rank}", "i32", [2], rank)
        plan.kernel(f"thread env r{rank}", rank, "test_thread_env", (), (env,))
        envs.append(env)
    tag = plan.new_tag()
    gathered = None
    for rank in every:
        out = plan.regst(f"threads r{rank}", "i32", [2 * ranks], rank)
        plan.collective(f"gather threads r{rank}", rank, "ALL_GATHER",
                        (envs[rank],), (out,), every, tag=tag)
        if rank == 0:
            gathered = out
    plan.output("threads", "i32", [2 * ranks], gathered)

    plan.write(directory)
    np.save(os.path.join(directory, "x.npy"), x)
    os.makedirs(os.path.join(directory, "expected"), exist_ok=True)
    for name, value in expected.items():
        np.save(os.path.join(directory, "expected", name + ".npy"), value)
    print(f"{len(cases)} collectives on {ranks} ranks, "
          f"{len(plan.tasks)} tasks, {len(expected) + 1} outputs")


def check(ranks, directory, results, trace_file, steps, omp=None):
    names = sorted(os.listdir(os.path.join(directory, "expected")))
    bad = []
    for name in names:
        want = np.load(os.path.join(directory, "expected", name))
        got = np.load(os.path.join(results, name))
        if got.dtype != want.dtype or got.shape != want.shape or \
                not np.array_equal(got, want):
            bad.append(f"{name}: got {got.dtype}{list(got.shape)} "
                       f"{got.tolist()}, want {want.dtype}"
                       f"{list(want.shape)} {want.tolist()}")
    print(f"checked {len(names)} results exactly: "
          + ("ok" if not bad else "MISMATCH\n" + "\n".join(bad)))

    cpus = min(os.cpu_count(), len(os.sched_getaffinity(0)))
    budget = max(1, cpus // ranks)
    threads = np.load(os.path.join(results, "threads.npy")).reshape(ranks, 2)
    want_omp = int(omp) if omp else budget
    ok = all(t[0] == want_omp and t[1] == budget for t in threads.tolist())
    print(f"thread budget: {'ok' if ok else threads.tolist()} "
          f"(OMP {want_omp}, OpenBLAS {budget} per rank)")

    with open(trace_file) as f:
        events = json.load(f)
    plan_tasks = open(os.path.join(directory, "plan.txtpb")).read().count(
        "tasks {")
    pids = sorted({e["pid"] for e in events})
    per_task = {}
    for e in events:
        per_task.setdefault(e["args"]["task"], []).append(e["args"]["step"])
    complete = len(per_task) == plan_tasks and all(
        sorted(s) == list(range(steps)) for s in per_task.values())
    starts = [e["ts"] for e in events]
    print(f"trace: pids {pids}, tids {sorted({e['tid'] for e in events})}, "
          f"every task every step: {complete}, sorted: "
          f"{starts == sorted(starts)}, non-negative: {min(starts) >= 0}")


def failing(kind, directory):
    """Rank 1 fails; rank 0 waits for it in an all-reduce."""
    plan = Plan(2)
    tag = plan.new_tag()
    for rank in (0, 1):
        a = plan.persistent(f"a r{rank}", "f32", np.ones(4, np.float32), rank)
        b = plan.regst(f"b r{rank}", "f32", [4], rank)
        symbol = "test_copy_f32"
        if rank == 1:
            symbol = {"symbol": "missing_on_rank_1", "exit": "test_exit_3",
                      "throw": "test_throw"}[kind]
        plan.kernel(f"copy r{rank}", rank, symbol, (a,), (b,))
        c = plan.regst(f"c r{rank}", "f32", [4], rank)
        plan.collective(f"sum r{rank}", rank, "ALL_REDUCE", (b,), (c,),
                        (0, 1), tag=tag)
        if rank == 0:
            plan.output("c", "f32", [4], c)
    plan.write(directory)


def mismatch(directory):
    plan = Plan(2)
    tag = plan.new_tag()
    for rank in (0, 1):
        a = plan.persistent(f"a r{rank}", "f32", np.ones((2, 2), np.float32),
                            rank)
        shape = [4, 2] if rank == 0 else [2, 4]
        b = plan.regst(f"b r{rank}", "f32", shape, rank)
        plan.collective(f"gather r{rank}", rank, "ALL_GATHER", (a,), (b,),
                        (0, 1), axis=rank, tag=tag)
        if rank == 0:
            plan.output("b", "f32", shape, b)
    plan.write(directory)


def deadlock(directory):
    plan = Plan(2)
    tags = [plan.new_tag(), plan.new_tag()]
    regs = {}
    for rank in (0, 1):
        regs[rank] = plan.persistent(f"a r{rank}", "f32",
                                     np.ones(2, np.float32), rank)
    order = {0: [0, 1], 1: [1, 0]}
    outs = {}
    for rank in (0, 1):
        for which in order[rank]:
            out = plan.regst(f"s{which} r{rank}", "f32", [2], rank)
            plan.collective(f"sum{which} r{rank}", rank, "ALL_REDUCE",
                            (regs[rank],), (out,), (0, 1), tag=tags[which])
            outs[(rank, which)] = out
    plan.output("s0", "f32", [2], outs[(0, 0)])
    plan.write(directory)


def bench(directory, mib):
    plan = Plan(2)
    n = int(mib * 2**20 // 4)
    tag = plan.new_tag()
    for rank in (0, 1):
        a = plan.regst(f"a r{rank}", "f32", [n], rank, persistent=True)
        b = plan.regst(f"b r{rank}", "f32", [n], rank)
        plan.collective(f"allreduce r{rank}", rank, "ALL_REDUCE", (a,), (b,),
                        (0, 1), tag=tag)
    plan.write(directory)


def watchdog(ranks, kind, directory):
    plan = Plan(ranks)
    tag = plan.new_tag() if kind == "steady" else 0
    for rank in range(ranks):
        if kind == "hang" and rank != ranks - 1:
            continue
        a = plan.persistent(f"a r{rank}", "f32",
                            np.arange(4, dtype=np.float32) + rank, rank)
        b = plan.regst(f"b r{rank}", "f32", [4], rank)
        if kind == "hang":
            plan.kernel(f"hang r{rank}", rank, "test_hang", (a,), (b,))
            plan.output_from("b", "f32", [4], rank, b)
            continue
        plan.kernel(f"copy r{rank}", rank, "test_copy_100ms_f32", (a,), (b,))
        if ranks == 1:
            plan.output("sum", "f32", [4], b)
            continue
        c = plan.regst(f"c r{rank}", "f32", [4], rank)
        plan.collective(f"sum r{rank}", rank, "ALL_REDUCE", (b,), (c,),
                        list(range(ranks)), tag=tag)
        if rank == 0:
            plan.output("sum", "f32", [4], c)
    plan.write(directory)


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "collectives":
        collectives(int(sys.argv[2]), sys.argv[3])
    elif command == "check":
        check(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5],
              int(sys.argv[6]), sys.argv[7] if len(sys.argv) > 7 else None)
    elif command == "failing":
        failing(sys.argv[2], sys.argv[3])
    elif command == "mismatch":
        mismatch(sys.argv[2])
    elif command == "deadlock":
        deadlock(sys.argv[2])
    elif command == "watchdog":
        watchdog(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    elif command == "bench":
        bench(sys.argv[2], float(sys.argv[3]))
    else:
        sys.exit(f"unknown command {command}")
