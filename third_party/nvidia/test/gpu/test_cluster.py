"""Programs of num_ctas CTAs with layouts split among them (cga_layout), against torch on fresh
random inputs: Triton's multi-CTA copy, a reduction along a dimension the cluster does not
split, and program_id / num_programs counting programs (clusters), as in Gluon."""

from __future__ import annotations

import os
import sys

import pytest

import kiln
import kiln.language as kl

torch = pytest.importorskip("torch", reason="the GPU tests launch on torch tensors")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..",
                                "test", "Python"))
import test_cluster_dsl as k  # noqa: E402


@pytest.mark.parametrize("num_ctas,cga", [(2, [[1]]), (4, [[1], [2]]), (4, [[1], [0]]),
                                          (16, [[1], [2], [4], [8]])])
def test_multi_cta_copy(target, num_ctas, cga):
    layout = kl.BlockedLayout([8], [32], [8], [0], cga_layout=cga)
    inp = torch.randn(2048 * 4 - 7, device="cuda")
    out = torch.full_like(inp, float("nan"))
    k.copy_kernel[(4,)](out, inp, inp.numel(), 2048, layout, num_warps=8, num_ctas=num_ctas)
    torch.testing.assert_close(out, inp)


def test_column_sums_split_by_columns(target):
    x = torch.randn(64, 64, device="cuda")
    out = torch.full((64,), float("nan"), device="cuda")
    k.sum_rows[(1,)](x, out, k.COLS, num_warps=4, num_ctas=2)
    torch.testing.assert_close(out, x.sum(0), atol=1e-4, rtol=1e-4)


@kiln.jit
def ids(out, L: kl.constexpr):
    offs = kl.program_id(0) * 256 + kl.arange(0, 256, L)
    kl.store(out + offs, kl.program_id(0) * 1000 + kl.num_programs(0) + offs * 0)


def test_program_id_counts_clusters(target):
    out = torch.full((3 * 256,), -1, device="cuda", dtype=torch.int32)
    ids[(3,)](out, kl.BlockedLayout([1], [32], [4], [0], cga_layout=[[1], [2]]), num_warps=4,
              num_ctas=4)
    want = torch.arange(3, device="cuda", dtype=torch.int32).repeat_interleave(256) * 1000 + 3
    torch.testing.assert_close(out, want)


_CLUSTER_PTX = r"""
.version 8.0
.target sm_90a
.address_size 64
.visible .entry cluster_ids(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, %cluster_nctarank;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r2, %r3};
  ret;
}
"""


@pytest.mark.parametrize("cluster", [1, 2, 4, 8, 16])
def test_launch_forms_hardware_clusters(target, cluster):
    # The hardware's own view (%cluster_ctarank / %cluster_nctarank), read by a PTX kernel
    # launched through the driver as num_ctas kernels are: CTA x has rank x mod cluster in a
    # cluster of `cluster` (16 is a non-portable size the launch must allow).
    if not target.startswith("cuda:sm_9"):
        pytest.skip("thread-block clusters need sm_90")
    from kiln.runtime import get_driver
    drv = get_driver()
    func = drv.get_function(drv.load_module(_CLUSTER_PTX.encode()), "cluster_ids", 0)
    out = torch.full((32, 2), -1, dtype=torch.int32, device="cuda")
    drv.launch(func, (32, 1, 1), (32, 1, 1), 0, 0, ["*i32"], [out.data_ptr()], cluster=cluster)
    torch.cuda.synchronize()
    x = torch.arange(32, device="cuda", dtype=torch.int32)
    assert torch.equal(out[:, 0], x % cluster)
    assert torch.equal(out[:, 1], torch.full_like(x, cluster))


@pytest.mark.parametrize("num_ctas", [1, 2, 4])
def test_cluster_barriers_run(target, num_ctas):
    """hopper.cluster.barrier / arrive / wait and the mbarrier-init fence on 1-, 2- and
    4-CTA clusters: every CTA passes them (no hang) and the copy around them is exact."""
    if target != "cuda:sm_90a":
        pytest.skip("cluster barriers need sm_90a")
    import test_newer_gluon_names_dsl as names
    x = torch.randn(128, device="cuda")
    y = torch.full_like(x, float("nan"))
    names.cluster_barrier_kernel[(3,)](x, y, num_ctas=num_ctas)
    torch.cuda.synchronize()
    torch.testing.assert_close(y, x, rtol=0, atol=0)


@pytest.mark.parametrize("layout,num_ctas", [(k.ROWS, 2), (k.ROWS4, 4)])
def test_column_sums_split_by_rows(target, layout, num_ctas):
    # Each CTA sums its rows; the CTAs combine their sums through distributed shared memory.
    x = torch.randn(64, 64, device="cuda")
    out = torch.full((64,), float("nan"), device="cuda")
    k.sum_rows[(1,)](x, out, layout, num_warps=4, num_ctas=num_ctas)
    torch.testing.assert_close(out, x.sum(0), atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("n,num_ctas,num_warps", [(64, 2, 1), (1024, 2, 4), (4096, 4, 4),
                                                  (65536, 4, 4), (65536, 16, 4)])
def test_softmax_of_rows_split_among_ctas(target, n, num_ctas, num_warps):
    cga = [[1 << b] for b in range(num_ctas.bit_length() - 1)]
    layout = kl.BlockedLayout([4], [32], [num_warps], [0], cga_layout=cga)
    rows = 16
    x = torch.randn(rows, n, device="cuda") * 4
    out = torch.full_like(x, float("nan"))
    k.row_softmax[(rows,)](x, out, n, layout, num_warps=num_warps, num_ctas=num_ctas)
    torch.testing.assert_close(out, torch.softmax(x, dim=1), atol=1e-6, rtol=1e-4)
    again = torch.full_like(x, float("nan"))
    k.row_softmax[(rows,)](x, again, n, layout, num_warps=num_warps, num_ctas=num_ctas)
    assert torch.equal(out, again)  # the same bits each run (the CTAs combine in rank order)


@pytest.mark.parametrize("num_ctas", [2, 4])
def test_argmax_of_rows_split_among_ctas(target, num_ctas):
    cga = [[1 << b] for b in range(num_ctas.bit_length() - 1)]
    layout = kl.BlockedLayout([4], [32], [4], [0], cga_layout=cga)
    rows, n = 8, 4096
    x = torch.randint(-50, 50, (rows, n), device="cuda").float()  # ties: the first index wins
    out = torch.full((rows,), -1, device="cuda", dtype=torch.int32)
    k.row_argmax[(rows,)](x, out, n, layout, num_warps=4, num_ctas=num_ctas)
    want = torch.tensor([int((row == row.max()).nonzero()[0]) for row in x.cpu()],
                        dtype=torch.int32, device="cuda")
    torch.testing.assert_close(out, want)


@pytest.mark.parametrize("num_ctas", [2, 4])
def test_row_softmax_keeping_dims_across_ctas(target, num_ctas):
    cga = [[0, 1 << b] for b in range(num_ctas.bit_length() - 1)]
    layout = kl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0], cga_layout=cga)
    x = torch.randn(16, 1024, device="cuda") * 3
    out = torch.full_like(x, float("nan"))
    k.rows_softmax_keep_dims[(1,)](x, out, 16, 1024, layout, num_warps=4, num_ctas=num_ctas)
    torch.testing.assert_close(out, torch.softmax(x, dim=1), atol=1e-6, rtol=1e-4)


@pytest.mark.parametrize("src, dst, num_ctas", [(k.ROWS, k.COLS, 2), (k.ROWS4, k.COLS4, 4),
                                                (k.ROWS4, k.WHOLE, 4), (k.WHOLE, k.ROWS4, 4)])
def test_convert_layout_between_splits(target, src, dst, num_ctas):
    # loaded in one split, stored in another: the values cross between the CTAs
    x = torch.randn(64, 64, device="cuda")
    out = torch.full_like(x, float("nan"))
    k.resplit_copy[(1,)](x, out, src, dst, num_warps=4, num_ctas=num_ctas)
    assert torch.equal(out, x)
