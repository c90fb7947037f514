"""The async section of README's main job (examples/compile_all.py, examples/async_kernels.py):
the cp.async ring, the TMA + wgmma GEMM and the AMD direct-to-LDS ring compile for their
targets, and the table shows their async instructions, the waits Kiln computed and the
checker's verdict."""

import compiled  # noqa: F401  (examples/ on sys.path)
import async_kernels as A  # noqa: E402

pytestmark = compiled.needs_compiler


def test_async_kernels_compile_with_their_waits_and_a_clean_checker():
    targets = ["cuda:sm_80", "cuda:sm_90a", "hip:gfx942", "hip:gfx950"]
    rows, failures = A.compile_async(targets)
    assert not failures, failures
    table = {(r[0], r[1]): r[2:] for r in rows}
    assert set(table) == {(n, t) for n, (ts, _) in A.ASYNC_KERNELS.items() for t in ts}
    for target in ("cuda:sm_80", "cuda:sm_90a"):
        instrs, waits, verdict = table[("cp_async_ring", target)]
        assert "cp.async" in instrs and "cp.async.wait_group 2" in waits, (instrs, waits)
        assert verdict == "async-safety: ok"
    instrs, waits, _ = table[("tma_wgmma_gemm", "cuda:sm_90a")]
    assert "6 tma load" in instrs and "4 wgmma" in instrs and "wgmma.wait_group 1" in waits
    for target in ("hip:gfx942", "hip:gfx950"):
        instrs, waits, verdict = table[("amd_lds_ring", target)]
        assert "lds dma" in instrs and "s_waitcnt vmcnt(" in waits, (instrs, waits)
        assert "vmcnt(0)" not in waits and verdict.endswith("vmcnt check: ok"), (waits, verdict)
