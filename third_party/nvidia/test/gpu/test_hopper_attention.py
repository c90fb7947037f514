"""examples/hopper_attention.py's flash-attention forward (TMA rings, wgmma with P from
registers; its warp-specialized form and its single-partition one) against an fp32 torch
reference on fresh random inputs: fp16 and bf16, head dims
64, 128 and 256, causal (bottom-right aligned when the lengths differ) and not, grouped-query
heads, lengths that are not multiples of the blocks (1, 17, 1000, 4097), a varlen batch mixing
them (and an empty sequence), the log-sum-exp too,
and the same bits on a second run. Skips cleanly without torch, a driver or an sm_90 device."""

from __future__ import annotations

import itertools
import math
import os
import sys

import pytest

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..",
                                "examples"))
import hopper_attention  # noqa: E402


@pytest.fixture
def sm90(target):
    if target != "cuda:sm_90a":
        pytest.skip(f"TMA and wgmma need sm_90a; this device's target is {target}")
    return target


def reference(q, k, v, causal, scale):
    """(o [B, Nq, H, D], lse [B, H, Nq]) in fp32."""
    H, H_KV = q.shape[2], k.shape[2]
    qf = q.float()
    kf = k.float().repeat_interleave(H // H_KV, dim=2)
    vf = v.float().repeat_interleave(H // H_KV, dim=2)
    lq, lk = q.shape[1], k.shape[1]
    s = torch.einsum("bqhd,bkhd->bhqk", qf, kf) * scale
    if causal:
        rows = torch.arange(lq, device=q.device)[:, None]
        cols = torch.arange(lk, device=q.device)[None, :]
        s = s.masked_fill(cols > rows + (lk - lq), float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)   # rows of no key: 0
    return torch.einsum("bhqk,bkhd->bqhd", p, vf), lse


@pytest.mark.parametrize("ws", [True, False], ids=["ws", "plain"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("D", [64, 128, 256])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("H,H_KV", [(4, 4), (8, 2)])
@pytest.mark.parametrize("Nq,Nk", [(1, 1), (17, 17), (1000, 1000), (17, 1000), (200, 77),
                                   (4097, 4097)])
def test_hopper_attention(sm90, ws, dtype, D, causal, H, H_KV, Nq, Nk):
    B = 2
    if Nq * Nk > 1 << 22 and (H != 4 or dtype != torch.float16):
        pytest.skip("the longest sequences once per head dim and causality")
    q = torch.randn(B, Nq, H, D, device="cuda", dtype=dtype)
    k = torch.randn(B, Nk, H_KV, D, device="cuda", dtype=dtype)
    v = torch.randn(B, Nk, H_KV, D, device="cuda", dtype=dtype)
    o, lse = hopper_attention.kiln_hopper_attention(q, k, v, causal=causal, warp_specialized=ws)
    o2, lse2 = hopper_attention.kiln_hopper_attention(q, k, v, causal=causal,
                                                      warp_specialized=ws)
    torch.cuda.synchronize()
    ro, rlse = reference(q, k, v, causal, 1.0 / math.sqrt(D))
    tol = 2e-2 if dtype == torch.float16 else 4e-2
    torch.testing.assert_close(o.float(), ro, atol=tol, rtol=tol)
    torch.testing.assert_close(lse, rlse, atol=2e-3, rtol=2e-3)
    assert torch.equal(o, o2) and torch.equal(lse, lse2), "a second run gave other bits"


@pytest.mark.parametrize("schedule", [1, 2, 3])
@pytest.mark.parametrize("D", [64, 128, 256])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("Nq,Nk", [(1, 1), (17, 1000), (200, 77), (1000, 1000)])
def test_other_schedules(sm90, schedule, D, causal, Nq, Nk):
    """The warp-specialized form's other issue orders (SCHEDULE 1: overlap, 2: and turns on
    mbarriers, 3: on named barriers)."""
    B, H, H_KV, dtype = 2, 8, 2, torch.bfloat16
    q = torch.randn(B, Nq, H, D, device="cuda", dtype=dtype)
    k = torch.randn(B, Nk, H_KV, D, device="cuda", dtype=dtype)
    v = torch.randn(B, Nk, H_KV, D, device="cuda", dtype=dtype)
    o, lse = hopper_attention.kiln_hopper_attention(q, k, v, causal=causal, schedule=schedule)
    torch.cuda.synchronize()
    ro, rlse = reference(q, k, v, causal, 1.0 / math.sqrt(D))
    torch.testing.assert_close(o.float(), ro, atol=4e-2, rtol=4e-2)
    torch.testing.assert_close(lse, rlse, atol=2e-3, rtol=2e-3)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("D", [64, 128, 256])
@pytest.mark.parametrize("causal", [False, True])
def test_varlen_batch(sm90, dtype, D, causal):
    """One launch over sequences of 1, 17, 1000, 4097 and 0 query rows against 77, 17, 1000,
    300 and 5 keys (FlashAttention's varlen layout), 8 query heads on 2 key/value heads."""
    lq, lk = [1, 17, 1000, 4097, 0], [77, 17, 1000, 300, 5]
    H, H_KV = 8, 2
    cu_q = torch.tensor([0] + lq, device="cuda").cumsum(0).int()
    cu_k = torch.tensor([0] + lk, device="cuda").cumsum(0).int()
    q = torch.randn(sum(lq), H, D, device="cuda", dtype=dtype)
    k = torch.randn(sum(lk), H_KV, D, device="cuda", dtype=dtype)
    v = torch.randn(sum(lk), H_KV, D, device="cuda", dtype=dtype)
    o, lse = hopper_attention.kiln_hopper_attention(q, k, v, causal=causal, cu_seqlens_q=cu_q,
                                                    cu_seqlens_k=cu_k, max_seqlen_q=max(lq))
    torch.cuda.synchronize()
    tol = 2e-2 if dtype == torch.float16 else 4e-2
    for i in range(len(lq)):
        if lq[i] == 0:
            continue
        qs, ks = slice(int(cu_q[i]), int(cu_q[i + 1])), slice(int(cu_k[i]), int(cu_k[i + 1]))
        ro, rlse = reference(q[None, qs], k[None, ks], v[None, ks], causal, 1.0 / math.sqrt(D))
        torch.testing.assert_close(o[qs].float(), ro[0], atol=tol, rtol=tol)
        torch.testing.assert_close(lse[qs], rlse[0].transpose(0, 1), atol=2e-3, rtol=2e-3)


def test_rejects_what_it_cannot_run(sm90):
    q = torch.randn(1, 16, 2, 96, device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="head dim"):
        hopper_attention.kiln_hopper_attention(q, q, q)
    q = torch.randn(1, 16, 3, 64, device="cuda", dtype=torch.float16)
    k = torch.randn(1, 16, 2, 64, device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="multiple of key/value heads"):
        hopper_attention.kiln_hopper_attention(q, k, k)


@pytest.mark.parametrize("D", [64, 128, 256])
@pytest.mark.parametrize("causal", [False, True])
def test_tuned(sm90, D, causal):
    """tuned=True: kiln.autotune's pick among the ring depths and issue orders (each config
    ran while tuning) gives the reference's O and LSE."""
    B, Nq, Nk, H, H_KV, dtype = 2, 300, 333, 4, 2, torch.float16
    q = torch.randn(B, Nq, H, D, device="cuda", dtype=dtype)
    k = torch.randn(B, Nk, H_KV, D, device="cuda", dtype=dtype)
    v = torch.randn(B, Nk, H_KV, D, device="cuda", dtype=dtype)
    o, lse = hopper_attention.kiln_hopper_attention(q, k, v, causal=causal, tuned=True)
    torch.cuda.synchronize()
    ro, rlse = reference(q, k, v, causal, 1.0 / math.sqrt(D))
    torch.testing.assert_close(o.float(), ro, atol=4e-2, rtol=4e-2)
    torch.testing.assert_close(lse, rlse, atol=2e-3, rtol=2e-3)
    picked = hopper_attention._ws_tuned(D).best_config.all_kwargs()
    assert picked["HEAD_DIM"] == D and picked["SCHEDULE"] in (0, 2, 3)
    with pytest.raises(ValueError, match="picks the config and the schedule itself"):
        hopper_attention.kiln_hopper_attention(q, k, v, tuned=True, schedule=2)


@pytest.mark.parametrize("mode", [True, "static"])
@pytest.mark.parametrize("schedule", [0, 3])
@pytest.mark.parametrize("D", [64, 128, 256])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("B,Nq,Nk", [(2, 1, 1), (2, 200, 77), (2, 1000, 1000), (4, 4096, 4096)])
def test_persistent(sm90, mode, schedule, D, causal, B, Nq, Nk):
    """persistent=True (tiles from a counter) and "static" (round-robin): a program per SM
    over the tiles (at 4 x 4k tokens and 8 heads, about eight tiles a program), the same
    bits as the kernel of one tile a program, and the reference's O and LSE."""
    H, H_KV, dtype = 8, 2, torch.float16
    q = torch.randn(B, Nq, H, D, device="cuda", dtype=dtype)
    k = torch.randn(B, Nk, H_KV, D, device="cuda", dtype=dtype)
    v = torch.randn(B, Nk, H_KV, D, device="cuda", dtype=dtype)
    o, lse = hopper_attention.kiln_hopper_attention(q, k, v, causal=causal, schedule=schedule,
                                                    persistent=mode)
    o1, lse1 = hopper_attention.kiln_hopper_attention(q, k, v, causal=causal,
                                                      schedule=schedule)
    torch.cuda.synchronize()
    assert torch.equal(o, o1) and torch.equal(lse, lse1)
    if Nq <= 1000:
        ro, rlse = reference(q, k, v, causal, 1.0 / math.sqrt(D))
        torch.testing.assert_close(o.float(), ro, atol=4e-2, rtol=4e-2)
        torch.testing.assert_close(lse, rlse, atol=2e-3, rtol=2e-3)


@pytest.mark.parametrize("persistent", [False, True, "static"],
                         ids=["tile", "persistent", "static"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("schedule", [0, 1])
@pytest.mark.parametrize("B,Nq,Nk", [(2, 1, 1), (2, 200, 77), (2, 1000, 1000), (1, 4097, 4097),
                                     (4, 1024, 1024)])
def test_three_consumers(sm90, persistent, causal, schedule, B, Nq, Nk):
    """consumers=3 (head dim 64: 192 query rows a tile, three consumer warpgroups), one tile
    a program or persistent (the tiles from a counter or round-robin, several a program at 4
    x 1k): the bits of the kernel of two, whose rows see the same key blocks in the same
    order (a causal block fully above a row's diagonal adds exactly nothing), and the
    reference's O and LSE."""
    H, H_KV, D, dtype = 8, 2, 64, torch.bfloat16
    q = torch.randn(B, Nq, H, D, device="cuda", dtype=dtype)
    k = torch.randn(B, Nk, H_KV, D, device="cuda", dtype=dtype)
    v = torch.randn(B, Nk, H_KV, D, device="cuda", dtype=dtype)
    o, lse = hopper_attention.kiln_hopper_attention(q, k, v, causal=causal, schedule=schedule,
                                                    consumers=3, persistent=persistent)
    o2, lse2 = hopper_attention.kiln_hopper_attention(q, k, v, causal=causal,
                                                      schedule=schedule, consumers=2)
    torch.cuda.synchronize()
    assert torch.equal(o, o2) and torch.equal(lse, lse2)
    if Nq <= 1000:
        ro, rlse = reference(q, k, v, causal, 1.0 / math.sqrt(D))
        torch.testing.assert_close(o.float(), ro, atol=4e-2, rtol=4e-2)
        torch.testing.assert_close(lse, rlse, atol=2e-3, rtol=2e-3)


@pytest.mark.parametrize("D", [64, 256])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("Nq", [1000, 4097])
def test_default_form(sm90, D, causal, Nq):
    """The default call at head dims 64 and 256 takes _auto_form's kernel (at 64 persistent
    with three groups, persistent with two, or one tile a program with three, by causality
    and length; at 256 persistent up to 4k queries): the bits of that form called explicitly,
    and the reference's O and LSE."""
    B, H, H_KV, dtype = 2, 4, 2, torch.float16
    q = torch.randn(B, Nq, H, D, device="cuda", dtype=dtype)
    k = torch.randn(B, Nq, H_KV, D, device="cuda", dtype=dtype)
    v = torch.randn(B, Nq, H_KV, D, device="cuda", dtype=dtype)
    persistent, consumers = hopper_attention._auto_form(D, causal, Nq)
    expected = {64: {(False, 1000): (True, 3), (True, 1000): (True, 2),
                     (False, 4097): (False, 3), (True, 4097): (False, 3)},
                256: {(False, 1000): (True, None), (True, 1000): (True, None),
                      (False, 4097): (False, None), (True, 4097): (False, None)}}
    assert (persistent, consumers) == expected[D][(causal, Nq)]
    o, lse = hopper_attention.kiln_hopper_attention(q, k, v, causal=causal)
    o1, lse1 = hopper_attention.kiln_hopper_attention(q, k, v, causal=causal,
                                                      persistent=persistent,
                                                      consumers=consumers)
    torch.cuda.synchronize()
    assert torch.equal(o, o1) and torch.equal(lse, lse1)
    if Nq <= 1000:
        ro, rlse = reference(q, k, v, causal, 1.0 / math.sqrt(D))
        torch.testing.assert_close(o.float(), ro, atol=4e-2, rtol=4e-2)
        torch.testing.assert_close(lse, rlse, atol=2e-3, rtol=2e-3)


def test_three_consumers_refusals(sm90):
    """What three consumer warpgroups do not take is refused before a launch."""
    q = torch.randn(1, 64, 2, 64, device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="consumers must be 2 or 3"):
        hopper_attention.kiln_hopper_attention(q, q, q, consumers=4)
    with pytest.raises(ValueError, match="three consumer warpgroups take SCHEDULE 0 or 1"):
        hopper_attention.kiln_hopper_attention(q, q, q, consumers=3, schedule=3)
    with pytest.raises(ValueError, match="consumers=3 is a form of the warp-specialized"):
        hopper_attention.kiln_hopper_attention(q, q, q, consumers=3, tuned=True)
    with pytest.raises(ValueError, match="consumers=3 is a form of the warp-specialized"):
        hopper_attention.kiln_hopper_attention(q, q, q, consumers=3, warp_specialized=False)
    with pytest.raises(ValueError, match="three consumer warpgroups take SCHEDULE 0 or 1"):
        hopper_attention.kiln_hopper_attention(q, q, q, consumers=3, schedule=3,
                                               persistent=True)
    q128 = torch.randn(1, 64, 2, 128, device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="consumers=3 needs head dim 64, got 128"):
        hopper_attention.kiln_hopper_attention(q128, q128, q128, consumers=3)


@pytest.mark.parametrize("causal", [False, True])
def test_persistent_varlen(sm90, causal):
    """A varlen batch (lengths 1, 17, 1000, 4097 and 0) on the persistent kernel: the bits of
    the kernel of one tile a program."""
    lq, lk = [1, 17, 1000, 4097, 0], [5, 17, 999, 4097, 3]
    H, H_KV, D, dtype = 8, 2, 128, torch.bfloat16
    cu_q = torch.tensor([0] + list(itertools.accumulate(lq)), device="cuda", dtype=torch.int32)
    cu_k = torch.tensor([0] + list(itertools.accumulate(lk)), device="cuda", dtype=torch.int32)
    q = torch.randn(sum(lq), H, D, device="cuda", dtype=dtype)
    k = torch.randn(sum(lk), H_KV, D, device="cuda", dtype=dtype)
    v = torch.randn(sum(lk), H_KV, D, device="cuda", dtype=dtype)
    args = dict(causal=causal, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k, max_seqlen_q=max(lq))
    o1, lse1 = hopper_attention.kiln_hopper_attention(q, k, v, **args)
    for mode in (True, "static"):
        o, lse = hopper_attention.kiln_hopper_attention(q, k, v, persistent=mode, **args)
        torch.cuda.synchronize()
        assert torch.equal(o, o1) and torch.equal(lse, lse1), mode


def test_persistent_refusals(sm90):
    """What the persistent kernel does not take is refused before a launch: SCHEDULE 2 (its
    mbarrier turns count phases per tile), tuning, and the single-partition form (which
    takes no lazy rescaling either)."""
    q = torch.randn(1, 64, 2, 64, device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="persistent kernel takes SCHEDULE 0, 1 or 3"):
        hopper_attention.kiln_hopper_attention(q, q, q, schedule=2, persistent=True)
    with pytest.raises(ValueError, match="tunes the kernel of one tile a program"):
        hopper_attention.kiln_hopper_attention(q, q, q, tuned=True, persistent=True)
    with pytest.raises(ValueError, match="persistent=True is a form of the warp-specialized"):
        hopper_attention.kiln_hopper_attention(q, q, q, warp_specialized=False,
                                               persistent=True)
    with pytest.raises(ValueError, match="persistent must be False, True, 'dynamic' or"):
        hopper_attention.kiln_hopper_attention(q, q, q, persistent="round-robin")
    with pytest.raises(ValueError, match="lazy_rescale=True is a form of the warp-specialized"):
        hopper_attention.kiln_hopper_attention(q, q, q, warp_specialized=False,
                                               lazy_rescale=True)


def _rising_maxima(q, k, scale, causal, bn):
    """How many (row, key block) pairs raise a row's running maximum by more than
    LAZY_THRESHOLD (log2 units) over the blocks before them: the moves lazy rescaling makes."""
    H, H_KV = q.shape[2], k.shape[2]
    kf = k.float().repeat_interleave(H // H_KV, dim=2)
    s = torch.einsum("bqhd,bkhd->bhqk", q.float(), kf) * (scale * 1.4426950408889634)
    if causal:
        lq, lk = q.shape[1], k.shape[1]
        rows = torch.arange(lq, device=q.device)[:, None]
        cols = torch.arange(lk, device=q.device)[None, :]
        s = s.masked_fill(cols > rows + (lk - lq), float("-inf"))
    m = torch.full(s.shape[:-1], float("-inf"), device=s.device)
    moves = 0
    for block in s.split(bn, dim=-1):
        bm = block.amax(dim=-1)
        moves += int(((bm > m + hopper_attention.LAZY_THRESHOLD) & torch.isfinite(m)).sum())
        m = torch.maximum(m, bm)
    return moves


@pytest.mark.parametrize("lazy", [True, False], ids=["lazy", "eager"])
@pytest.mark.parametrize("D", [64, 128, 256])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("form", [{}, {"persistent": True}, {"schedule": 0}],
                         ids=["tile", "persistent", "order0"])
@pytest.mark.parametrize("Nq,Nk", [(500, 300), (1000, 1000), (77, 700)])
def test_lazy_rescale(sm90, lazy, D, causal, form, Nq, Nk):
    """lazy_rescale on and off, on scores whose rows' maxima keep rising along the keys (each
    row's maximum moves by more than 2^8 again after its first block: checked on the inputs)
    so that lazy rows carry stale maxima and P up to 2^8: the reference's O and LSE, and the
    same bits on a second run (causal 500 x 300: rows of no key, LSE -inf). The default call
    is the form WS_LAZY names."""
    B, H, H_KV, dtype = 2, 4, 2, torch.float16
    q = torch.randn(B, Nq, H, D, device="cuda", dtype=dtype) * 4
    ramp = torch.linspace(0.1, 3.0, Nk, device="cuda")[None, :, None, None]
    k = (torch.randn(B, Nk, H_KV, D, device="cuda") * ramp).to(dtype)
    v = torch.randn(B, Nk, H_KV, D, device="cuda", dtype=dtype)
    scale = 1.0 / math.sqrt(D)
    assert _rising_maxima(q, k, scale, causal, hopper_attention.WS_CONFIGS[D][0]) > 0
    args = dict(causal=causal, lazy_rescale=lazy, **form)
    o, lse = hopper_attention.kiln_hopper_attention(q, k, v, **args)
    o2, lse2 = hopper_attention.kiln_hopper_attention(q, k, v, **args)
    torch.cuda.synchronize()
    ro, rlse = reference(q, k, v, causal, scale)
    torch.testing.assert_close(o.float(), ro, atol=2e-2, rtol=2e-2)
    torch.testing.assert_close(lse, rlse, atol=2e-3, rtol=2e-3)
    assert torch.equal(o, o2) and torch.equal(lse, lse2), "a second run gave other bits"
    if not form and lazy == hopper_attention.WS_LAZY[D]:
        o3, lse3 = hopper_attention.kiln_hopper_attention(q, k, v, causal=causal)
        torch.cuda.synchronize()
        assert torch.equal(o, o3) and torch.equal(lse, lse3), "the default is not this form"
