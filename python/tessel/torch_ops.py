"""tessel as torch custom ops: ``torch.ops.tessel.mm``, ``torch.ops.tessel.linear`` and
``torch.ops.tessel.linear_act`` (bias and activation in the GEMM's epilogue).

Registered with ``torch.library`` with fake (meta) implementations, so
``torch.compile(fullgraph=True)`` traces models that call them; scratch memory
comes from torch's caching allocator while a CUDA graph is captured, so capture works.
"""
from typing import Optional, Tuple

import torch

from . import linear as _linear
from . import matmul as _matmul


@torch.library.custom_op("tessel::mm", mutates_args=())
def mm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a @ b for 2-D CUDA tensors of float32, float16 or bfloat16 (the output in a's dtype)."""
    return _matmul(a, b)


@mm.register_fake
def _mm_fake(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    torch._check(a.dim() == 2 and b.dim() == 2, lambda: "tessel::mm takes 2-D tensors")
    torch._check(a.shape[1] == b.shape[0], lambda: "tessel::mm: the inner sizes differ")
    return a.new_empty((a.shape[0], b.shape[1]))


@torch.library.custom_op("tessel::linear", mutates_args=())
def linear(x: torch.Tensor, w: torch.Tensor, bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    """x @ w.T + bias in the nn.Linear layout (x is (..., in), w is (out, in))."""
    return _linear(x, w, bias)


@linear.register_fake
def _linear_fake(x: torch.Tensor, w: torch.Tensor, bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    torch._check(w.dim() == 2, lambda: "tessel::linear: w must be 2-D")
    torch._check(x.shape[-1] == w.shape[1], lambda: "tessel::linear: x's last size differs from w's in")
    return x.new_empty((*x.shape[:-1], w.shape[0]))


def _mm_setup(ctx, inputs, output):
    ctx.save_for_backward(*inputs)


def _mm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_a = mm(grad, b.T) if ctx.needs_input_grad[0] else None
    grad_b = mm(a.T, grad) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b


mm.register_autograd(_mm_backward, setup_context=_mm_setup)


def _linear_setup(ctx, inputs, output):
    x, w, bias = inputs
    ctx.save_for_backward(x, w)
    ctx.has_bias = bias is not None


def _linear_backward(ctx, grad):
    x, w = ctx.saved_tensors
    rows, g = x.reshape(-1, x.shape[-1]), grad.reshape(-1, grad.shape[-1])
    grad_x = mm(g, w).reshape(x.shape) if ctx.needs_input_grad[0] else None  # input gradient: NN
    grad_w = mm(g.T, rows) if ctx.needs_input_grad[1] else None  # weight gradient: TN
    grad_b = g.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None
    return grad_x, grad_w, grad_b


linear.register_autograd(_linear_backward, setup_context=_linear_setup)


@torch.library.custom_op("tessel::linear_act", mutates_args=())
def linear_act(x: torch.Tensor, w: torch.Tensor, bias: Optional[torch.Tensor],
               activation: str) -> Tuple[torch.Tensor, torch.Tensor]:
    """act(x @ w.T + bias) and act's input (kept for the backward pass), from one call."""
    return _linear(x, w, bias, activation=activation, return_pre=True)


@linear_act.register_fake
def _linear_act_fake(x, w, bias, activation):
    out = _linear_fake(x, w, bias)
    return out, torch.empty_like(out)


def _linear_act_setup(ctx, inputs, output):
    x, w, bias, activation = inputs
    ctx.save_for_backward(x, w, output[1])
    ctx.has_bias, ctx.activation = bias is not None, activation


# The activation's derivative applied to the incoming gradient, by torch's own backward kernels.
_ACT_BACKWARD = {
    "relu": lambda g, pre: torch.ops.aten.threshold_backward(g, pre, 0),
    "gelu": lambda g, pre: torch.ops.aten.gelu_backward(g, pre, approximate="none"),
    "gelu_tanh": lambda g, pre: torch.ops.aten.gelu_backward(g, pre, approximate="tanh"),
    "silu": lambda g, pre: torch.ops.aten.silu_backward(g, pre),
    "none": lambda g, pre: g,
}


def _linear_act_backward(ctx, grad, _grad_pre):
    x, w, pre = ctx.saved_tensors
    g = _ACT_BACKWARD[ctx.activation](grad, pre)
    rows, g = x.reshape(-1, x.shape[-1]), g.reshape(-1, g.shape[-1])
    grad_x = mm(g, w).reshape(x.shape) if ctx.needs_input_grad[0] else None
    grad_w = mm(g.T, rows) if ctx.needs_input_grad[1] else None
    grad_b = g.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None
    return grad_x, grad_w, grad_b, None


linear_act.register_autograd(_linear_act_backward, setup_context=_linear_act_setup)


class Linear(torch.nn.Linear):
    """nn.Linear whose forward (and backward) run through tessel; with ``activation``
    ("relu", "gelu", "gelu_tanh", "silu") the activation runs in the same call."""

    def __init__(self, *args, activation: Optional[str] = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.activation = activation

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.activation is None:
            return linear(x, self.weight, self.bias)
        return linear_act(x, self.weight, self.bias, self.activation)[0]
