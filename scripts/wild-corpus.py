#!/usr/bin/env python3
"""Gluon kernels "in the wild": pins of real Gluon kernels that public projects other than Triton
ship, and the restore step that brings them into an ignored folder.

    python3 scripts/wild-corpus.py list                  # the pins, one a line
    python3 scripts/wild-corpus.py restore [--dest build/wild]

The kernels stay their authors' code: this file only names them (repository, commit, path, git
blob sha). ``restore`` reads each pinned blob out of a local git mirror of its repository
(``/work/.mirror/<owner>+<name>/repo`` by default; ``--mirrors DIR`` or $WILD_MIRRORS for
another folder of mirrors laid out the same way), checks that the bytes hash to the pinned
blob sha, and writes them to ``<dest>/src/<project>/<path>``, one folder per project so that
each file's imports (relative or absolute, ``from .utils import ...`` / ``from aiter.ops...``)
find the pinned siblings. A package folder whose own ``__init__.py`` is not pinned gets an
empty one (written by this script, not the project's), so that importing a kernel does not
import the rest of its project. The Kiln copies (scripts/gluon_swap.py's import swap) go to
``<dest>/kiln/<project>/<path>``; scripts/wild-suite.py rewrites them before each run.

Exit status 1 when any pin could not be restored; each one says why (and, for a missing
mirror, which repository to fetch).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from gluon_swap import swap_imports  # noqa: E402

DEFAULT_MIRRORS = "/work/.mirror"

# The projects: the folder under <dest>/src and <dest>/kiln, the repository and the commit
# every pin of that project is taken at (one commit a project, so that siblings match).
PROJECTS = {
    "lmdeploy": ("InternLM/lmdeploy", "1263d5cd889b7ad500e85b8eb20401327a4516ab"),
    "flagdnn": ("flagos-ai/FlagDNN", "c56a33ae403e756e6a436db8efecc658df303897"),
    "fla": ("fla-org/flash-linear-attention", "bc3b101dcb713ddc5bd8924b66754eb68b5ccf89"),
    "aiter": ("ROCm/aiter", "e4048607a535ace3a2b51ded31b1c8c2d45c0879"),
    # FlagGems' Gluon FP8 block-scaled BMM, on master until it was rewritten in TLE (af5291a).
    "flaggems": ("flagos-ai/FlagGems", "5a95a79a110c01cbbb4462aafe16cac178e490d3"),
    # tokenspeed's gfx950 MXFP4 MoE prefill stages, from the commit that merged them (#670), when
    # they still imported Triton directly (later ones import a renamed Triton package).
    "tokenspeed": ("lightseekorg/tokenspeed", "b024c6d77a258f27ba92081261b960b8c5b8ef91"),
    # Primus-Turbo's gfx950 Gluon flash-attention forward (pull request #469's head).
    "primus_turbo": ("AMD-AGI/Primus-Turbo", "6196e777b80e8f535643f0eed1c0c1586bf8d857"),
}

# (project, path, blob sha, what it is). A "kernel" line holds @gluon.jit kernels; a "dep" line
# is a sibling module the kernel file imports (pinned so that its imports resolve).
PINS = [
    # lmdeploy: blocked-FP8 (128x128 block scales) GEMM for Hopper, four schedules in one file:
    # single-partition multistage, the transposed small-M form (C^T = B A^T), a warp-specialized
    # TMA producer / WGMMA consumer, and a persistent two-wave kernel.
    ("lmdeploy", "lmdeploy/pytorch/kernels/cuda/blocked_fp8_gemm_gluon.py",
     "37edb519be3398caf350308fbac773758ce2a4be",
     "kernel: FP8 block-scaled GEMM (single-pass, transposed small-M, warp-specialized, "
     "persistent), sm_90a, TMA + WGMMA + mbarrier"),
    ("lmdeploy", "lmdeploy/pytorch/kernels/cuda/utils.py",
     "53410243bd7cd7a6d59b46fbff1807d9d604cba4", "dep: get_device_props"),
    # FlagDNN: Hopper matmul kernels (its C++ runtime launches them; no Python launcher).
    ("flagdnn", "backends/nvidia/kernels/matmul_sm90.py",
     "363130a29c3b2c75056b14278e1e5d0a2b9c944f",
     "kernel: batched TMA + WGMMA matmul, multistage and warp-specialized, sm_90a"),
    # flash-linear-attention: the Gluon backend of the fused AttnRes op (depth-softmax mixing
    # of residual streams), forward and backward, cp.async staged.
    ("fla", "fla/ops/attnres/backends/gluon.py", "c4575754c8514c809e46d5d945b905c4d5f219ed",
     "kernel: AttnRes forward / backward (dv, dq/dw), sm_80+ cp.async"),
    ("fla", "fla/__init__.py", "7812db8ece271661a018a9d5708d53ed2fc6dcec",
     "dep: the package (__version__; its optional fla.layers / fla.models are not pinned)"),
    ("fla", "fla/ops/backends/__init__.py", "4fd2881bef1c297d7ee820bcedff1dba7533b4b0",
     "dep: BaseBackend"),
    ("fla", "fla/ops/utils/cache.py", "40ab2dbc1802212f1e3e3ef4c97c2bc3ac79148f",
     "dep: fla_cache_autotune"),
    ("fla", "fla/utils/__init__.py", "8272e833b4ac6233502c546f1561ddb9ff534bff", "dep: fla.utils"),
    ("fla", "fla/utils/_compat.py", "24b463a8ac7de9805482d6ff1df044fb4a6fec84", "dep"),
    ("fla", "fla/utils/_config.py", "79b6ce8a784f457b847834a6f3f6128a06bcf3f3", "dep"),
    ("fla", "fla/utils/_decorators.py", "564441fec5aba5c33dc3289838d0e6eaf100e1ec", "dep"),
    ("fla", "fla/utils/_device.py", "42d15adb441112c8c93982e9792ac66e8f8f6542", "dep"),
    ("fla", "fla/utils/_testing.py", "12064dcc4d48c88a89856afac93db66aceaeaa79", "dep"),
    # aiter (AMD): CDNA3 / CDNA4 Gluon kernels.
    ("aiter", "aiter/ops/triton/gluon/gemm_a8w8.py", "da5d00f7e576e86b72e1366f3e11adb103f8c0e3",
     "kernel: FP8/INT8 GEMM with per-row/per-column scales, gfx950"),
    ("aiter", "aiter/ops/triton/gluon/gemm_a8w8_blockscale.py",
     "251ed32b7a480cd302358f93295c493513215ca8",
     "kernel: FP8 GEMM with 128x128 block scales (+ split-K reduce), gfx950"),
    ("aiter", "aiter/ops/triton/gluon/gemm_afp4wfp4.py",
     "da39234bb9b7a92ed87cdf64978c8c91898ffab0",
     "kernel: MXFP4 x MXFP4 GEMM (e8m0 scales, scaled MFMA), gfx950"),
    ("aiter", "aiter/ops/triton/_gluon_kernels/gfx942/moe/moe_op_gemm_int8_smoothquant.py",
     "e2ad5e3b8744193ff470bf326dc5b58f016ddcdc",
     "kernel: MoE grouped INT8 GEMM with SmoothQuant scales (small K), gfx942"),
    ("aiter", "aiter/ops/triton/_triton_kernels/gated_delta_rule/decode/"
     "causal_conv1d_update_split_qkv.py", "4bceafa2b584319b550a8d48483868919381efa6",
     "kernel: causal conv1d decode update split into q/k/v (tuple and no-tuple forms), wave64"),
    ("aiter", "aiter/ops/triton/gated_delta_net/causal_conv1d_decode.py",
     "09ced58e3a0687d44531f38b967ea9bb8a83edfe", "dep: causal_conv1d_update_split_qkv launcher"),
    ("aiter", "aiter/ops/triton/_gluon_kernels/gfx950/attention/pa_decode_sparse.py",
     "54d526ca51b1caef1e5d462bff1d1521618397ea",
     "kernel: DeepSeek-V4 sparse-MLA paged decode (SWA + top-k, split-K + reduce), gfx950"),
    ("aiter", "aiter/ops/triton/attention/pa_decode_sparse.py",
     "c6fafb181e6734bba008cb59fbe70aaa5734b646", "dep: pa_decode_sparse launcher"),
    ("aiter", "aiter/ops/triton/_gluon_kernels/gfx1250/attention/pa_decode_sparse.py",
     "10c6bb548d823ee0b803e37133170e40b58e0744",
     "dep: the gfx1250 form (imported by the launcher; not compiled here)"),
    ("aiter", "aiter/ops/triton/_triton_kernels/attention/pa_decode_sparse.py",
     "6c5b27a8e58477ce57c21bbcb41fe78aa8fb9dab", "dep: the @triton.jit fallback"),
    ("aiter", "aiter/ops/triton/_gluon_kernels/gfx950/attention/fp8_mqa_logits.py",
     "2210dcfec4a55ae606f175ebd222dd0a72401929",
     "kernel: FP8 MQA logits of the DSA indexer (prefill scores), gfx950"),
    ("aiter", "aiter/ops/triton/attention/fp8_mqa_logits.py",
     "8d33e29e4789ab3424ce3ccb43f271fb17bd924d", "dep: fp8_mqa_logits launcher"),
    ("aiter", "aiter/ops/triton/_triton_kernels/attention/fp8_mqa_logits.py",
     "de32438fb9d93be24389be062b9a980ee457571b", "dep: the @triton.jit fallback"),
    ("aiter", "aiter/ops/triton/gluon/pa_decode_gluon.py",
     "2f844821904ea4d95e56682649b947b87475d4db",
     "kernel: paged-attention decode (bf16 / FP8 KV cache, GQA, MTP, sliding window; split "
     "contexts + reduce), gfx942 and gfx950"),
    ("aiter", "aiter/ops/triton/gluon/mla_gluon.py", "d5fd37a77241c0d57e046bb89f33c9ac14c26a98",
     "kernel: MLA decode / DeepSeek-V4 sparse prefill (bf16 / FP8 latent cache), gfx950"),
    ("aiter", "aiter/ops/triton/gluon/pa_mqa_logits.py",
     "0de3acb008ddd133cf5fb92509be0eca28285d7a",
     "kernel: FP8 paged MQA logits of the DSA indexer (decode scores), gfx942 and gfx950"),
    ("aiter", "aiter/ops/triton/utils/types.py", "3515be9114ae12639ecd4631a86c0abf66d6f827",
     "dep: torch_to_triton_dtype (pa_decode_gluon)"),
    ("aiter", "aiter/ops/triton/utils/_triton/kernel_repr.py",
     "eba38e3fb7fa87c8d5a030ddf2b4fa14b37ee034", "dep"),
    ("aiter", "aiter/ops/triton/utils/common_utils.py",
     "d11ae3dc9cf6f061d5f9717d21640de5f2938e91", "dep"),
    ("aiter", "aiter/ops/triton/utils/_triton/arch_info.py",
     "2c2ad799b894a26e4e5760c27a1a71c948433b36", "dep"),
    ("aiter", "aiter/ops/triton/utils/_triton/pid_preprocessing.py",
     "d1a2a001d5a8cfda959a1a10209dd12eda0b3902", "dep: pid_grid, remap_xcd (@triton.jit)"),
    ("aiter", "aiter/ops/triton/utils/core.py", "13ea84aafae93ae6a92dadeca7b277881ad3245f", "dep"),
    ("aiter", "aiter/ops/triton/utils/device_info.py",
     "3041481d312c4d1800a6ed3411cac3e7dae58d8b", "dep"),
    ("aiter", "aiter/ops/triton/utils/gemm_config_utils.py",
     "70d882e1ccf886409b54a7a27fb02d0539507675", "dep"),
    ("aiter", "aiter/ops/triton/utils/logger.py", "652104040a95d8c341b59e8ee832d517f61453a8",
     "dep"),
    # FlagGems (NVIDIA): DeepSeek's FP8 block-scaled batched GEMM for Hopper.
    ("flaggems", "src/flag_gems/runtime/backend/_nvidia/hopper/ops/w8a8_block_fp8_bmm.py",
     "c58d457301e9f5a9f0e352aa128380925bf0e896",
     "kernel: FP8 BMM with per-token x 128x128 block scales, persistent, warp-specialized TMA "
     "producer / WGMMA consumer, swap-AB for small M, sm_90a"),
    ("flaggems", "src/flag_gems/runtime/backend/_nvidia/hopper/ops/fp8_einsum.py",
     "e676da64da60fc936baa5c4fe8880bd1f7524a2a",
     "dep: fp8_einsum('bhr,hdr->bhd') launcher (strided 3-D operands)"),
    # tokenspeed (AMD): the MXFP4 (e2m1 + e8m0 scales) MoE prefill GEMMs for CDNA4.
    ("tokenspeed", "tokenspeed-kernel-amd/python/tokenspeed_kernel_amd/ops/moe/gluon_a4w4_gfx950/"
     "prefill_stage1.py", "17a69056e3b75d96fa65e503f65fffaabad7b51f",
     "kernel: MoE stage 1 (gate/up GEMM + SwiGLU), scaled MFMA, direct-to-LDS copies, gfx950"),
    ("tokenspeed", "tokenspeed-kernel-amd/python/tokenspeed_kernel_amd/ops/moe/gluon_a4w4_gfx950/"
     "prefill_stage2.py", "12b49a85ad7507581411ea1e34543bed6facd480",
     "kernel: MoE stage 2 (down GEMM, routed-weight atomic combine), scaled MFMA, gfx950"),
    # Primus-Turbo (AMD): a CDNA4 flash-attention forward (vendored from AMD's gluon-kernels).
    ("primus_turbo", "primus_turbo/gluon/__init__.py", "6b2fb4f9b22a50bdc5e313e5b60fef266f6ab019",
     "dep: package marker"),
    ("primus_turbo", "primus_turbo/gluon/attention/__init__.py",
     "356ada9796dcd6dd977abd843c2609967737d7ac", "dep: package marker"),
    ("primus_turbo", "primus_turbo/gluon/attention/f16_fa_gfx950_common.py",
     "b2f56083f1aba7f720c3ef7b60a011317f1a26fb", "dep: shared attention helpers"),
    ("primus_turbo", "primus_turbo/gluon/attention/f16_fa_gfx950_rotated_4cluster.py",
     "4387e2fc1db0c72b917d04691dbc48cb84e37226",
     "kernel: fp16/bf16 flash-attention forward, rotated 4-cluster schedule, warp-pipeline "
     "stages, gfx950 (needs Gluon after 3.6)"),
]


def mirror_dir(mirrors: str, repo: str) -> str:
    return os.path.join(mirrors, repo.replace("/", "+"), "repo")


def blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def read_blob(git_dir: str, sha: str) -> bytes:
    r = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "blob", sha],
                       capture_output=True)
    if r.returncode != 0:
        raise LookupError(r.stderr.decode(errors="replace").strip() or "git cat-file failed")
    return r.stdout


def _write(path: str, data: bytes):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def _stub_packages(tree: str, rel_paths):
    """An empty __init__.py in every package folder of ``rel_paths`` that has none."""
    pinned = {p for p in rel_paths if p.endswith("__init__.py")}
    for rel in rel_paths:
        parts = rel.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            init = "/".join(parts[:i] + ["__init__.py"])
            path = os.path.join(tree, init)
            if init not in pinned and not os.path.exists(path):
                _write(path, b"# package marker written by kiln's scripts/wild-corpus.py\n")


def write_kiln_copies(dest: str):
    """<dest>/kiln/<project>/...: every restored file with its Gluon imports swapped."""
    src_root, kiln_root = os.path.join(dest, "src"), os.path.join(dest, "kiln")
    for folder, _, files in os.walk(src_root):
        for name in files:
            if not name.endswith(".py"):
                continue
            src = os.path.join(folder, name)
            rel = os.path.relpath(src, src_root)
            with open(src, encoding="utf-8") as f:
                text = f.read()
            out = os.path.join(kiln_root, rel)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out, "w", encoding="utf-8") as f:
                f.write(swap_imports(text))


def restore(dest: str, mirrors: str) -> int:
    failures = []
    restored = {}
    for project, path, sha, _ in PINS:
        repo, commit = PROJECTS[project]
        git_dir = mirror_dir(mirrors, repo)
        where = f"{repo}@{commit[:12]}:{path}"
        if not os.path.isdir(git_dir):
            failures.append((where, f"no mirror of {repo} at {git_dir}: fetch github:{repo} "
                                    f"(a git dir laid out as <mirrors>/<owner>+<name>/repo)"))
            continue
        try:
            data = read_blob(git_dir, sha)
        except LookupError as e:
            failures.append((where, f"blob {sha} is not in the mirror {git_dir} ({e}); the "
                                    f"mirror may predate commit {commit}: fetch github:{repo} "
                                    f"again"))
            continue
        got = blob_sha(data)
        if got != sha:
            failures.append((where, f"the mirror's bytes hash to {got}, not the pinned {sha}"))
            continue
        _write(os.path.join(dest, "src", project, path), data)
        restored.setdefault(project, []).append(path)
    for project, paths in restored.items():
        _stub_packages(os.path.join(dest, "src", project), paths)
    write_kiln_copies(dest)
    n = sum(len(v) for v in restored.values())
    print(f"restored {n} of {len(PINS)} pinned files into {os.path.join(dest, 'src')} "
          f"(Kiln copies in {os.path.join(dest, 'kiln')})")
    for where, why in failures:
        print(f"NOT RESTORED {where}: {why}")
    return 1 if failures else 0


def list_pins():
    for project, path, sha, what in PINS:
        repo, commit = PROJECTS[project]
        print(f"{project:9} {repo}@{commit[:12]} {path} blob {sha[:12]}  {what}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("restore", help="restore the pinned files (and their Kiln copies)")
    r.add_argument("--dest", default=os.path.join(ROOT, "build", "wild"))
    r.add_argument("--mirrors", default=os.environ.get("WILD_MIRRORS", DEFAULT_MIRRORS))
    sub.add_parser("list", help="print the pins")
    args = ap.parse_args(argv)
    if args.cmd == "list":
        list_pins()
        return 0
    return restore(os.path.abspath(args.dest), args.mirrors)


if __name__ == "__main__":
    sys.exit(main())
