#!/usr/bin/env python3
"""Writes the shape suites in bench/suites/ (one call per line: m n k OPS).

tessel is row-major. An nn.Linear layer y = x W^T with x of tokens x in and W
of out x in is the call NT with m = tokens, n = out, k = in; its weight
gradient dW = dY^T x is TN with m = out, n = in, k = tokens; its input
gradient dX = dY W is NN with m = tokens, n = in, k = out.

    scripts/make_suites.py [OUT_DIR]      (default: bench/suites)
"""
import pathlib
import sys

TOKENS = [1, 4, 16, 64, 128, 512, 2048, 8192]

# (in, out) of each distinct linear layer, from the models' published configurations.
MODELS = {
    # hidden 4096, intermediate 14336, 32 heads and 8 KV heads of 128: QKV fused 4096 + 2 * 1024
    "Llama-3-8B": [(4096, 6144), (4096, 4096), (4096, 14336), (14336, 4096)],
    # hidden 8192, intermediate 28672, 64 heads and 8 KV heads of 128
    "Llama-3-70B": [(8192, 10240), (8192, 8192), (8192, 28672), (28672, 8192)],
    # hidden 7168, MLA (q rank 1536, kv rank 512 + 64 rope, 128 heads of 128 + 64), dense MLP 18432,
    # routed experts 2048
    "DeepSeek-V3": [(7168, 1536), (1536, 24576), (7168, 576), (512, 32768), (16384, 7168), (7168, 18432),
                    (18432, 7168), (7168, 2048), (2048, 7168)],
}


def llm():
    lines = ["# Linear layers of open models at token counts 1 ... 8192: forward (NT), weight gradient (TN),",
             "# input gradient (NN). Written by scripts/make_suites.py."]
    seen = set()
    for model, layers in MODELS.items():
        lines.append(f"# {model}")
        for t in TOKENS:
            for i, o in layers:
                for call in ((t, o, i, "NT"), (o, i, t, "TN"), (t, i, o, "NN")):
                    if call not in seen:
                        seen.add(call)
                        lines.append("{} {} {} {}".format(*call))
    return lines


def squares():
    lines = ["# Squares, powers of two and not. Written by scripts/make_suites.py."]
    for s in [256, 512, 768, 1000, 1024, 1500, 2048, 3000, 3072, 4096, 5000, 6000, 7000, 8192]:
        lines.append(f"{s} {s} {s} NN")
    for s in [1000, 3000, 4096]:
        lines += [f"{s} {s} {s} {ops}" for ops in ("NT", "TN", "TT")]
    return lines


def skinny():
    lines = ["# Small outputs with deep k, and tall or wide outputs with shallow k. Written by scripts/make_suites.py."]
    for mn in [16, 64, 128, 256]:
        for k in [8192, 65536]:
            lines.append(f"{mn} {mn} {k} NN")
    lines += ["1 4096 65536 NN", "16 4096 65536 NT", "4096 16 65536 NN", "64 64 65536 TN",
              "65536 64 256 NN", "64 65536 256 NN", "32768 128 128 NN", "128 32768 128 NT",
              "65536 4096 64 NN", "4096 65536 64 TN", "8 8 32768 NN", "2 65536 1024 NT"]
    return lines


def unaligned():
    lines = ["# Leading dimensions no multiple of 8 elements (n or k odd). Written by scripts/make_suites.py."]
    lines += ["4097 4097 4097 NN", "4096 4097 4096 NN", "4096 4096 4097 NN", "4097 4096 4096 TN",
              "127 4097 1000 NN", "127 4097 1000 TT", "1023 1023 1023 NN", "2047 2047 2047 NT",
              "4095 4095 4095 NN", "3001 3001 3001 NN", "1000 1001 999 TN", "16 4097 4097 NT",
              "8191 8191 1023 NN", "1 14337 4097 NT", "64 4097 14337 NT"]
    for m in [1, 4, 16]:  # decode: a weight whose rows are not in 16-byte units
        lines += [f"{m} {n} {k} {ops}" for n, k, ops in [(4096, 4097, "NT"), (4096, 14337, "NT"), (7168, 2049, "NT"),
                                                         (28672, 8191, "NT"), (4097, 4096, "NN"), (14337, 4096, "NN")]]
    return lines


def fp8_deepseek():
    lines = ["# DeepSeek-V3's FP8 GEMMs (n x k of its block-scaled linear layers, x W^T: NT) at 64 ... 8192 tokens.",
             "# Written by scripts/make_suites.py."]
    for m in [64, 128, 256, 512, 1024, 2048, 4096, 8192]:
        for n, k in [(2112, 7168), (4096, 7168), (7168, 2048), (7168, 16384), (24576, 1536)]:
            lines.append(f"{m} {n} {k} NT")
    return lines


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "bench/suites")
    out.mkdir(parents=True, exist_ok=True)
    for name, make in (("llm", llm), ("squares", squares), ("skinny", skinny), ("unaligned", unaligned),
                       ("fp8_deepseek", fp8_deepseek)):
        lines = make()
        (out / f"{name}.txt").write_text("\n".join(lines) + "\n")
        print(f"{out / name}.txt: {sum(1 for line in lines if not line.startswith('#'))} calls")


if __name__ == "__main__":
    main()
