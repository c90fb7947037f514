#!/usr/bin/env python3
"""Compile every example kernel for every target and keep every stage; run them if a GPU is here.

    python3 examples/compile_all.py [--out build/stages] [--targets cuda:sm_90a,hip:gfx942]
                                    [--kernels vector_add,transpose] [--no-run]

For each target (default cuda:sm_90a, hip:gfx942, hip:gfx950) and kernel of
examples/kernels.py, kiln.compile() the kernel and write its stages (tile IR, LLVM dialect,
LLVM IR, PTX + cubin or AMDGCN + hsaco, metadata.json, replay.sh) into
<out>/<target with ':' as '_'>/<kernel>/. Prints a table and the command that replays one
compile with kiln-opt/kiln-translate. Then, if a GPU driver and torch are present, launches
each kernel through the JIT on the device's target and checks it against torch.

Exit status: 1 if any compile (or, when run, any check) fails.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)
for p in (os.path.join(_ROOT, "python"), _HERE):
    if p not in sys.path:
        sys.path.insert(0, p)

import kiln  # noqa: E402
import kernels as K  # noqa: E402


def _asm_lines(kernel) -> str:
    for stage in ("ptx", "amdgcn"):
        if stage in kernel.asm:
            return f"{len(kernel.asm[stage].splitlines())} ({stage})"
    return "-"


def compile_everything(out, targets, names):
    rows, failures, compiled = [], [], {}
    for target in targets:
        for name in names:
            cfg = K.config(name, target)
            folder = os.path.join(out, target.replace(":", "_"), name)
            try:
                kernel = kiln.compile(cfg["fn"], cfg["signature"], cfg["constexprs"],
                                      target=target, num_warps=cfg["num_warps"])
                written = kernel.write_stages(folder)
            except Exception as e:  # report every failure, then go on
                failures.append((name, target, e))
                rows.append((name, target, "FAILED", "-", "-"))
                continue
            compiled[(name, target)] = (kernel, folder)
            order = ("tile", "llvm_dialect", "llir", "ptx", "cubin", "amdgcn", "hsaco")
            stages = sorted((s for s in written if s not in ("metadata", "replay")),
                            key=lambda s: order.index(s) if s in order else len(order))
            rows.append((name, target, f"{len(stages)}: {','.join(stages)}",
                         str(kernel.metadata.get("shared", 0)), _asm_lines(kernel)))
    return rows, failures, compiled


def print_table(header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    line = "  ".join("{:<%d}" % w for w in widths)
    print(line.format(*header))
    print(line.format(*("-" * w for w in widths)))
    for r in rows:
        print(line.format(*r))


# ---------------------------------------------------------------------------------------------
# Running (only with a GPU and torch)
# ---------------------------------------------------------------------------------------------

def _run_checks(target):
    import torch
    torch.manual_seed(0)
    dev = "cuda"
    results = []

    def launch(name, grid, **args):
        cfg = K.config(name, target)
        K.KERNELS[name]["fn"][grid](**args, **cfg["constexprs"], num_warps=cfg["num_warps"])
        torch.cuda.synchronize()

    def check(name, ok, detail=""):
        results.append((name, target, "ok" if ok else "MISMATCH", detail))

    n = 100_003
    x, y = torch.randn(n, device=dev), torch.randn(n, device=dev)
    out = torch.full_like(x, float("nan"))
    launch("vector_add", K.grid("vector_add", target, n), x=x, y=y, out=out, n=n)
    check("vector_add", torch.equal(out, x + y), f"n={n}")

    M, N = 300, 257
    src = torch.randn(M, 400, device=dev)[:, :N]
    dst = torch.full((M, N), float("nan"), device=dev)
    launch("copy_2d", K.grid("copy_2d", target, M, N), src=src, dst=dst, M=M, N=N,
           stride_sm=src.stride(0), stride_dst_m=dst.stride(0))
    check("copy_2d", torch.equal(dst, src), f"{M}x{N}, src stride {src.stride(0)}")

    M, N = 67, 1000
    inp = torch.randn(M, N, device=dev) * 3
    sm = torch.full_like(inp, float("nan"))
    lse = torch.full((M,), float("nan"), device=dev)
    launch("softmax", K.grid("softmax", target, M), out=sm, lse=lse, inp=inp, M=M, N=N,
           stride_in=inp.stride(0), stride_out=sm.stride(0))
    ok = (torch.allclose(sm, torch.softmax(inp, 1), rtol=1e-4, atol=1e-6)
          and torch.allclose(lse, torch.logsumexp(inp, 1), rtol=1e-5, atol=1e-5))
    check("softmax", ok, f"{M}x{N}")

    M, N = 200, 131
    src = torch.randn(M, N, device=dev)
    dst = torch.full((N, M), float("nan"), device=dev)
    launch("transpose", K.grid("transpose", target, M, N), src=src, dst=dst, M=M, N=N,
           stride_sm=src.stride(0), stride_dst_n=dst.stride(0))
    check("transpose", torch.equal(dst, src.t()), f"{M}x{N}")
    return results


def run_on_gpu(targets):
    """Returns the number of failed checks (0 when skipped)."""
    from kiln.runtime import KilnRuntimeError, NoDeviceError, get_driver
    try:
        driver = get_driver()
    except NoDeviceError as e:  # its first clause: the libraries' search details are long
        print(f"\nno GPU here ({str(e).split(' (')[0]}): compiled only; on a GPU machine the "
              f"kernels also run against a reference")
        return 0
    except KilnRuntimeError as e:  # e.g. kiln._runtime not built
        print(f"\nno GPU runtime ({e}): compiled only")
        return 0
    target = driver.current_target()
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("torch sees no GPU")
    except ImportError as e:
        print(f"GPU {target} present but no usable torch ({e}): skipped running")
        return 0
    if target not in targets:
        print(f"GPU is {target}, which was not compiled for: skipped running")
        return 0
    print(f"\nrunning on {driver.info.get('name', target)} ({target})")
    try:
        results = _run_checks(target)
    except Exception:
        traceback.print_exc()
        return 1
    print_table(("kernel", "target", "result", "case"), results)
    return sum(r[2] != "ok" for r in results)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(_ROOT, "build", "stages"),
                    help="folder for the stages (default: build/stages)")
    ap.add_argument("--targets", default=",".join(K.TARGETS))
    ap.add_argument("--kernels", default=",".join(K.KERNELS))
    ap.add_argument("--no-run", action="store_true", help="compile only, even with a GPU")
    args = ap.parse_args(argv)
    targets = [t for t in args.targets.split(",") if t]
    names = [n for n in args.kernels.split(",") if n]
    unknown = [n for n in names if n not in K.KERNELS]
    if unknown:
        ap.error(f"unknown kernel(s) {unknown}; known: {list(K.KERNELS)}")

    rows, failures, compiled = compile_everything(args.out, targets, names)
    print(f"Kiln compiled {len(names)} example kernels (examples/kernels.py) from the Python DSL "
          f"for {len(targets)} targets, writing every stage, tile IR to binary:")
    print_table(("kernel", "target", "stages written", "shared bytes", "ptx/amdgcn lines"),
                rows)
    for name, target, e in failures:
        print(f"\nFAILED: {name} for {target}:\n{e}", file=sys.stderr)
    if compiled:
        pick = ("transpose", targets[0]) if ("transpose", targets[0]) in compiled else \
            next(iter(compiled))
        kernel, folder = compiled[pick]
        print(f"\nstages in {args.out}; replay {pick[0]} for {pick[1]} with:")
        print(f"  cd {folder} && {kernel.pipeline}")

    # The async kernels: what the compiler made of their copies and waits.
    import async_kernels as A
    async_targets = sorted(set(targets) | {"cuda:sm_80"}) if any(
        t.startswith("cuda:") for t in targets) else targets
    arows, afailures = A.compile_async(async_targets, args.out)
    if arows:
        print("\nThe async kernels (examples/async_kernels.py, stages under the same folder): the "
              "copies Kiln issued, the waits it\ncomputed, and the checks. 'async-safety' is "
              "tile-check-async-safety (a read before the wait covering its copy\nis a compile "
              "error); 'vmcnt check' simulates the AMD load counter over the final assembly and "
              "confirms each\nwait covers its copies. gfx950 moves 16 bytes a lane per LDS DMA, "
              "gfx942 4, hence 3 against 12.")
        print_table(("async kernel", "target", "async instructions", "waits Kiln computed",
                     "checker"), arows)
    for name, target, e in afailures:
        print(f"\nFAILED: {name} for {target}:\n{e}", file=sys.stderr)
    failures += afailures
    failures += [(n, t, "checker") for n, t, *_, verdict in arows if "violation" in verdict]

    failed_runs = 0 if args.no_run else run_on_gpu(targets)
    if failures or failed_runs:
        print(f"\n{len(failures)} compile failure(s), {failed_runs} failed check(s)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
