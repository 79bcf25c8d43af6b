#!/usr/bin/env python3
"""Writes a GPT-2/3-style decoder directly in the `oneflow` dialect, with no weights.

Every parameter is a `oneflow.variable` with an initializer (`#oneflow.init<...>`) instead of data,
so a model of any size (GPT-3 175B: --layers 96 --hidden 12288 --heads 96 --seq 2048 --vocab 51200)
is a small text file, and each rank of a plan draws its own shard at load time.

The model (GPT-2 layout, as python/models/gpt.py and its ONNX export express it):
  tokens [B, T] i64 -> wte gather + wpe (one position row per position)
  L x pre-LN block: x += proj(attn(ln_1(x))), x += mlp.proj(gelu(mlp.fc(ln_2(x))))
      attention: a fused QKV projection split in three, heads by reshape/transpose, causal mask
  ln_f -> LM head (its own weight, or wte transposed with --tied-embeddings) -> logits [B, T, V]
Linear weights are stored [in, out] (as the ONNX export's MatMul initializers).

Initialization (GPT-2): linear and embedding weights normal(0, 0.02), the residual projections
(attn.proj, mlp.proj) normal(0, 0.02 / sqrt(2 * layers)), biases zeros, layer-norm weights ones and
biases zeros. All draw from one --seed; each variable's stream is its name's.

Training: `oneflow-opt gpt.mlir --train --label=labels ...` adds the mean cross-entropy of the
logits against integer labels [B, T] (oneflow-add-loss), as for the ONNX GPT.
"""

import argparse
import math
import sys

# f32 only: the CPU and CUDA backends lower no bf16/f16 products yet.
DTYPE, NEG_INF = "f32", "0xFF800000"


def mlir_float(value):
    """A float literal MLIR parses back to the same double (it needs a '.')."""
    text = repr(float(value))
    if "." not in text and "inf" not in text and "nan" not in text:
        mantissa, _, exponent = text.partition("e")
        text = mantissa + ".0" + ("e" + exponent if exponent else "")
    return text


# Lines before the first op: two comments, the module and the function.
HEADER_LINES = 4


class Writer:
    def __init__(self, seed, path):
        self.dtype, self.neg_inf = DTYPE, NEG_INF
        self.seed = seed
        self.lines = []
        self.next_value = 0
        # Ops are located at the module they belong to ("blocks.3.attn"), which diagnostics and
        # traces show as the node name.
        self.scope = "embeddings"
        self.path = path

    def ty(self, *shape, dtype=None):
        return "tensor<" + "".join(f"{d}x" for d in shape) + (dtype or self.dtype) + ">"

    def emit(self, text, results=1, loc=None):
        name = f"%{self.next_value}"
        self.next_value += 1
        # The op's own line and column too, as the parser would give it.
        line = HEADER_LINES + len(self.lines) + 1
        self.lines.append(f"    {name}{':' + str(results) if results > 1 else ''} = {text}"
                          f" loc(\"{loc or self.scope}\"(\"{self.path}\":{line}:5))")
        return name

    def variable(self, name, shape, init):
        return self.emit(f"oneflow.variable @{name} {{initializer = #oneflow.init<{init}>}} : "
                         + self.ty(*shape), loc=name)

    def normal(self, name, shape, std):
        return self.variable(name, shape, f"normal, mean = 0.0, std = {mlir_float(std)}, seed = {self.seed}")

    def zeros(self, name, shape):
        return self.variable(name, shape, "zeros")

    def ones(self, name, shape):
        return self.variable(name, shape, "ones")

    def binary(self, op, a, ta, b, tb, tr):
        return self.emit(f"oneflow.{op} {a}, {b} : ({ta}, {tb}) -> {tr}")

    def matmul(self, x, tx, w, tw, tr, transpose_b=False):
        attrs = " {transpose_b}" if transpose_b else ""
        return self.emit(f"oneflow.batch_matmul {x}, {w}{attrs} : ({tx}, {tw}) -> {tr}")

    def layer_norm(self, x, tx, prefix, hidden):
        w = self.ones(f"{prefix}.weight", [hidden])
        b = self.zeros(f"{prefix}.bias", [hidden])
        th = self.ty(hidden)
        return self.emit(f"oneflow.layer_norm {x}, {w}, {b} {{axis = 2 : i64, epsilon = 1.0E-5 : f64}}"
                         f" : ({tx}, {th}, {th}) -> {tx}")

    def reshape(self, x, tx, tr):
        return self.emit(f"oneflow.reshape {x} : {tx} to {tr}")

    def transpose(self, x, tx, perm, tr):
        return self.emit(f"oneflow.transpose {x} {{perm = array<i64: {', '.join(map(str, perm))}>}}"
                         f" : {tx} -> {tr}")


def write_gpt(args, out):
    L, H, A, T, V, B = args.layers, args.hidden, args.heads, args.seq, args.vocab, args.batch
    hd = H // A
    w = Writer(args.seed, "<stdin>" if args.output == "-" else args.output)
    std = 0.02
    residual_std = 0.02 / math.sqrt(2 * L)
    tx = w.ty(B, T, H)

    # Embeddings: the token table gathered, plus one position row per position.
    wte = w.normal("wte.weight", [V, H], std)
    wpe = w.normal("wpe.weight", [T, H], std)
    tokens_emb = w.emit(f"oneflow.gather {wte}, %tokens : ({w.ty(V, H)}, {w.ty(B, T, dtype='i64')})"
                        f" -> {tx}")
    x = w.binary("add", tokens_emb, tx, wpe, w.ty(T, H), tx)

    w.scope = "mask"
    # Shared by every layer: the scale of the scores, the causal mask (key position > query
    # position) and the value masked positions take.
    scale = w.emit(f"oneflow.constant dense<{mlir_float(1.0 / math.sqrt(hd))}> : {w.ty()}")
    neg_inf = w.emit(f"oneflow.constant dense<{w.neg_inf}> : {w.ty()}")
    positions = ", ".join(str(t) for t in range(T))
    rows = w.emit(f"oneflow.constant dense<[{', '.join(f'[{t}]' for t in range(T))}]> : "
                  + w.ty(T, 1, dtype="i64"))
    cols = w.emit(f"oneflow.constant dense<[[{positions}]]> : " + w.ty(1, T, dtype="i64"))
    mask = w.binary("greater", cols, w.ty(1, T, dtype="i64"), rows, w.ty(T, 1, dtype="i64"),
                    w.ty(T, T, dtype="i1"))

    t_heads = w.ty(B, T, A, hd)
    t_bhtd = w.ty(B, A, T, hd)
    t_bhdt = w.ty(B, A, hd, T)
    t_scores = w.ty(B, A, T, T)
    for i in range(L):
        p = f"blocks.{i}"
        # Attention.
        w.scope = f"{p}.attn"
        h = w.layer_norm(x, tx, f"{p}.ln_1", H)
        qkv_w = w.normal(f"{p}.attn.qkv.weight", [H, 3 * H], std)
        qkv_b = w.zeros(f"{p}.attn.qkv.bias", [3 * H])
        t3 = w.ty(B, T, 3 * H)
        qkv = w.matmul(h, tx, qkv_w, w.ty(H, 3 * H), t3)
        qkv = w.binary("add", qkv_b, w.ty(3 * H), qkv, t3, t3)
        split = w.emit(f"oneflow.split {qkv} {{axis = 2 : i64, sizes = array<i64: {H}, {H}, {H}>}}"
                       f" : {t3} -> {tx}, {tx}, {tx}", results=3)
        q = w.transpose(w.reshape(f"{split}#0", tx, t_heads), t_heads, [0, 2, 1, 3], t_bhtd)
        k = w.transpose(w.reshape(f"{split}#1", tx, t_heads), t_heads, [0, 2, 3, 1], t_bhdt)
        v = w.transpose(w.reshape(f"{split}#2", tx, t_heads), t_heads, [0, 2, 1, 3], t_bhtd)
        scores = w.matmul(q, t_bhtd, k, t_bhdt, t_scores)
        scores = w.binary("mul", scores, t_scores, scale, w.ty(), t_scores)
        scores = w.emit(f"oneflow.where {mask}, {neg_inf}, {scores} : ({w.ty(T, T, dtype='i1')}, "
                        f"{w.ty()}, {t_scores}) -> {t_scores}")
        probs = w.emit(f"oneflow.softmax {scores} {{axis = 3 : i64}} : {t_scores}")
        y = w.matmul(probs, t_scores, v, t_bhtd, t_bhtd)
        y = w.reshape(w.transpose(y, t_bhtd, [0, 2, 1, 3], t_heads), t_heads, tx)
        proj_w = w.normal(f"{p}.attn.proj.weight", [H, H], residual_std)
        proj_b = w.zeros(f"{p}.attn.proj.bias", [H])
        y = w.matmul(y, tx, proj_w, w.ty(H, H), tx)
        y = w.binary("add", proj_b, w.ty(H), y, tx, tx)
        x = w.binary("add", x, tx, y, tx, tx)
        # MLP.
        w.scope = f"{p}.mlp"
        h = w.layer_norm(x, tx, f"{p}.ln_2", H)
        t4 = w.ty(B, T, 4 * H)
        fc_w = w.normal(f"{p}.mlp.fc.weight", [H, 4 * H], std)
        fc_b = w.zeros(f"{p}.mlp.fc.bias", [4 * H])
        h = w.matmul(h, tx, fc_w, w.ty(H, 4 * H), t4)
        h = w.binary("add", fc_b, w.ty(4 * H), h, t4, t4)
        h = w.emit(f"oneflow.gelu {h} {{approximate = #oneflow.gelu_approximation<{args.gelu}>}}"
                   f" : {t4}")
        mp_w = w.normal(f"{p}.mlp.proj.weight", [4 * H, H], residual_std)
        mp_b = w.zeros(f"{p}.mlp.proj.bias", [H])
        h = w.matmul(h, t4, mp_w, w.ty(4 * H, H), tx)
        h = w.binary("add", mp_b, w.ty(H), h, tx, tx)
        x = w.binary("add", x, tx, h, tx, tx)

    w.scope = "head"
    x = w.layer_norm(x, tx, "ln_f", H)
    tl = w.ty(B, T, V)
    if args.tied_embeddings:
        # The LM head reads the token table: one variable, two uses.
        logits = w.matmul(x, tx, wte, w.ty(V, H), tl, transpose_b=True)
    else:
        head = w.normal("lm_head.weight", [H, V], std)
        logits = w.matmul(x, tx, head, w.ty(H, V), tl)

    params = V * H + T * H + L * (12 * H * H + 13 * H) + 2 * H + (0 if args.tied_embeddings else H * V)
    flags = (f"--layers {L} --hidden {H} --heads {A} --seq {T} --vocab {V} --batch {B} --seed {args.seed}"
             f" --gelu {args.gelu}" + (" --tied-embeddings" if args.tied_embeddings else ""))
    out.write(f"// Generated by python/models/gpt_config.py {flags}\n")
    out.write(f"// {params} parameters, every one drawn from an initializer at load time.\n")
    out.write("module {\n")
    out.write(f"  func.func @main(%tokens: {w.ty(B, T, dtype='i64')} {{onnx.name = \"tokens\"}})"
              f" -> ({tl} {{onnx.name = \"logits\"}}) {{\n")
    out.write("\n".join(w.lines))
    out.write(f"\n    return {logits} : {tl}\n  }}\n}}\n")
    return params


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layers", type=int, required=True)
    parser.add_argument("--hidden", type=int, required=True)
    parser.add_argument("--heads", type=int, required=True)
    parser.add_argument("--seq", type=int, required=True, help="context length T")
    parser.add_argument("--vocab", type=int, required=True)
    parser.add_argument("--batch", type=int, required=True)
    parser.add_argument("--tied-embeddings", action="store_true",
                        help="the LM head multiplies by the token embedding (one shared variable)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every initializer (default 0)")
    parser.add_argument("--gelu", choices=["tanh", "none"], default="tanh",
                        help="GELU form: tanh approximation (GPT-2) or none (erf)")
    parser.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    args = parser.parse_args(argv)
    for flag in ("layers", "hidden", "heads", "seq", "vocab", "batch"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag} must be positive")
    if args.hidden % args.heads:
        parser.error(f"--hidden {args.hidden} is not a multiple of --heads {args.heads}")
    if not 0 <= args.seed < 2 ** 64:
        parser.error("--seed must be in [0, 2^64)")
    if args.output == "-":
        write_gpt(args, sys.stdout)
    else:
        with open(args.output, "w") as out:
            write_gpt(args, out)


if __name__ == "__main__":
    main()
