"""Exceptions raised by oneflow_mlir."""


class CompileError(RuntimeError):
    """The compiler (or the frontend) rejected the model.

    diagnostics: the compiler's located diagnostics, one per line
    (`node 'blocks.0.attn.qkv': ...`), when it came from oneflow-opt.
    """

    def __init__(self, message, diagnostics=None):
        super().__init__(message)
        self.diagnostics = diagnostics or []


class UnsupportedOpsError(CompileError):
    """Aten ops without a mapping to the oneflow dialect, all at once.

    ops: {aten op: sorted module paths that use it}.
    """

    def __init__(self, ops):
        self.ops = {op: sorted(paths) for op, paths in sorted(ops.items())}
        lines = [f"{len(self.ops)} aten op(s) have no oneflow mapping:"]
        for op, paths in self.ops.items():
            lines.append(f"  {op}: used by {', '.join(repr(p) for p in paths)}")
        super().__init__("\n".join(lines))


class TrainModeError(CompileError):
    """g(x) with the model in training mode (g(x) follows model.training, as
    calling the module would) reached an op whose training behavior an
    inference graph does not have: dropout (random masks) or batch norm with
    batch statistics. Call model.eval() first, or train with g.fit."""


class RunError(RuntimeError):
    """oneflow-run failed; the message carries its diagnostics."""
