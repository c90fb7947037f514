#!/usr/bin/env python3
"""Warp-specialized kernels for compute-sanitizer's synccheck and racecheck: the
warp-specialized GEMM of examples/hopper_ws.py, partitions reusing their own dead buffers'
bytes (test/Python/ws_scratch_kernels.py), the cluster GEMM of examples/cluster_gemm.py
(one tile a cluster and persistent; clusters of 2 CTAs, TMA multicast, arrivals on the other
CTA's barriers) and the Hopper attention of examples/hopper_attention.py, each launched once
on a small problem and checked against torch:

    compute-sanitizer --tool synccheck python3 test/gpu/sanitizer_ws.py
        -> ERROR SUMMARY: 0 errors
    compute-sanitizer --tool racecheck python3 test/gpu/sanitizer_ws.py --only ws,dead_buffers,attention
        -> RACECHECK SUMMARY: 0 hazards

The references are plain fp32 torch matmuls (no torch attention kernel, whose own shared
memory racecheck would report). synccheck stops a kernel at a barrier it judges divergent
(the launch then fails), so a pass also means every launch completed. Not a pytest file (a
sanitizer has to wrap the process); needs an sm_90a GPU and torch. docs/gpu-testing.md says
what racecheck can judge (not the cluster GEMM: see there).
"""

from __future__ import annotations

import argparse
import os
import sys

import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "examples"))


def ws():
    from examples.hopper_ws import kiln_ws_matmul
    a = torch.randn(256, 128, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(256, 128, device="cuda", dtype=torch.bfloat16)
    c = kiln_ws_matmul(a, b)
    return (c.float() - a.float() @ b.float().T).abs().max().item() < 0.5


def cluster(persistent):
    from examples.cluster_gemm import kiln_cluster_matmul
    a = torch.randn(256, 128, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(256, 128, device="cuda", dtype=torch.bfloat16)
    c = kiln_cluster_matmul(a, b, STAGES=2, persistent=persistent)
    return (c.float() - a.float() @ b.float().T).abs().max().item() < 0.5


def attention():
    from examples.hopper_attention import kiln_hopper_attention
    q, k, v = (torch.randn(1, 512, 2, 128, device="cuda", dtype=torch.float16)
               for _ in range(3))
    o = kiln_hopper_attention(q, k, v, causal=True)
    o = o[0] if isinstance(o, tuple) else o
    qf, kf, vf = (t.float().transpose(1, 2) for t in (q, k, v))  # [B, H, N, D]
    s = qf @ kf.transpose(-1, -2) / 128 ** 0.5
    s = s.masked_fill(torch.ones(512, 512, device="cuda").triu(1).bool(), float("-inf"))
    ref = (s.softmax(-1) @ vf).transpose(1, 2)
    return (o.float() - ref).abs().max().item() < 2e-2


def dead_buffers():
    # both partitions reuse their own dead buffers' bytes while the other runs
    sys.path.insert(0, os.path.join(ROOT, "test", "Python"))
    from ws_scratch_kernels import ws_dead_buffers
    ints = lambda *s: torch.randint(-8, 9, s, device="cuda").to(torch.bfloat16)
    x, y, z = ints(5, 64, 64), ints(5, 64, 64), ints(2, 64, 64)
    out, out2 = torch.empty_like(x), torch.empty_like(y)
    ws_dead_buffers[(1,)](x, y, z, out, out2, 5, ROWS=64, WORKER_WARPS=4, num_warps=4)
    return torch.equal(out, 2 * x + z[0]) and torch.equal(out2, 2 * y + z[1])


CASES = {"ws": ws, "dead_buffers": dead_buffers, "cluster": lambda: cluster(False),
         "cluster_persistent": lambda: cluster(True), "attention": attention}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=",".join(CASES), help="comma-separated: " +
                    ", ".join(CASES))
    args = ap.parse_args()
    torch.manual_seed(0)
    failed = []
    for name in args.only.split(","):
        ok = CASES[name]()
        torch.cuda.synchronize()
        print(f"{name}: {'ok' if ok else 'WRONG'}")
        if not ok:
            failed.append(name)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
