"""tessel on torch tensors, on a GPU: results against torch in float64 for
every dtype, op pair (through views), odd sizes, out=, alpha and beta,
streams, the custom ops under torch.compile, and CUDA graph capture."""
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

import tessel  # noqa: E402
import tessel.torch_ops  # noqa: E402,F401

TOL = {torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 1e-2}


def rel_err(got, want):
    got, want = got.double(), want.double()
    return ((got - want).norm() / want.norm().clamp_min(1e-30)).item()


def operand(rows, cols, dtype, transposed, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    if transposed:  # stored cols x rows, viewed transposed: op T without a copy
        return torch.randn(cols, rows, device="cuda", dtype=dtype, generator=g).T
    return torch.randn(rows, cols, device="cuda", dtype=dtype, generator=g)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (67, 45, 33), (128, 256, 64), (1000, 999, 257),
                                   (1, 4096, 520), (4096, 1, 520), (264, 4096, 1), (1, 1, 4096)])
def test_matmul_matches_float64(dtype, ta, tb, m, n, k):
    a, b = operand(m, k, dtype, ta, 1), operand(k, n, dtype, tb, 2)
    got = tessel.matmul(a, b)
    assert got.dtype == dtype and got.shape == (m, n)
    assert rel_err(got, a.double() @ b.double()) < TOL[dtype]


# Vectors (a dimension of size 1) in either layout and out a single column:
# the column reads as one row of op T, with its leading dimension in 16-byte units.
@pytest.mark.parametrize("m,n,k", [(4096, 1, 520), (264, 4096, 1)])
def test_vector_operands_into_given_out(m, n, k):
    a, b = operand(m, k, torch.bfloat16, True, 5), operand(k, n, torch.bfloat16, False, 6)
    out = torch.full((n, m), float("nan"), device="cuda", dtype=torch.bfloat16).T  # beta = 0 over NaN
    tessel.matmul(a, b, out=out)
    assert rel_err(out, a.double() @ b.double()) < TOL[torch.bfloat16]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_f32_output_alpha_beta_and_column_major_out(dtype):
    a, b = operand(300, 200, dtype, False, 3), operand(200, 100, dtype, True, 4)
    c0 = torch.randn(100, 300, device="cuda").T  # column-major out
    out = c0.clone()
    tessel.matmul(a, b, out=out, alpha=-0.75, beta=1.25)
    want = -0.75 * (a.double() @ b.double()) + 1.25 * c0.double()
    assert rel_err(out, want) < 1e-4


def test_tf32_only_when_asked_and_on_a_side_stream():
    a, b = operand(512, 256, torch.float32, False, 5), operand(256, 384, torch.float32, False, 6)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        got = tessel.matmul(a, b, precision="tf32")
    s.synchronize()
    assert rel_err(got, a.double() @ b.double()) < 2e-3


def test_linear_and_the_custom_ops_under_compile():
    x = torch.randn(4, 7, 256, device="cuda", dtype=torch.bfloat16)
    layer = tessel.torch_ops.Linear(256, 512, device="cuda", dtype=torch.bfloat16)
    want = torch.nn.functional.linear(x.double(), layer.weight.double(), layer.bias.double())
    assert rel_err(layer(x), want) < 1e-2
    compiled = torch.compile(lambda t: torch.ops.tessel.mm(t, layer.weight.T), fullgraph=True)
    rows = x.reshape(-1, 256)
    assert rel_err(compiled(rows), rows.double() @ layer.weight.double().T) < 1e-2


def test_backward_through_the_custom_ops():
    x = torch.randn(64, 128, device="cuda", requires_grad=True)
    w = torch.randn(96, 128, device="cuda", requires_grad=True)
    torch.ops.tessel.linear(x, w, None).square().sum().backward()
    x2, w2 = x.detach().double().requires_grad_(), w.detach().double().requires_grad_()
    (x2 @ w2.T).square().sum().backward()
    assert rel_err(x.grad, x2.grad) < 1e-4 and rel_err(w.grad, w2.grad) < 1e-4


def test_cuda_graph_capture_and_replay():
    a = operand(64, 16384, torch.float32, False, 7)  # few tiles, deep k: split-k with a workspace
    b = operand(16384, 64, torch.float32, False, 8)
    out = torch.empty(64, 64, device="cuda")
    tessel.matmul(a, b, out=out)
    direct = out.clone()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        tessel.matmul(a, b, out=out)
    out.zero_()
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(out, direct)


def test_torch_allocator_serves_scratch_only_under_capture():
    a = operand(64, 16384, torch.bfloat16, False, 9)  # few tiles, deep k: scratch memory
    b = operand(16384, 64, torch.bfloat16, False, 10)
    out = torch.empty(64, 64, device="cuda", dtype=torch.bfloat16)
    asked = []

    def allocate(nbytes):
        asked.append(nbytes)
        return torch.empty(nbytes, dtype=torch.uint8, device="cuda")

    def call():
        tessel._tessel.gemm_described(tessel._describe(a), tessel._describe(b), tessel._describe(out),
                                      a.get_device(), 1.0, 0.0, "bf16", "auto",
                                      torch.cuda.current_stream().cuda_stream, allocate)

    call()  # outside a capture: tessel's own buffers
    torch.cuda.synchronize()
    direct = out.clone()
    assert asked == []
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        call()
    assert len(asked) == 1 and asked[0] > 0
    out.zero_()
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(out, direct)
    assert rel_err(out, a.double() @ b.double()) < TOL[torch.bfloat16]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("activation", [None, "relu", "gelu", "gelu_tanh", "silu"])
def test_linear_with_bias_and_activation_in_one_call(dtype, activation):
    x = torch.randn(3, 37, 200, device="cuda", dtype=dtype)
    w = torch.randn(300, 200, device="cuda", dtype=dtype) / 15
    bias = torch.randn(300, device="cuda", dtype=dtype)
    pre = torch.nn.functional.linear(x.double(), w.double(), bias.double())
    want = {None: lambda t: t, "relu": torch.relu, "gelu": torch.nn.functional.gelu, "silu": torch.nn.functional.silu,
            "gelu_tanh": lambda t: torch.nn.functional.gelu(t, approximate="tanh")}[activation](pre)
    got = tessel.linear(x, w, bias, activation=activation)
    assert got.shape == (3, 37, 300) and got.dtype == dtype
    assert rel_err(got, want) < TOL[dtype]


@pytest.mark.parametrize("activation", ["relu", "gelu", "gelu_tanh", "silu"])
def test_linear_act_trains_like_torch(activation):
    layer = tessel.torch_ops.Linear(96, 80, activation=activation, device="cuda")
    x = torch.randn(3, 21, 96, device="cuda", requires_grad=True)
    layer(x).square().sum().backward()
    x2 = x.detach().double().requires_grad_()
    w2, b2 = layer.weight.detach().double().requires_grad_(), layer.bias.detach().double().requires_grad_()
    act = {"relu": torch.relu, "gelu": torch.nn.functional.gelu, "silu": torch.nn.functional.silu,
           "gelu_tanh": lambda t: torch.nn.functional.gelu(t, approximate="tanh")}[activation]
    act(torch.nn.functional.linear(x2, w2, b2)).square().sum().backward()
    for got, want in ((x.grad, x2.grad), (layer.weight.grad, w2.grad), (layer.bias.grad, b2.grad)):
        assert rel_err(got, want) < 1e-4


E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2


@pytest.mark.parametrize("dtype_a,dtype_b", [(E4M3, E4M3), (E5M2, E5M2), (E4M3, E5M2), (E5M2, E4M3)])
@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
@pytest.mark.parametrize("out_dtype,tol", [(None, 1e-2), (torch.float16, 2e-3), (torch.float32, 1e-3)])
def test_fp8_with_scales_matches_float64(dtype_a, dtype_b, ta, tb, out_dtype, tol):
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("FP8 runs on Hopper (sm_90a)")
    m, n, k = 300, 257, 1040
    a = operand(m, k, torch.float32, ta, 11).to(dtype_a)
    b = operand(k, n, torch.float32, tb, 12).to(dtype_b)
    scale_a = torch.tensor([0.75], device="cuda")
    scale_b = torch.tensor([1.5], device="cuda")
    got = tessel.matmul(a, b, scale_a=scale_a, scale_b=scale_b, out_dtype=out_dtype)
    assert got.dtype == (out_dtype or torch.bfloat16) and got.shape == (m, n)
    want = 0.75 * 1.5 * (a.double() @ b.double())
    assert rel_err(got, want) < tol
    c0 = torch.randn(n, m, device="cuda").T  # column-major out: the call computes out^T, scales swapped
    out = c0.clone()
    tessel.matmul(a, b, out=out, alpha=-0.5, beta=2.0, scale_a=scale_a, scale_b=scale_b)
    assert rel_err(out, -0.5 * want + 2.0 * c0.double()) < 1e-3


@pytest.mark.parametrize("ta,tb", [(False, True), (False, False), (True, True)])
@pytest.mark.parametrize("scale_layout", ["row", "column"])
def test_fp8_block_scales_match_float64(ta, tb, scale_layout):
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("FP8 runs on Hopper (sm_90a)")
    m, n, k = 300, 257, 1040
    a = operand(m, k, torch.float32, ta, 13).to(torch.float8_e4m3fn)
    b = operand(k, n, torch.float32, tb, 14).to(torch.float8_e4m3fn)
    kb, nb = (k + 127) // 128, (n + 127) // 128
    g = torch.Generator(device="cuda").manual_seed(15)
    sa = torch.rand(m, kb, device="cuda", generator=g) + 0.5
    sb = torch.rand(nb, kb, device="cuda", generator=g) + 0.5
    if scale_layout == "column":  # the same values, stored transposed: read through the strides
        sa, sb = sa.T.contiguous().T, sb.T.contiguous().T
    got = tessel.matmul(a, b, block_scales=(sa, sb), out_dtype=torch.float32)
    a_scaled = a.double() * sa.double().repeat_interleave(128, dim=1)[:, :k]
    b_scaled = b.double() * sb.double().repeat_interleave(128, dim=0)[:n].repeat_interleave(128, dim=1)[:, :k].T
    assert rel_err(got, a_scaled @ b_scaled) < 1e-3
    with pytest.raises(ValueError, match="block_scales\\[1\\] has shape"):
        tessel.matmul(a, b, block_scales=(sa, sb[:, :1]))
    # b's scales per column and 128 of k (1 x 128 blocks on both operands: weight gradients)
    sc = torch.rand(n, kb, device="cuda", generator=g) + 0.5
    if scale_layout == "column":
        sc = sc.T.contiguous().T
    got = tessel.matmul(a, b, block_scales=(sa, sc), out_dtype=torch.float32)
    b_scaled = b.double() * sc.double().repeat_interleave(128, dim=1)[:, :k].T
    assert rel_err(got, a_scaled @ b_scaled) < 1e-3


def batch_operand(count, rows, cols, dtype, transposed, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    if transposed:  # each matrix stored cols x rows, viewed transposed
        return torch.randn(count, cols, rows, device="cuda", dtype=dtype, generator=g).transpose(1, 2)
    return torch.randn(count, rows, cols, device="cuda", dtype=dtype, generator=g)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
@pytest.mark.parametrize("count,m,n,k", [(5, 67, 45, 33), (3, 128, 256, 64), (64, 64, 64, 128)])
def test_batched_matmul_matches_bmm(dtype, ta, tb, count, m, n, k):
    a, b = batch_operand(count, m, k, dtype, ta, 5), batch_operand(count, k, n, dtype, tb, 6)
    got = tessel.matmul(a, b)
    assert got.dtype == dtype and got.shape == (count, m, n)
    assert rel_err(got, torch.bmm(a.double(), b.double())) < TOL[dtype]


def test_a_batch_shares_a_2d_or_expanded_operand_and_fills_out():
    a = batch_operand(4, 100, 64, torch.bfloat16, False, 7)
    w = operand(64, 80, torch.bfloat16, True, 8)
    want = torch.matmul(a.double(), w.double())
    assert rel_err(tessel.matmul(a, w), want) < TOL[torch.bfloat16]
    assert rel_err(tessel.matmul(a, w.expand(4, 64, 80)), want) < TOL[torch.bfloat16]
    # out given: column-major matrices, f32, alpha and beta.
    out = torch.randn(4, 80, 100, device="cuda").transpose(1, 2)
    before = out.double().clone()
    tessel.matmul(a, w, out=out, alpha=0.5, beta=-1.5)
    assert rel_err(out, 0.5 * want - 1.5 * before) < 1e-2
    with pytest.raises(ValueError, match="a has 4 matrices but b has 3"):
        tessel.matmul(a, batch_operand(3, 64, 80, torch.bfloat16, False, 9))


def test_grouped_matmul_matches_each_group_and_replays_with_new_counts():
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("grouped GEMMs run on Hopper")
    groups, k, n = 6, 128, 192
    w = batch_operand(groups, k, n, torch.bfloat16, True, 10)  # (groups, n, k) weights viewed (groups, k, n)
    x = operand(600, k, torch.bfloat16, False, 11)

    def want(offsets):
        out = torch.zeros(600, n, dtype=torch.float64, device="cuda")
        for g in range(groups):
            lo, hi = int(offsets[g]), int(offsets[g + 1])
            out[lo:hi] = x[lo:hi].double() @ w[g].double()
        return out, int(offsets[-1])

    offsets = torch.tensor([0, 100, 100, 357, 358, 500, 590], dtype=torch.int64, device="cuda")
    got = tessel.grouped_matmul(x, w, offsets)
    ref, rows = want(offsets)
    assert rel_err(got[:rows], ref[:rows]) < TOL[torch.bfloat16]
    # Captured once, replayed with other counts written into the same offsets tensor.
    out = torch.zeros(600, n, dtype=torch.bfloat16, device="cuda")
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tessel.grouped_matmul(x, w, offsets, out=out)
    offsets.copy_(torch.tensor([0, 0, 250, 251, 400, 401, 600], dtype=torch.int64))
    graph.replay()
    ref, rows = want(offsets)
    assert rel_err(out, ref) < TOL[torch.bfloat16]



def test_masked_matmul_computes_each_groups_count_and_replays_with_new_counts():
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("grouped GEMMs run on Hopper")
    groups, capacity, k, n = 5, 100, 128, 192
    w = batch_operand(groups, k, n, torch.bfloat16, True, 12)  # (groups, n, k) weights viewed (groups, k, n)
    x = batch_operand(groups, capacity, k, torch.bfloat16, False, 13)

    def check(out, counts, before):
        for g in range(groups):
            rows = min(max(int(counts[g]), 0), capacity)
            if rows:
                assert rel_err(out[g, :rows], x[g, :rows].double() @ w[g].double()) < TOL[torch.bfloat16]
            assert torch.equal(out[g, rows:], before[g, rows:]), f"group {g}: rows past its count were written"

    counts = torch.tensor([0, 100, 37, 150, -2], dtype=torch.int64, device="cuda")  # the last two clamped
    out = torch.full((groups, capacity, n), 7.0, dtype=torch.bfloat16, device="cuda")
    before = out.clone()
    tessel.masked_matmul(x, w, counts, out=out, expected_rows=40)
    check(out, counts, before)
    # Captured once, replayed with other counts written into the same counts tensor.
    out.copy_(before)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tessel.masked_matmul(x, w, counts, out=out)
    out.copy_(before)
    counts.copy_(torch.tensor([3, 0, 99, 64, 1], dtype=torch.int64))
    graph.replay()
    check(out, counts, before)
    with pytest.raises(ValueError, match="counts must be an int64 tensor of 5 values"):
        tessel.masked_matmul(x, w, counts[:4])


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
def test_matmul_list_matches_each_problem(dtype, ta, tb):
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("problems run on Hopper")
    sizes = [(67, 45, 33), (128, 256, 512), (1, 300, 64), (300, 1, 700), (0, 5, 7), (200, 96, 0), (1000, 999, 130)]
    a = [operand(m, k, dtype, ta, 20 + i) for i, (m, n, k) in enumerate(sizes)]
    b = [operand(k, n, dtype, tb, 40 + i) for i, (m, n, k) in enumerate(sizes)]
    got = tessel.matmul_list(a, b)
    for x, y, z in zip(a, b, got):
        assert z.dtype == dtype and z.shape == (x.shape[0], y.shape[1])
        if z.numel():
            assert rel_err(z, x.double() @ y.double()) < TOL[dtype]
    # alpha, beta and FP32 outs given; the poisoned values past each out's columns stay.
    rows = [torch.full((x.shape[0], y.shape[1] + 3), 5.0, device="cuda") for x, y in zip(a, b)]
    outs = [r[:, : y.shape[1]] for r, y in zip(rows, b)]
    before = [o.clone() for o in outs]
    tessel.matmul_list(a, b, out=outs, alpha=0.5, beta=-2.0)
    for x, y, o, c, r in zip(a, b, outs, before, rows):
        if o.numel():
            assert rel_err(o, 0.5 * (x.double() @ y.double()) - 2.0 * c.double()) < TOL[dtype]
        assert torch.equal(r[:, y.shape[1]:], torch.full_like(r[:, y.shape[1]:], 5.0))
    with pytest.raises(ValueError, match="problem 1: its operands' layouts"):
        tessel.matmul_list([a[0], a[1].T.contiguous().T if not ta else a[1].contiguous()], b[:2])
    with pytest.raises(ValueError, match="a has 2 matrices but b has 1"):
        tessel.matmul_list(a[:2], b[:1])
