"""A small MLP whose nn.Linear layers run through tessel, beside the same model
in plain torch: the outputs agree and the times are printed.

    python examples/python/mlp.py [--tokens 4096] [--dtype bf16]
"""
import argparse

import torch

import tessel.torch_ops


def mlp(width, hidden, layers, linear, dtype):
    mods = []
    for i in range(layers):
        mods += [linear(width, hidden, device="cuda", dtype=dtype), torch.nn.GELU(),
                 linear(hidden, width, device="cuda", dtype=dtype)]
    return torch.nn.Sequential(*mods)


def time_ms(fn, repeat=20):
    fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeat):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / repeat


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tokens", type=int, default=4096)
    ap.add_argument("--dtype", default="bf16", choices=["f32", "f16", "bf16"])
    a = ap.parse_args()
    dtype = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[a.dtype]
    torch.manual_seed(0)
    plain = mlp(4096, 11008, 2, torch.nn.Linear, dtype)
    ours = mlp(4096, 11008, 2, tessel.torch_ops.Linear, dtype)
    ours.load_state_dict(plain.state_dict())
    x = torch.randn(a.tokens, 4096, device="cuda", dtype=dtype)
    with torch.no_grad():
        want, got = plain(x).double(), ours(x).double()
        err = ((got - want).norm() / want.norm()).item()
        t_plain, t_ours = time_ms(lambda: plain(x)), time_ms(lambda: ours(x))
    print(f"{torch.cuda.get_device_name()}: {a.tokens} tokens, {a.dtype}, relative difference {err:.2e}")
    print(f"torch {t_plain:.3f} ms, tessel {t_ours:.3f} ms per forward ({t_plain / t_ours:.3f}x)")


if __name__ == "__main__":
    main()
