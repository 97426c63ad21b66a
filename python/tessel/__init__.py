"""tessel: GEMM kernels for NVIDIA GPUs, from Python.

``matmul`` and ``linear`` take torch tensors, CuPy arrays or any CUDA array
that speaks DLPack. A transposed view (``w.t()``) costs no copy: the op and
leading dimension come from the strides. Results are bitwise reproducible run
to run. With torch present, ``tessel.torch_ops`` registers ``tessel::mm`` and
``tessel::linear`` as custom ops that ``torch.compile`` and CUDA graphs take.
"""
from __future__ import annotations

from . import _tessel

__all__ = ["matmul", "matmul_list", "grouped_matmul", "masked_matmul", "linear", "list_kernels", "select_kernel",
           "precisions", "release_workspaces"]

_DTYPE_NAMES = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}
_FP8 = ("e4m3", "e5m2")


_NAME_OF_DTYPE = {}  # dtype object -> tessel's name, filled as dtypes are met (a call then looks it up once)


def _dtype_name(x) -> str:
    dtype = x.dtype
    name = _NAME_OF_DTYPE.get(dtype)
    if name is None:
        name = _DTYPE_NAMES.get(str(dtype).replace("torch.", ""))
        if name is None:
            raise TypeError(f"tessel takes float32, float16, bfloat16 and (torch) float8_e4m3fn / float8_e5m2 "
                            f"arrays, not {dtype}")
        _NAME_OF_DTYPE[dtype] = name
    return name


def _framework(x) -> str:
    module = type(x).__module__
    return "torch" if module.startswith("torch") else "cupy" if module.startswith("cupy") else "other"


def _precision(a, out, precision, b=None):
    if precision is not None:
        return precision
    ab, c = _dtype_name(a), _dtype_name(out)
    bt = ab if b is None else _dtype_name(b)
    if ab in _FP8 and bt in _FP8 and c in ("bf16", "f16", "f32"):
        return f"{ab}:{c}" if bt == ab else f"{ab}x{bt}:{c}"
    if ab == c:
        return ab
    if c == "f32" and ab in ("f16", "bf16"):
        return f"{ab}:f32"
    raise TypeError(f"no precision takes {ab} inputs and a {c} output")


def _empty(like, shape, dtype):
    if _framework(like) == "torch":
        import torch

        return torch.empty(shape, dtype=dtype, device=like.device)
    if _framework(like) == "cupy":
        import cupy

        with cupy.cuda.Device(like.device.id):
            return cupy.empty(shape, dtype=dtype)
    raise TypeError("pass out= for arrays that are neither torch tensors nor CuPy arrays")


_raw_stream = None  # torch's current stream of a device as an int (no Stream object per call), found once


def _torch_stream(device_index):
    global _raw_stream
    if _raw_stream is None:
        import torch

        _raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (
            lambda index: torch.cuda.current_stream(index).cuda_stream)
    return _raw_stream(device_index)


def _stream(x, stream):
    if stream is not None:
        return int(getattr(stream, "cuda_stream", getattr(stream, "ptr", stream)))
    if _framework(x) == "torch":
        return _torch_stream(x.get_device())
    if _framework(x) == "cupy":
        import cupy

        return cupy.cuda.get_current_stream().ptr
    return 0


def _out_dtype(a, out_dtype):
    if out_dtype is not None:
        return out_dtype
    if str(a.dtype).replace("torch.", "") in ("float8_e4m3fn", "float8_e5m2"):  # no FP8 output
        import torch

        return torch.bfloat16
    return a.dtype


def _scale_pointer(scale, like, name):
    """The device pointer of an FP8 per-tensor scale: a one-element float32 tensor on like's GPU (None: 0)."""
    if scale is None:
        return 0
    import torch

    if not isinstance(scale, torch.Tensor) or scale.dtype != torch.float32 or scale.numel() != 1:
        raise TypeError(f"{name} must be a one-element float32 torch tensor")
    if scale.device != like.device:
        raise ValueError(f"{name} is on {scale.device}, the operands on {like.device}")
    return scale.data_ptr()


def matmul(a, b, *, out=None, alpha: float = 1.0, beta: float = 0.0, precision: str | None = None,
           kernel: str | None = None, stream=None, out_dtype=None, scale_a=None, scale_b=None,
           block_scales=None):
    """``out = alpha * a @ b + beta * out`` for 2-D CUDA arrays of float32, float16 or bfloat16,
    and torch float8_e4m3fn / float8_e5m2 tensors (Hopper).

    ``out`` is allocated (dtype of ``a``, bfloat16 for FP8 inputs, or ``out_dtype``: float32
    for 16-bit and FP8 inputs, float16 for FP8) when not given; ``beta`` needs a given
    ``out``. ``precision`` ("f32", "tf32", "f16", "f16:f32", "bf16", "bf16:f32",
    "e4m3:bf16", ...) defaults to what the dtypes say ("tf32" only when asked). FP8:
    ``scale_a`` and ``scale_b`` are per-tensor dequantisation scales, one-element float32
    tensors on the GPU (read there, so they may change without a sync): the product is
    multiplied by both. Or ``block_scales=(sa, sb)``, DeepSeek-V3's block scales: ``sa`` of
    shape (m, ceil(k / 128)), one per row of ``a`` and 128 of k, ``sb`` of shape
    (ceil(n / 128), ceil(k / 128)), one per 128 x 128 block of ``b`` (k by n), or of shape
    (n, ceil(k / 128)), one per column of ``b`` and 128 of k (the weight-gradient form); float32
    torch tensors on the GPU in any strides (a row-major ``out`` only). Torch tensors may be
    batches, as in ``torch.bmm``: ``a`` (batch, m, k) and ``b`` (batch, k, n), or one of them
    2-D (shared by the batch; an expanded tensor, stride 0, is shared too), ``out`` (batch, m,
    n); one call runs them all (tessel's strided batch, ``GemmArgs::batch``). ``kernel`` runs one
    registered kernel by name (``list_kernels()``)
    instead of auto-dispatch. The call is enqueued on ``stream`` (default: the framework's
    current stream). Scratch memory, when a call needs any, comes from the framework's
    allocator while the stream is being captured into a CUDA graph (the graph owns it), and
    otherwise from tessel's own buffers, kept per stream (``release_workspaces()`` frees them).
    """
    if a.ndim == 3 or b.ndim == 3:
        return _batched(a, b, out, alpha, beta, precision, kernel, stream, out_dtype, scale_a, scale_b)
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"matmul takes 2-D arrays or 3-D torch batches (a is {a.ndim}-D, b is {b.ndim}-D); "
                         "use linear() for batches of rows")
    if out is None:
        if beta != 0.0:
            raise ValueError("beta != 0 reads out: pass out=")
        out = _empty(a, (a.shape[0], b.shape[1]), _out_dtype(a, out_dtype))
    p = _precision(a, out, precision, b)
    # Scratch memory under graph capture from the framework's allocator (other frameworks:
    # tessel's own buffers, which a CUDA graph cannot capture).
    framework = _framework(a)
    if framework == "torch":
        if not a.is_cuda:
            raise ValueError("the arrays must be on a CUDA GPU (a is on the CPU)")
        if b.get_device() != a.get_device() or out.get_device() != a.get_device():
            raise ValueError(f"a, b and out must be on one GPU (they are on {a.device}, {b.device}, {out.device})")
        fp8 = scale_a is not None or scale_b is not None or block_scales is not None
        _torch_gemm(a, b, out, alpha, beta, p, kernel, stream,
                    scales=(_scale_pointer(scale_a, a, "scale_a"), _scale_pointer(scale_b, a, "scale_b")) if fp8 else (0, 0),
                    blocks=_block_scales(block_scales, a, b) if fp8 else (None, None))
        return out
    if scale_a is not None or scale_b is not None or block_scales is not None:
        raise TypeError("scale_a, scale_b and block_scales are for torch FP8 tensors")
    allocate = (lambda nbytes: _empty(a, (nbytes,), "uint8")) if framework == "cupy" else None
    _tessel.gemm(a, b, out, float(alpha), float(beta), p, kernel or "auto", _stream(a, stream), None, allocate)
    return out


def _batched(a, b, out, alpha, beta, precision, kernel, stream, out_dtype, scale_a, scale_b):
    """matmul on a torch batch: 3-D a and/or b (a 2-D one shared), 3-D out; one strided-batch call."""
    if _framework(a) != "torch" or _framework(b) != "torch":
        raise ValueError("batches (3-D arrays) are taken as torch tensors; other arrays: 2-D only")
    if a.ndim not in (2, 3) or b.ndim not in (2, 3):
        raise ValueError(f"a batch takes 2-D or 3-D operands (a is {a.ndim}-D, b is {b.ndim}-D)")
    batch = a.shape[0] if a.ndim == 3 else b.shape[0]
    if a.ndim == 3 and b.ndim == 3 and a.shape[0] != b.shape[0]:
        raise ValueError(f"a has {a.shape[0]} matrices but b has {b.shape[0]}")
    first = lambda t: t[0] if t.ndim == 3 else t  # noqa: E731
    stride = lambda t: t.stride(0) if t.ndim == 3 else 0  # noqa: E731
    a0, b0 = first(a), first(b)
    if out is None:
        if beta != 0.0:
            raise ValueError("beta != 0 reads out: pass out=")
        out = _empty(a0, (batch, a0.shape[0], b0.shape[1]), _out_dtype(a0, out_dtype))
    if out.ndim != 3 or out.shape[0] != batch:
        raise ValueError(f"out must be 3-D with {batch} matrices, not of shape {tuple(out.shape)}")
    device = a.device
    if device.type != "cuda":
        raise ValueError("the arrays must be on a CUDA GPU (a is on the CPU)")
    if b.device != device or out.device != device:
        raise ValueError(f"a, b and out must be on one GPU (they are on {device}, {b.device}, {out.device})")
    if batch == 0:
        return out
    p = _precision(a0, out[0], precision, b0)
    allocate = lambda nbytes: _empty(a0, (nbytes,), __import__("torch").uint8)  # noqa: E731
    _tessel.gemm_described(_describe(a0), _describe(b0), _describe(out[0]), device.index, float(alpha), float(beta),
                           p, kernel or "auto", _stream(a0, stream), allocate,
                           scale_a=_scale_pointer(scale_a, a0, "scale_a"), scale_b=_scale_pointer(scale_b, a0, "scale_b"),
                           batch=(batch, stride(a), stride(b), out.stride(0)))
    return out


def matmul_list(a, b, *, out=None, alpha: float = 1.0, beta: float = 0.0, precision: str | None = None,
                kernel: str | None = None, stream=None, out_dtype=None):
    """``out[i] = alpha * a[i] @ b[i] + beta * out[i]`` for every i, in one call: problems with sizes
    of their own (cuBLAS's grouped GEMM; tessel's ``GemmArgs::problems``).

    ``a``, ``b`` (and ``out``) are sequences of 2-D torch tensors on one GPU, each problem with its
    own m, n, k, one dtype for the a's and b's, one for the outs (allocated, dtype as ``matmul``'s,
    when ``out`` is not given; ``beta`` needs it). Layouts come from the strides as in ``matmul``;
    every problem must give the same op pair (all a's row-major or all column-major, the same for
    the b's, where the outs are row-major). The sizes travel from the host with each call (so it is
    not for CUDA graph capture: ``grouped_matmul`` and ``masked_matmul`` take sizes on the device).
    Hopper (the cluster kernels). Returns the outs.
    """
    import torch

    a, b = list(a), list(b)
    if len(b) != len(a):
        raise ValueError(f"a has {len(a)} matrices but b has {len(b)}")
    if out is None:
        if beta != 0.0:
            raise ValueError("beta != 0 reads out: pass out=")
        out = [_empty(x, (x.shape[0], y.shape[1]), _out_dtype(x, out_dtype)) for x, y in zip(a, b)]
    out = list(out)
    if len(out) != len(a):
        raise ValueError(f"a has {len(a)} matrices but out has {len(out)}")
    if not a:
        return out
    device = a[0].device
    for name, ts in (("a", a), ("b", b), ("out", out)):
        for i, t in enumerate(ts):
            if not isinstance(t, torch.Tensor) or t.device != device or device.type != "cuda":
                raise ValueError(f"{name}[{i}] is not a torch tensor on {device}: the arrays must be on one CUDA GPU")
            if t.ndim != 2:
                raise ValueError(f"{name}[{i}] must be 2-D, not {t.ndim}-D")
    p = _precision(a[0], out[0], precision, b[0])
    problems = torch.empty(9 * len(a), dtype=torch.int64, device=device)  # GemmProblem: nine 8-byte fields
    raw = _stream(a[0], stream)
    if stream is not None:  # read there: not reused before that stream is past the call
        problems.record_stream(torch.cuda.ExternalStream(raw, device=device))
    allocate = lambda nbytes: _empty(a[0], (nbytes,), torch.uint8)  # noqa: E731
    _tessel.gemm_problems([_describe(t) for t in a], [_describe(t) for t in b], [_describe(t) for t in out],
                          problems.data_ptr(), device.index, float(alpha), float(beta), p, kernel or "auto", raw,
                          allocate)
    return out


def grouped_matmul(a, b, offsets, *, out=None, precision: str | None = None, kernel: str | None = None,
                   stream=None, out_dtype=None):
    """A mixture-of-experts layer's GEMMs in one call: rows ``offsets[g] .. offsets[g + 1] - 1`` of
    ``a`` (tokens, k) times ``b[g]`` (k, n) into the same rows of ``out`` (tokens, n).

    Torch tensors on one GPU: ``b`` of shape (groups, k, n) in any strides whose matrices are
    row- or column-major (``w.transpose(1, 2)`` of nn.Linear-style (groups, n, k) weights costs
    no copy), ``offsets`` an int64 tensor of groups + 1 non-decreasing values on the GPU, read
    there: the counts need no host sync, and the call can be captured into a CUDA graph and
    replayed with new counts. Groups need no padding; rows in no group are left as they are
    (uninitialised in an allocated ``out``). Hopper (the cluster kernels).
    """
    import torch

    if a.ndim != 2 or b.ndim != 3:
        raise ValueError(f"grouped_matmul takes a 2-D a and a 3-D b (a is {a.ndim}-D, b is {b.ndim}-D)")
    groups = b.shape[0]
    if offsets.dtype != torch.int64 or tuple(offsets.shape) != (groups + 1,):
        raise ValueError(f"offsets must be an int64 tensor of {groups + 1} values (groups + 1), "
                         f"not {offsets.dtype} of shape {tuple(offsets.shape)}")
    if out is None:
        out = _empty(a, (a.shape[0], b.shape[2]), _out_dtype(a, out_dtype))
    if a.device.type != "cuda" or any(t.device != a.device for t in (b, offsets, out)):
        raise ValueError("a, b, offsets and out must be on one CUDA GPU")
    if groups == 0:
        return out
    allocate = lambda nbytes: _empty(a, (nbytes,), torch.uint8)  # noqa: E731
    _tessel.gemm_described(_describe(a), _describe(b[0]), _describe(out), a.device.index, 1.0, 0.0,
                           _precision(a, out, precision, b), kernel or "auto", _stream(a, stream), allocate,
                           batch=(groups, 0, b.stride(0), 0), group_offsets=offsets.data_ptr())
    return out


def masked_matmul(a, b, counts, *, out=None, expected_rows: int = 0, precision: str | None = None,
                  kernel: str | None = None, stream=None, out_dtype=None):
    """Experts of a fixed capacity in one call: for each group g, the first ``counts[g]`` rows of
    ``a[g]`` (capacity, k) times ``b[g]`` (k, n) into the same rows of ``out[g]`` (capacity, n).

    Torch tensors on one GPU: ``a`` of shape (groups, capacity, k) whose groups lie one after
    another (``a.view(groups * capacity, k)`` possible), ``b`` of shape (groups, k, n) in any
    strides whose matrices are row- or column-major, ``counts`` an int64 tensor of groups values
    on the GPU, read there (clamped to 0..capacity): no host sync, and the call can be captured
    into a CUDA graph and replayed with new counts. Rows past a group's count are left as they
    are (uninitialised in an allocated ``out``). ``expected_rows``: how many rows a group is
    expected to compute, for the choice of tile only (0: the capacity). Hopper (the cluster kernels).
    """
    import torch

    if a.ndim != 3 or b.ndim != 3:
        raise ValueError(f"masked_matmul takes a 3-D a and a 3-D b (a is {a.ndim}-D, b is {b.ndim}-D)")
    groups, capacity = a.shape[0], a.shape[1]
    if b.shape[0] != groups:
        raise ValueError(f"a has {groups} groups but b has {b.shape[0]}")
    if counts.dtype != torch.int64 or tuple(counts.shape) != (groups,):
        raise ValueError(f"counts must be an int64 tensor of {groups} values (one a group), "
                         f"not {counts.dtype} of shape {tuple(counts.shape)}")
    if out is None:
        out = _empty(a, (groups, capacity, b.shape[2]), _out_dtype(a, out_dtype))
    if tuple(out.shape) != (groups, capacity, b.shape[2]):
        raise ValueError(f"out must have shape {(groups, capacity, b.shape[2])}, not {tuple(out.shape)}")
    if a.device.type != "cuda" or any(t.device != a.device for t in (b, counts, out)):
        raise ValueError("a, b, counts and out must be on one CUDA GPU")
    if groups == 0 or capacity == 0:
        return out
    for name, t in (("a", a), ("out", out)):
        if t.stride(0) != capacity * t.stride(1):
            raise ValueError(f"{name}'s groups must lie one after another ({name}.stride(0) = capacity * "
                             f"{name}.stride(1)), so that its rows are rows of one matrix")
    allocate = lambda nbytes: _empty(a, (nbytes,), torch.uint8)  # noqa: E731
    _tessel.gemm_described(_describe(a.flatten(0, 1)), _describe(b[0]), _describe(out.flatten(0, 1)), a.device.index,
                           1.0, 0.0, _precision(a, out, precision, b), kernel or "auto", _stream(a, stream), allocate,
                           batch=(groups, 0, b.stride(0), 0), group_counts=counts.data_ptr(),
                           expected_group_rows=expected_rows)
    return out


def _block_scales(block_scales, a, b):
    """(pointer, stride, stride) of each block-scale tensor, checked against the operands' shapes, or None."""
    if block_scales is None:
        return (None, None)
    import torch

    sa, sb = block_scales
    m, k, n = a.shape[0], a.shape[1], b.shape[1]
    kb = (k + 127) // 128
    # b's scales per 128 x 128 block, or per column (1 x 128 blocks: the weight-gradient form)
    columns = 1 if isinstance(sb, torch.Tensor) and tuple(sb.shape) == (n, kb) else 128
    expected = ((sa, "block_scales[0]", [(m, kb)]), (sb, "block_scales[1]", [((n + 127) // 128, kb), (n, kb)]))
    for t, name, shapes in expected:
        if not isinstance(t, torch.Tensor) or t.dtype != torch.float32 or t.device != a.device:
            raise TypeError(f"{name} must be a float32 torch tensor on {a.device}")
        if tuple(t.shape) not in shapes:
            raise ValueError(f"{name} has shape {tuple(t.shape)}, not {' or '.join(str(s) for s in shapes)}")
    return ((sa.data_ptr(), sa.stride(0), sa.stride(1)), (sb.data_ptr(), sb.stride(0), sb.stride(1), columns))


def _torch_gemm(a, b, out, alpha, beta, precision, kernel, stream, bias=None, activation=None, pre=None,
                scales=(0, 0), blocks=(None, None)):
    """One extension call on torch tensors (checked to be on one GPU); scratch memory under capture from torch's."""
    device = a.get_device()
    allocate = lambda nbytes: _torch_bytes(nbytes, device)  # noqa: E731
    stream = _torch_stream(device) if stream is None else _stream(a, stream)
    _tessel.gemm_described(_describe(a), _describe(b), _describe(out), device, float(alpha), float(beta),
                           precision, kernel or "auto", stream, allocate,
                           bias.data_ptr() if bias is not None else 0, activation or "none",
                           pre.data_ptr() if pre is not None else 0, scales[0], scales[1], blocks[0], blocks[1])


def _torch_bytes(nbytes, device):
    """Scratch memory from torch's caching allocator: nbytes on the device of that index."""
    import torch

    return torch.empty(nbytes, dtype=torch.uint8, device=device)


def _describe(t):
    """A 2-D torch tensor as the extension reads it without DLPack: pointer, sizes, strides, dtype name."""
    shape = t.shape
    if len(shape) != 2:
        raise ValueError(f"expected a 2-D tensor, not {len(shape)}-D")
    rows, cols = shape
    row_stride, col_stride = t.stride()
    return (t.data_ptr(), rows, cols, row_stride, col_stride, _dtype_name(t))


def linear(x, w, bias=None, *, activation: str | None = None, precision: str | None = None, kernel: str | None = None,
           stream=None, return_pre: bool = False):
    """``act(x @ w.T + bias)`` in the nn.Linear layout: x is (..., in), w is (out, in).

    ``activation``: None, "relu", "gelu", "gelu_tanh" (torch's ``approximate="tanh"``) or
    "silu". On torch tensors bias and activation are applied in FP32 inside the one call,
    rounded once to the output's dtype, and ``return_pre=True`` also returns the
    activation's input (what a backward pass needs); other arrays take the bias as a
    second step and no activation.
    """
    if w.ndim != 2:
        raise ValueError(f"w must be 2-D (out, in), not {w.ndim}-D")
    if bias is not None and tuple(bias.shape) != (w.shape[0],):
        raise ValueError(f"bias must have shape ({w.shape[0]},), not {tuple(bias.shape)}")
    lead = x.shape[:-1]
    rows = x.reshape(-1, x.shape[-1])  # a view where the strides allow
    if _framework(x) == "torch" and x.device.type == "cuda":
        if w.device != x.device or (bias is not None and bias.device != x.device):
            raise ValueError("x, w and bias must be on one GPU")
        out = _empty(rows, (rows.shape[0], w.shape[0]), rows.dtype)
        pre = _empty(rows, out.shape, out.dtype) if return_pre else None
        if bias is not None:
            bias = bias.to(out.dtype).contiguous()
        p = _precision(rows, out, precision, w)
        _torch_gemm(rows, w.T, out, 1.0, 0.0, p, kernel, stream, bias, activation, pre)
        shape = (*lead, w.shape[0])
        return (out.reshape(shape), pre.reshape(shape)) if return_pre else out.reshape(shape)
    if activation is not None or return_pre:
        raise ValueError("activation= and return_pre= need torch tensors on a CUDA GPU")
    y = matmul(rows, w.T, precision=precision, kernel=kernel, stream=stream)
    if bias is not None:
        y += bias
    return y.reshape(*lead, w.shape[0])


def list_kernels():
    """The registered kernels, in ladder order, as dicts (name, step, summary, precisions, tile, ...)."""
    return _tessel.list_kernels()


def select_kernel(a, b, out=None, *, precision: str | None = None) -> str:
    """The kernel auto-dispatch would run for ``a @ b`` into ``out``."""
    if out is None:
        out = _empty(a, (a.shape[0], b.shape[1]), a.dtype)
    return _tessel.select_kernel(a, b, out, _precision(a, out, precision, b))


def precisions():
    """The precision names tessel takes."""
    return _tessel.precisions()


def release_workspaces():
    """Frees tessel's own scratch buffers (after waiting for the work that may use them)."""
    _tessel.release_workspaces()
