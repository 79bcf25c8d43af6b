"""oneflow_mlir: compile, run and train PyTorch modules with OneFlow-MLIR.

    import oneflow_mlir as ofm
    g = ofm.compile(model, example_inputs=(x,), mesh=(2, 2), strategy=("data", "tensor"))
    y = g(x)

The module's forward is traced at the aten level (make_fx), written as
`oneflow` dialect MLIR with its weights in a side directory, and compiled
and run by build/bin/oneflow-opt and oneflow-run (ONEFLOW_MLIR_BIN overrides
where they are). See README.md, "Python frontend".
"""

from .errors import CompileError, RunError, TrainModeError, UnsupportedOpsError
from .graph import (AdamW, Broadcast, Graph, Partial, Replicate, SGD, Shard, Split, Stages,
                    Train, compile)
from .trace import trace

__all__ = ["AdamW", "Broadcast", "CompileError", "Graph", "Partial", "Replicate", "RunError",
           "SGD", "Shard", "Split", "Stages", "Train", "TrainModeError", "UnsupportedOpsError",
           "compile", "trace"]
