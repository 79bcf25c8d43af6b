"""Training plans for oneflow-run (ASSIGN tasks, variables, a loss output)
written by hand on the runtime's test kernels, with their data and the
results NumPy expects.

  train.py plan DIR        a 1-rank plan: w += x + c each step, loss = sum(w)
  train.py multirank DIR   the same on 2 ranks, variable w [2,4] split in two
                           column halves (one per rank), b replicated
  train.py check-metrics METRICS FIRST STEPS [SEED]
                           the metrics lines of steps FIRST.. against NumPy
                           (SEED: the data were shuffled with it)
  train.py check-ckpt CKPT STEP [SEED]        the 1-rank plan's checkpoint
  train.py check-onnx MODEL STEP [SEED]       its --export-onnx model
  train.py check-multirank-ckpt CKPT STEP     the 2-rank plan's checkpoint
  train.py edit-manifest CKPT WHAT   breaks a checkpoint (for --load errors)

The 1-rank plan (DIR/plan.txtpb, weights.bin, model.onnx, data files):
  variables  "dense/w:0" f32[4] (trained; weights 1 2 3 4),
             "b" f32[4] (frozen; 10 20 30 40; read by a kernel),
             "dense/w:0.momentum" f32[4] (optimizer state, used by no task)
  inputs     x f32[2,2] (a batch of 2 samples of f32[2]: --data x.npy, 5
             samples), c f32[4] (--input c.npy: 0.25 each)
  compute    xc = x + c; updated = w + xc; loss = sum(updated);
             bx = b + x (output "bx"); ASSIGN updated -> w, waiting for
             "read w" (comm), which copies w to output "old"
Step s feeds samples i*2, i*2+1 of the epoch order (file order, or the
documented shuffle with SEED), so w after s steps and every loss are known
exactly (float32 sums of binary fractions).
"""
import json
import os
import sys

import numpy as np

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
N_SAMPLES = 5
BATCH = 2
W0 = np.array([1, 2, 3, 4], np.float32)
B0 = np.array([10, 20, 30, 40], np.float32)
MOMENTUM0 = np.array([0.5, 0.5, 0.5, 0.5], np.float32)
C = np.full(4, 0.25, np.float32)
X = (np.arange(N_SAMPLES * 2, dtype=np.float32).reshape(N_SAMPLES, 2) + 1) / 2


def permutation(seed, epoch, n):
    """The shuffle documented in docs/runtime.md (SplitMix64 Fisher-Yates)."""
    state = (seed ^ (epoch * GOLDEN)) & MASK
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        state = (state + GOLDEN) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        z ^= z >> 31
        j = z % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def batch_indices(step, seed):
    indices = []
    for j in range(BATCH):
        position = step * BATCH + j
        epoch, index = divmod(position, N_SAMPLES)
        indices.append(permutation(seed, epoch, N_SAMPLES)[index]
                       if seed is not None else index)
    return indices


def simulate(steps, seed):
    """(w after `steps` steps, the loss of every step), in float32."""
    w = W0.copy()
    losses = []
    for step in range(steps):
        x = X[batch_indices(step, seed)].reshape(4)
        w = w + (x + C)
        total = np.float32(0)
        for v in w:
            total = np.float32(total + v)
        losses.append(float(total))
    return w, losses


class Plan:
    def __init__(self, ranks):
        self.ranks = ranks
        self.regsts, self.tasks, self.inputs, self.outputs = [], [], [], []
        self.weights = bytearray()

    def regst(self, name, shape, rank=0, slots=1, persistent=False,
              offset=-1, variable=None):
        rid = len(self.regsts)
        size = 4 * int(np.prod(shape, dtype=np.int64))
        shape_text = " ".join(f"shape: {d}" for d in shape)
        extra = ""
        if variable:
            vname, global_shape, offsets, trainable = variable
            extra = (f' variable {{ name: "{vname}" '
                     + " ".join(f"global_shape: {d}" for d in global_shape)
                     + " " + " ".join(f"offsets: {d}" for d in offsets)
                     + f" trainable: {str(trainable).lower()} }}")
        self.regsts.append(
            f'regsts {{ id: {rid} name: "{name}" desc {{ dtype: F32 '
            f'{shape_text} }} size_bytes: {size} num_slots: {slots} '
            f'persistent: {str(persistent).lower()} weights_offset: {offset} '
            f'rank: {rank}{extra} }}')
        return rid

    def weight(self, values):
        while len(self.weights) % 64:
            self.weights.append(0)
        offset = len(self.weights)
        self.weights += np.asarray(values, np.float32).tobytes()
        return offset

    def variable(self, name, values, vname, global_shape, offsets, trainable,
                 rank=0):
        values = np.asarray(values, np.float32)
        return self.regst(name, list(values.shape), rank, persistent=True,
                          offset=self.weight(values),
                          variable=(vname, global_shape, offsets, trainable))

    def task(self, kind, name, rank, stream, ins=(), outs=(), extra=""):
        tid = len(self.tasks)
        fields = [f"id: {tid}", f"kind: {kind}", f'name: "{name}"',
                  f"rank: {rank}", f'stream: "{stream}"']
        fields += [f"in_regsts: {r}" for r in ins]
        fields += [f"out_regsts: {r}" for r in outs]
        self.tasks.append("tasks { " + " ".join(fields) + " " + extra + " }")
        return tid

    def kernel(self, name, symbol, ins, outs, rank=0, stream="compute"):
        return self.task("KERNEL", name, rank, stream, ins, outs,
                         f'kernel_symbol: "{symbol}"')

    def assign(self, name, src, dst, rank=0, wait_for=()):
        return self.task("ASSIGN", name, rank, "compute", [src], [dst],
                         " ".join(f"wait_for: {t}" for t in wait_for))

    def io(self, kind, name, regst, shape, rank=0):
        spec = (f'{{ name: "{name}" desc {{ dtype: F32 '
                + " ".join(f"shape: {d}" for d in shape)
                + f" }} regst: {regst} }}")
        if kind == "INPUT":
            if not any(f'name: "{name}"' in s for s in self.inputs):
                self.inputs.append("inputs " + spec)
            return self.task("INPUT", f"input {name} r{rank}", rank, "io",
                             outs=[regst], extra=f'io_name: "{name}"')
        self.outputs.append("outputs " + spec)
        return self.task("OUTPUT", f"output {name}", rank, "io", ins=[regst],
                         extra=f'io_name: "{name}"')

    def write(self, out, extra):
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "plan.txtpb"), "w") as f:
            f.write(f"version: 1\nnum_ranks: {self.ranks}\n"
                    'kernel_library: "kernels.so"\n'
                    'weights_file: "weights.bin"\n' + extra)
            for line in (self.regsts + self.tasks + self.inputs
                         + self.outputs):
                f.write(line + "\n")
        with open(os.path.join(out, "weights.bin"), "wb") as f:
            f.write(bytes(self.weights))


def write_model(path):
    """An ONNX model whose initializers are the plan's model parameters
    (b as float16) plus a shape constant that is not a variable."""
    import onnx
    from onnx import helper, numpy_helper, TensorProto
    inits = [numpy_helper.from_array(W0, "dense/w:0"),
             numpy_helper.from_array(B0.astype(np.float16), "b"),
             numpy_helper.from_array(np.array([2, 2], np.int64), "shape")]
    nodes = [helper.make_node("Add", ["x", "dense/w:0"], ["s"]),
             helper.make_node("Cast", ["b"], ["bf"], to=TensorProto.FLOAT),
             helper.make_node("Add", ["s", "bf"], ["y"])]
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, path)


def make_plan(out):
    p = Plan(1)
    w = p.variable("w", W0, "dense/w:0", [4], [0], True)
    b = p.variable("b", B0, "b", [4], [0], False)
    p.variable("momentum", MOMENTUM0, "dense/w:0.momentum", [4], [0], True)
    x = p.regst("x", [2, 2], slots=2)
    c = p.regst("c", [4])
    xc, updated, old, bx = (p.regst(n, [4]) for n in
                            ("xc", "updated", "old", "bx"))
    loss = p.regst("loss", [])
    p.io("INPUT", "x", x, [2, 2])
    p.io("INPUT", "c", c, [4])
    read = p.kernel("read w", "test_copy_f32", [w], [old], stream="comm")
    p.kernel("x + c", "test_add_f32", [x, c], [xc])
    p.kernel("w + xc", "test_add_f32", [w, xc], [updated])
    p.kernel("loss", "test_sum_f32", [updated], [loss])
    p.kernel("b + x", "test_add_f32", [b, x], [bx])
    p.assign("assign w", updated, w, wait_for=[read])
    p.io("OUTPUT", "loss", loss, [])
    p.io("OUTPUT", "old", old, [4])
    p.io("OUTPUT", "bx", bx, [4])
    p.write(out, 'loss_output: "loss"\nsource_model: "model.onnx"\n'
            "batch_size: 2\n")
    write_model(os.path.join(out, "model.onnx"))
    data = os.path.join(out, "data")
    os.makedirs(data, exist_ok=True)
    np.save(f"{data}/x.npy", X)
    np.save(f"{data}/c.npy", C)
    np.save(f"{data}/x_3.npy", np.zeros((5, 3), np.float32))   # wrong sample
    np.save(f"{data}/x_f64.npy", X.astype(np.float64))        # wrong dtype
    np.save(f"{data}/x_4.npy", X[:4])                        # 4 samples
    np.save(f"{data}/c_4.npy", np.zeros((4, 4), np.float32))   # c as data


def make_multirank(out):
    """w f32[2,4]: rank r holds columns [2r, 2r+2) (a [2,2] piece); b f32[4]
    is replicated on both ranks; every rank adds the full x batch [2,2] to
    its piece. The loss (on rank 0) is the sum of rank 0's updated piece.
    Rank 0 also sends its piece to rank 1 every step (ASSIGN waits for the
    SEND)."""
    p = Plan(2)
    w_full = np.arange(8, dtype=np.float32).reshape(2, 4)
    pieces, xs, updated = [], [], []
    for rank in range(2):
        pieces.append(p.variable(f"w r{rank}", w_full[:, 2 * rank:2 * rank + 2],
                                 "w", [2, 4], [0, 2 * rank], True, rank))
        p.variable(f"b r{rank}", B0, "b", [4], [0], False, rank)
        xs.append(p.regst(f"x r{rank}", [2, 2], rank, slots=2))
        updated.append(p.regst(f"updated r{rank}", [2, 2], rank))
    loss = p.regst("loss", [], 0)
    received = p.regst("w r0 on r1", [2, 2], 1)
    for rank in range(2):
        p.io("INPUT", "x", xs[rank], [2, 2], rank)
        p.kernel(f"w + x r{rank}", "test_add_f32", [pieces[rank], xs[rank]],
                 [updated[rank]], rank)
        waits = []
        if rank == 0:
            p.kernel("loss", "test_sum_f32", [updated[0]], [loss], 0)
            # Rank 0 also sends its piece to rank 1 (which drops it): the
            # ASSIGN may overwrite the piece only once the send completed.
            waits.append(p.task("COLLECTIVE", "send w r0", 0, "comm", [pieces[0]],
                                extra="collective { kind: SEND group: 0 group: "
                                      "1 peer: 1 tag: 0 }"))
        else:
            p.task("COLLECTIVE", "recv w r0", 1, "comm", outs=[received],
                   extra="collective { kind: RECV group: 0 group: 1 peer: 0 "
                         "tag: 0 }")
        p.assign(f"assign w r{rank}", updated[rank], pieces[rank], rank, waits)
    p.io("OUTPUT", "loss", loss, [])
    p.write(out, 'loss_output: "loss"\nbatch_size: 2\n')
    data = os.path.join(out, "data")
    os.makedirs(data, exist_ok=True)
    np.save(f"{data}/x.npy", X)


def seed_arg(args, at):
    return int(args[at]) if len(args) > at else None


def check_metrics(args):
    path, first, steps = args[1], int(args[2]), int(args[3])
    seed = seed_arg(args, 4)
    _, losses = simulate(first + steps, seed)
    with open(path) as f:
        records = [json.loads(line) for line in f]
    assert [r["step"] for r in records] == list(range(first, first + steps)), \
        [r["step"] for r in records]
    for r in records:
        assert r["loss"] == losses[r["step"]], (r, losses[r["step"]])
        assert isinstance(r["samples_per_s"], float) and r["samples_per_s"] > 0
    print(f"metrics ok: steps {first}..{first + steps - 1}, "
          f"losses {[r['loss'] for r in records]}")


def check_ckpt(args):
    ckpt, step = args[1], int(args[2])
    seed = seed_arg(args, 3)
    with open(os.path.join(ckpt, "manifest.json")) as f:
        manifest = json.load(f)
    assert manifest["format"] == "oneflow-checkpoint", manifest
    assert manifest["step"] == step, (manifest["step"], step)
    names = sorted(v["name"] for v in manifest["variables"])
    expected = {"dense/w:0": simulate(step, seed)[0], "b": B0,
                "dense/w:0.momentum": MOMENTUM0}
    assert names == sorted(expected), names
    for v in manifest["variables"]:
        value = np.load(os.path.join(ckpt, v["file"]))
        assert v["dtype"] == "f32" and v["shape"] == [4], v
        assert v["trainable"] == (v["name"] != "b"), v
        assert np.array_equal(value, expected[v["name"]]), (v, value)
    print(f"checkpoint ok: step {step}, files {sorted(os.listdir(ckpt))}")


def check_onnx(args):
    import onnx
    from onnx import numpy_helper
    path, step = args[1], int(args[2])
    seed = seed_arg(args, 3)
    model = onnx.load(path)
    onnx.checker.check_model(model)
    inits = {t.name: t for t in model.graph.initializer}
    w = numpy_helper.to_array(inits["dense/w:0"])
    assert np.array_equal(w, simulate(step, seed)[0]), w
    assert inits["dense/w:0"].HasField("raw_data")
    b = numpy_helper.to_array(inits["b"])
    assert b.dtype == np.float16 and np.array_equal(b, B0.astype(np.float16))
    assert numpy_helper.to_array(inits["shape"]).tolist() == [2, 2]
    print(f"onnx ok: dense/w:0 = {w.tolist()}")


def check_multirank_ckpt(args):
    ckpt, step = args[1], int(args[2])
    with open(os.path.join(ckpt, "manifest.json")) as f:
        manifest = json.load(f)
    assert manifest["step"] == step
    w = np.arange(8, dtype=np.float32).reshape(2, 4)
    for s in range(step):
        x = X[batch_indices(s, None)]
        w[:, 0:2] += x
        w[:, 2:4] += x
    entries = {v["name"]: v for v in manifest["variables"]}
    assert sorted(entries) == ["b", "w"], entries
    assert entries["w"]["shape"] == [2, 4] and entries["b"]["shape"] == [4]
    got = np.load(os.path.join(ckpt, entries["w"]["file"]))
    assert np.array_equal(got, w), (got, w)
    assert np.array_equal(np.load(os.path.join(ckpt, "b.npy")), B0)
    print(f"multirank checkpoint ok: step {step}, w = {got.tolist()}")


def edit_manifest(args):
    ckpt, what = args[1], args[2]
    path = os.path.join(ckpt, "manifest.json")
    with open(path) as f:
        manifest = json.load(f)
    variables = manifest["variables"]
    if what == "mismatch":
        # b gets another shape, the momentum goes missing, an extra tensor.
        for v in variables:
            if v["name"] == "b":
                v["shape"] = [2, 2]
        manifest["variables"] = [v for v in variables
                                 if v["name"] != "dense/w:0.momentum"]
        crc = [v for v in variables if v["name"] == "b"][0].get("crc32c")
        extra = {"name": "extra", "file": "b.npy", "dtype": "f32",
                 "shape": [4]}
        if crc:
            extra["crc32c"] = crc
        manifest["variables"].append(extra)
    elif what == "short-file":
        for v in variables:
            if v["name"] == "b":
                np.save(os.path.join(ckpt, v["file"]), np.zeros(3, np.float32))
    with open(path, "w") as f:
        json.dump(manifest, f)


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "plan":
        make_plan(args[0])
    elif command == "multirank":
        make_multirank(args[0])
    else:
        {"check-metrics": check_metrics, "check-ckpt": check_ckpt,
         "check-onnx": check_onnx, "check-multirank-ckpt": check_multirank_ckpt,
         "edit-manifest": edit_manifest}[command]([None] + args)


if __name__ == "__main__":
    main()
