"""Aten-level traces of PyTorch modules.

trace(module, example_inputs) runs the module's forward under make_fx with
its parameters and buffers passed in by name (functional_call), so that they
are graph inputs rather than constants. Every node of the trace records the
path of the innermost module whose forward was running when it was created
("blocks.3.attn.qkv"), from forward hooks; the emitter turns it into the MLIR
location of the op.
"""

import contextlib

import torch
from torch.fx.experimental import proxy_tensor
from torch.fx.experimental.proxy_tensor import make_fx
from torch.nn.utils.stateless import functional_call


class Trace:
    """A traced forward.

    graph: the torch.fx graph (aten ops).
    params: {name: tensor}, the state tensors the graph reads, by their first
        name in the module's state_dict (placeholders in this order come
        first).
    aliases: {name: canonical name}, for every state_dict entry (tied
        parameters map several names to one).
    inputs: the example inputs (placeholders after the params).
    """

    def __init__(self, graph, params, aliases, inputs, state_names):
        self.graph = graph
        self.params = params
        self.aliases = aliases
        self.inputs = inputs
        self.state_names = state_names


@contextlib.contextmanager
def _module_paths(module):
    """Forward hooks keeping the stack of running module paths, and a patch
    of make_fx's tracer recording the innermost path on each new node."""
    stack = [""]
    handles = []
    for name, sub in module.named_modules():
        def pre(_m, _args, name=name):
            stack.append(name)

        def post(_m, _args, _out):
            stack.pop()

        handles.append(sub.register_forward_pre_hook(pre))
        handles.append(sub.register_forward_hook(post))
    tracer = proxy_tensor.PythonKeyTracer
    original = tracer.create_node

    def create_node(self, *args, **kwargs):
        node = original(self, *args, **kwargs)
        node.meta["module_path"] = stack[-1]
        return node

    tracer.create_node = create_node
    try:
        yield
    finally:
        tracer.create_node = original
        for h in handles:
            h.remove()


def state_names(module):
    """The canonical names of the module's state (tied entries once)."""
    seen, names = set(), []
    for name, tensor in module.state_dict(keep_vars=True).items():
        if id(tensor) not in seen:
            seen.add(id(tensor))
            names.append(name)
    return names


def trace(module, example_inputs):
    """Traces module(*example_inputs) in its current mode (train/eval)."""
    state = module.state_dict(keep_vars=True)
    params, aliases, by_id = {}, {}, {}
    for name, tensor in state.items():
        key = id(tensor)
        if key not in by_id:
            by_id[key] = name
            # Parameters keep requires_grad, so that modules take their
            # composite (training) paths, not inference fast paths such as
            # nn.MultiheadAttention's fused kernel.
            # Buffers are copied: a train-mode trace updates batch-norm
            # statistics in place, which must change neither the module nor
            # the weights handed to the compiler.
            is_param = isinstance(tensor, torch.nn.Parameter)
            value = tensor.detach() if is_param else tensor.detach().clone()
            params[name] = value.requires_grad_(is_param and tensor.requires_grad)
        aliases[name] = by_id[key]
    names = list(params)

    def forward(flat_params, *inputs):
        full = {alias: flat_params[canon] for alias, canon in aliases.items()}
        return functional_call(module, full, inputs)

    # The traced forward runs for real and may update buffers (batch-norm
    # statistics in train mode): it gets copies, params keeps the values.
    traced = {n: (v if isinstance(state[n], torch.nn.Parameter) else v.clone())
              for n, v in params.items()}
    with _module_paths(module):
        gm = make_fx(forward)(traced, *example_inputs)
    return Trace(gm.graph, params, aliases, tuple(example_inputs), names), gm
