#!/usr/bin/env python3
"""Prints the conv2d shapes of the torchvision models that
bench/inference_vs_onnxruntime.py times (batch 1 and 8, its image sizes),
one per line as oneflow-conv-paths-bench reads them:

  name n c h w o kh kw oh ow sh sw pt pl dh dw groups bias

  /usr/bin/python3 bench/conv_shapes.py | build/bin/oneflow-conv-paths-bench
"""

import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from inference_vs_onnxruntime import TORCHVISION  # noqa: E402


def main():
    shapes = set()
    for name, (kwargs, size) in TORCHVISION.items():
        model = getattr(torchvision.models, name)(weights=None, **kwargs).eval()
        for batch in (1, 8):
            def hook(module, inputs, output):
                n, c, h, w = inputs[0].shape
                pad = module.padding
                if not isinstance(pad, tuple):  # "same" / "valid" strings
                    pad = (0, 0)
                shapes.add((name, n, c, h, w, output.shape[1], *module.kernel_size,
                            output.shape[2], output.shape[3], *module.stride, *pad,
                            *module.dilation, module.groups,
                            int(module.bias is not None)))
            hooks = [m.register_forward_hook(hook) for m in model.modules()
                     if isinstance(m, torch.nn.Conv2d)]
            with torch.no_grad():
                model(torch.randn(batch, 3, size, size))
            for h in hooks:
                h.remove()
    for shape in sorted(shapes):
        print(*shape)


if __name__ == "__main__":
    main()
