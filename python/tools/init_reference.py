#!/usr/bin/env python3
"""An independent NumPy implementation of the variable initializers (docs/runtime.md).

  init_reference.py check MODEL.mlir CKPT_DIR [--only NAME,...]
      Every variable of MODEL.mlir that has an `#oneflow.init<...>` initializer and a tensor in the
      checkpoint CKPT_DIR (oneflow-run --save) holds exactly the values the documented generator
      gives (f32 within one unit in the last place: libm's and NumPy's log/cos may differ there).
  init_reference.py stats MODEL.mlir CKPT_DIR
      Prints each checkpointed variable's mean and std next to its initializer's.

Element 2j and 2j+1 of a variable (row-major in its logical shape) come from
Philox4x32-10(counter = (lo32(j), hi32(j), lo32(stream), hi32(stream)), key = (lo32(seed), hi32(seed)));
stream = FNV-1a-64 of the variable's name unless the initializer gives one.
"""

import json
import math
import os
import re
import sys

import numpy as np

MASK32 = np.uint64(0xFFFFFFFF)


def philox4x32(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10 on arrays of uint64 holding 32-bit lanes."""
    m0, m1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    w0, w1 = 0x9E3779B9, 0xBB67AE85
    for _ in range(10):
        p0 = m0 * c0
        p1 = m1 * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0), p1 & MASK32,
                          (p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1), p0 & MASK32)
        k0, k1 = (k0 + w0) & 0xFFFFFFFF, (k1 + w1) & 0xFFFFFFFF
    return c0, c1, c2, c3


def fnv1a64(name):
    h = 0xCBF29CE484222325
    for byte in name.encode():
        h ^= byte
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def unit(bits):
    return (bits >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def values(init, name, count):
    """The first `count` logical elements (float64) of variable `name` under `init`."""
    kind = init["kind"]
    if kind == "zeros":
        return np.zeros(count)
    if kind == "ones":
        return np.ones(count)
    seed = init.get("seed", 0)
    stream = init.get("stream", fnv1a64(name))
    pairs = np.arange((count + 1) // 2, dtype=np.uint64)
    r0, r1, r2, r3 = philox4x32(pairs & MASK32, pairs >> np.uint64(32),
                                np.full_like(pairs, stream & 0xFFFFFFFF),
                                np.full_like(pairs, stream >> 32),
                                seed & 0xFFFFFFFF, seed >> 32)
    x = (r1 << np.uint64(32)) | r0
    y = (r3 << np.uint64(32)) | r2
    if kind == "uniform":
        a, b = init.get("a", 0.0), init.get("b", 1.0)
        out = np.stack([a + (b - a) * unit(x), a + (b - a) * unit(y)], axis=1)
    elif kind == "normal":
        mean, std = init.get("mean", 0.0), init.get("std", 1.0)
        radius = np.sqrt(-2 * np.log(unit(x) + 2.0 ** -53))
        angle = 2 * math.pi * unit(y)
        out = np.stack([mean + std * radius * np.cos(angle), mean + std * radius * np.sin(angle)],
                       axis=1)
    elif kind == "truncated_normal":
        from statistics import NormalDist
        mean, std = init.get("mean", 0.0), init.get("std", 1.0)
        a, b = init.get("a", -2.0), init.get("b", 2.0)
        lo, hi = (a - mean) / std, (b - mean) / std
        mirrored = lo >= 0
        if mirrored:
            lo, hi = -hi, -lo
        unit_normal = NormalDist()
        cdf_lo, cdf_hi = unit_normal.cdf(lo), unit_normal.cdf(hi)
        quantile = np.vectorize(lambda p: unit_normal.inv_cdf(p) if p > 0 else lo)

        def draw(bits):
            z = quantile(cdf_lo + unit(bits) * (cdf_hi - cdf_lo))
            return np.clip(mean + std * (-z if mirrored else z), a, b)

        out = np.stack([draw(x), draw(y)], axis=1)
    else:
        raise ValueError(f"unknown initializer {kind}")
    return out.reshape(-1)[:count]


VARIABLE = re.compile(r"oneflow\.variable @(\"[^\"]+\"|[\w.$-]+) \{initializer = "
                      r"#oneflow\.init<([^>]*)>\} : tensor<([^>]*)>")


def parse_model(path):
    """{name: (init dict, shape, dtype)} for every initializer variable in the MLIR text."""
    found = {}
    with open(path) as f:
        for match in VARIABLE.finditer(f.read()):
            name, spec, ty = match.groups()
            name = name.strip('"')
            fields = [field.strip() for field in spec.split(",")]
            init = {"kind": fields[0]}
            for field in fields[1:]:
                key, value = (part.strip() for part in field.split("="))
                init[key] = int(value) if key in ("seed", "stream") else float(value)
            *dims, dtype = ty.split("x")
            found[name] = (init, [int(d) for d in dims], dtype)
    return found


def checkpoint(ckpt):
    with open(os.path.join(ckpt, "manifest.json")) as f:
        manifest = json.load(f)
    return {v["name"]: os.path.join(ckpt, v["file"]) for v in manifest["variables"]}


def check(args):
    only = None
    if "--only" in args:
        i = args.index("--only")
        only = set(args[i + 1].split(","))
        del args[i:i + 2]
    model, ckpt = args
    variables = parse_model(model)
    files = checkpoint(ckpt)
    checked = 0
    for name, (init, shape, dtype) in sorted(variables.items()):
        if name not in files or (only is not None and name not in only):
            continue
        got = np.load(files[name])
        if list(got.shape) != shape:
            sys.exit(f"error: {name}: checkpoint shape {list(got.shape)}, model {shape}")
        want = values(init, name, got.size).reshape(shape)
        if dtype == "f32":
            want = want.astype(np.float32)
            # One unit in the last place: NumPy's and libm's log/cos may round differently.
            tolerance = np.spacing(np.abs(want).astype(np.float32))
        else:
            tolerance = np.spacing(np.abs(want)) * 4
        bad = np.abs(got.astype(np.float64) - want.astype(np.float64)) > tolerance
        if np.any(bad):
            i = np.unravel_index(np.argmax(bad), shape)
            sys.exit(f"error: {name}{list(i)} is {got[i]!r}, the generator gives {want[i]!r}")
        checked += 1
    if checked == 0:
        sys.exit("error: no checkpointed variable has an initializer")
    print(f"initializers match: {checked} variables")


def stats(args):
    model, ckpt = args
    variables = parse_model(model)
    files = checkpoint(ckpt)
    for name, (init, shape, _) in sorted(variables.items()):
        if name in files:
            got = np.load(files[name]).astype(np.float64)
            print(f"{name}: {init} mean {got.mean():.6g} std {got.std():.6g}")


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("check", "stats"):
        sys.exit(__doc__)
    {"check": check, "stats": stats}[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
