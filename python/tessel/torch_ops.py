"""tessel as torch custom ops: ``torch.ops.tessel.mm`` and ``torch.ops.tessel.linear``.

Registered with ``torch.library`` with fake (meta) implementations, so
``torch.compile(fullgraph=True)`` traces models that call them; scratch memory
comes from torch's caching allocator, so CUDA graph capture works.
"""
from typing import Optional

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


class Linear(torch.nn.Linear):
    """nn.Linear whose forward (and backward) run through tessel."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return linear(x, self.weight, self.bias)
