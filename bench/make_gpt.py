#!/usr/bin/env python3
"""Writes the GPT decoder of issue 17 ("Fast compiles") as ONNX: d=32, 4
heads, seq 16, vocab 128, batch 64, any number of layers (8 and 128 are the
benchmark's). bench/compile_times.py makes its inputs with it; by hand:

  /usr/bin/python3 bench/make_gpt.py --layers 128 -o /tmp/gpt128.onnx
"""

import argparse
import os
import sys
import warnings

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python", "models"))
import gpt as gpt_model  # noqa: E402

VOCAB, SEQ, D_MODEL, HEADS, BATCH = 128, 16, 32, 4, 64


def make_gpt(layers, path):
    """Exports the `layers`-layer GPT (seed 0) to `path`."""
    torch.manual_seed(0)
    model = gpt_model.GPT(vocab_size=VOCAB, block_size=SEQ, d_model=D_MODEL,
                          n_head=HEADS, n_layer=layers).eval()
    tokens = torch.randint(0, VOCAB, (BATCH, SEQ))
    # The tracer's note on the attention scale (a Python float) and the
    # exporter's on constant folding (the model is in eval mode) are noise.
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    warnings.filterwarnings("ignore", message="It is recommended that constant")
    torch.onnx.export(model, (tokens,), path, opset_version=17,
                      input_names=["tokens"], output_names=["logits"],
                      do_constant_folding=True,
                      training=torch.onnx.TrainingMode.PRESERVE)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    make_gpt(args.layers, args.output)


if __name__ == "__main__":
    main()
