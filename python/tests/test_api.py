"""The Python layer without a GPU: import, the registry, and the checks that
run before anything reaches a device (shapes, dtypes, strides, devices)."""
import numpy as np
import pytest

import tessel
from tessel import _tessel


def test_lists_the_ladder():
    kernels = tessel.list_kernels()
    names = [k["name"] for k in kernels]
    assert names[:3] == ["naive", "coalesced", "smem"]
    assert "pipelined_128x256" in names
    assert [k["step"] for k in kernels] == sorted(k["step"] for k in kernels)
    fp8 = {f"{a}:{c}" for a in ("e4m3", "e5m2", "e4m3xe5m2", "e5m2xe4m3") for c in ("bf16", "f16", "f32")}
    assert set(tessel.precisions()) == {"f32", "tf32", "f16", "f16:f32", "bf16", "bf16:f32"} | fp8


def f32(rows, cols):
    return np.ones((rows, cols), dtype=np.float32)


def test_host_arrays_are_refused_by_name():
    with pytest.raises(ValueError, match="must be on a CUDA GPU"):
        _tessel.gemm(f32(4, 5), f32(5, 6), f32(4, 6), 1.0, 0.0, "f32", "auto", 0, None)


def test_without_out_an_allocator_is_needed():
    with pytest.raises(TypeError, match="pass out="):
        tessel.matmul(f32(4, 5), f32(5, 6))


def test_shapes_must_agree():
    with pytest.raises(ValueError, match="inner sizes differ"):
        tessel.matmul(f32(4, 5), f32(6, 6), out=f32(4, 6))
    with pytest.raises(ValueError, match="out is 4 x 7 but a @ b is 4 x 6"):
        tessel.matmul(f32(4, 5), f32(5, 6), out=f32(4, 7))
    with pytest.raises(ValueError, match="2-D"):
        tessel.matmul(np.ones((2, 4, 5), np.float32), f32(5, 6), out=f32(4, 6))


def test_dtypes_are_checked():
    with pytest.raises(TypeError, match="float32, float16, bfloat16 and"):
        tessel.matmul(np.ones((4, 5)), np.ones((5, 6)), out=np.ones((4, 6)))
    with pytest.raises(TypeError, match="same dtype"):
        _tessel.gemm(f32(4, 5), np.ones((5, 6), np.float16), f32(4, 6), 1.0, 0.0, "f32", "auto", 0, None)
    with pytest.raises(TypeError, match="precision f16 takes"):
        _tessel.gemm(f32(4, 5), f32(5, 6), f32(4, 6), 1.0, 0.0, "f16", "auto", 0, None)
    with pytest.raises(ValueError, match="precision 'f8'"):
        _tessel.gemm(f32(4, 5), f32(5, 6), f32(4, 6), 1.0, 0.0, "f8", "auto", 0, None)


def test_strides_give_the_op_and_views_cost_no_copy():
    a = f32(8, 6)
    # A transposed view (column-major) is taken as op T: the checks pass and only the device check is left.
    with pytest.raises(ValueError, match="must be on a CUDA GPU"):
        _tessel.gemm(a.T, f32(8, 3), f32(6, 3), 1.0, 0.0, "f32", "auto", 0, None)
    with pytest.raises(ValueError, match="neither row- nor column-major"):
        _tessel.gemm(a[::2, ::2], f32(3, 3), f32(4, 3), 1.0, 0.0, "f32", "auto", 0, None)


def test_beta_needs_out():
    with pytest.raises(ValueError, match="beta != 0 reads out"):
        tessel.matmul(f32(4, 5), f32(5, 6), beta=1.0)


def described(rows, cols, s0, s1, dtype="f32"):
    return (0, rows, cols, s0, s1, dtype)


def test_described_operands_are_checked_before_the_gpu():
    # torch's path: pointer, sizes, strides and dtype name instead of DLPack.
    call = lambda a, b, out: _tessel.gemm_described(a, b, out, 0, 1.0, 0.0, "f32", "auto", 0, None)  # noqa: E731
    with pytest.raises(ValueError, match="inner sizes differ"):
        call(described(4, 5, 5, 1), described(6, 6, 6, 1), described(4, 6, 6, 1))
    with pytest.raises(ValueError, match="out is 4 x 7"):
        call(described(4, 5, 5, 1), described(5, 6, 6, 1), described(4, 7, 7, 1))
    with pytest.raises(TypeError, match="float32, float16, bfloat16 and"):
        call(described(4, 5, 5, 1, "f64"), described(5, 6, 6, 1), described(4, 6, 6, 1))
    with pytest.raises(ValueError, match="neither row- nor column-major"):
        call(described(4, 5, 1, 2), described(5, 6, 6, 1), described(4, 6, 6, 1))
    with pytest.raises(ValueError, match="negative size"):
        call(described(-1, 5, 5, 1), described(5, 6, 6, 1), described(4, 6, 6, 1))
    with pytest.raises(TypeError, match="precision f32 takes"):
        call(described(4, 5, 5, 1, "bf16"), described(5, 6, 6, 1, "bf16"), described(4, 6, 6, 1))


def test_activation_names_are_checked_before_the_gpu():
    with pytest.raises(ValueError, match="activation 'tanh' is not one of"):
        _tessel.gemm_described(described(4, 5, 5, 1), described(5, 6, 6, 1), described(4, 6, 6, 1), 0, 1.0, 0.0,
                               "f32", "auto", 0, None, 0, "tanh")


def test_linear_checks_the_bias_shape():
    with pytest.raises(ValueError, match=r"bias must have shape \(6,\)"):
        tessel.linear(f32(4, 5), f32(6, 5), np.ones(5, dtype=np.float32))


def test_batches_are_checked_before_the_gpu():
    # (count, stride of a, of b, of out): C's matrices must not overlap; counts and strides are named.
    call = lambda batch: _tessel.gemm_described(described(4, 5, 5, 1), described(5, 6, 6, 1),  # noqa: E731
                                                described(4, 6, 6, 1), 0, 1.0, 0.0, "f32", "auto", 0, None,
                                                batch=batch)
    with pytest.raises(ValueError, match="stride_c = 6 makes the batch's C matrices overlap"):
        call((3, 20, 30, 6))
    with pytest.raises(ValueError, match="batch = -2 must be >= 0"):
        call((-2, 20, 30, 24))
    with pytest.raises(ValueError, match="stride_b = -1 must be >= 0"):
        call((3, 20, -1, 24))


def test_grouped_needs_a_row_major_out():
    # a grouped call's groups are rows of out; a column-major out is refused before the GPU.
    with pytest.raises(ValueError, match="needs a row-major out"):
        _tessel.gemm_described(described(4, 5, 5, 1), described(5, 6, 6, 1), described(4, 6, 1, 4), 0, 1.0, 0.0,
                               "f32", "auto", 0, None, batch=(2, 0, 30, 0), group_offsets=0x1000)


def test_problems_are_checked_one_by_one():
    # Operands as gemm_problems reads them: (pointer, rows, cols, row stride, column stride, dtype); never read here.
    def d(rows, cols, s0, s1, dtype="bf16"):
        return (256, rows, cols, s0, s1, dtype)

    a, b, out = d(4, 5, 5, 1), d(5, 6, 6, 1), d(4, 6, 6, 1)
    call = lambda xs, ys, zs, p="bf16": _tessel.gemm_problems(xs, ys, zs, 512, 0, 1.0, 0.0, p, "auto", 0)  # noqa: E731
    with pytest.raises(ValueError, match="differ in length"):
        call([a], [], [out])
    with pytest.raises(ValueError, match="problem 1: a is 4 x 5 but b is 6 x 6"):
        call([a, a], [b, d(6, 6, 6, 1)], [out, out])
    with pytest.raises(ValueError, match="problem 1: its operands' layouts"):
        call([a, d(4, 5, 1, 4)], [b, b], [out, out])  # a column-major a: op T where problem 0 has N
    with pytest.raises(TypeError, match="problem 0: precision f16 takes"):
        call([a], [b], [out], "f16")
    with pytest.raises(ValueError, match="problem 0: b: strides"):
        call([a], [d(5, 6, 12, 2)], [out])
