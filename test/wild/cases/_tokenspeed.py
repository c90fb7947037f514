"""Shared by the tokenspeed (AMD) cases: compile-only (there is no AMD GPU). tokenspeed's own
host launchers run on small zero tensors on the GPU machine's device, only for their dtypes,
shapes, strides and alignment; harness.capture stops each at ``kernel[grid](...)`` and the
harness compiles what it recorded for gfx950 with Triton and with Kiln.

The MXFP4 MoE prefill GEMMs take the layouts tokenspeed's MoE pipeline hands them: packed e2m1
activations and weights (two per byte) with e8m0 scales per 32 K, the weights already in the
(16, 16) MFMA-tile order (``b_preshuffled=True``), and the sorted-token routing arrays (token
ids per expert, padded to the 128-row block, one expert id per block)."""

PROJECT = "tokenspeed"
KIND = "compile"
TARGET = "gfx950"
PACKAGE = "tokenspeed-kernel-amd.python.tokenspeed_kernel_amd.ops.moe.gluon_a4w4_gfx950"

# DeepSeek-V3-like MoE at 8-way tensor parallelism: hidden 7168, 256 of the 2048 intermediate
# columns per rank, 32 local experts, top-8 routing.
HIDDEN, INTER, EXPERTS, TOPK, BLOCK_M = 7168, 256, 32, 8, 128


def routing(tokens):
    """(sorted_token_ids, sorted_expert_ids, num_valid_ids, sorted_weights) sized as the
    routing kernel sizes them: every expert's rows padded to BLOCK_M."""
    import torch
    em = tokens * TOPK + EXPERTS * (BLOCK_M - 1)
    em = -(-em // BLOCK_M) * BLOCK_M
    ids = torch.zeros(em, device="cuda", dtype=torch.int32)
    experts = torch.zeros(em // BLOCK_M, device="cuda", dtype=torch.int32)
    valid = torch.tensor([tokens * TOPK], device="cuda", dtype=torch.int32)
    weights = torch.ones(em, device="cuda")
    return ids, experts, valid, weights
