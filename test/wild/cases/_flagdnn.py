"""Shared by the FlagDNN Hopper matmul cases. FlagDNN's C++ runtime launches these kernels; the
harness builds the TMA descriptors the kernels read (A [batch*m, k], B [batch*k, n],
C [batch*m, n], bf16) and launches the kernel itself."""

PROJECT = "flagdnn"
MODULE = "backends.nvidia.kernels.matmul_sm90"
TARGET = "sm_90a"
KIND = "run"


def make_setup(kernel_name, batch, m, n, k, bm, bn, bk, num_warps, num_buffers, **extra):
    def setup(mod):
        import torch
        from harness import gluon_of, rel_error
        gl, TensorDescriptor = gluon_of(mod)
        torch.manual_seed(0)
        a = torch.randn(batch * m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(batch * k, n, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(batch * m, n, device="cuda", dtype=torch.bfloat16)

        def desc(t, block):
            layout = gl.NVMMASharedLayout.get_default_for(block, gl.bfloat16)
            return TensorDescriptor.from_tensor(t, block, layout)
        a_desc, b_desc, c_desc = desc(a, [bm, bk]), desc(b, [bk, bn]), desc(c, [bm, bn])
        tiles = batch * ((m + bm - 1) // bm) * ((n + bn - 1) // bn)
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        grid = (min(tiles, sms),)
        kernel = getattr(mod, kernel_name)
        ref = torch.bmm(a.view(batch, m, k).float(), b.view(batch, k, n).float()).view(batch * m, n)

        def launch():
            kernel[grid](a_desc, b_desc, c_desc, batch, m, n, k, num_buffers=num_buffers,
                         precision=None, num_warps=num_warps, **extra)

        def check():
            err = rel_error(c, ref)
            return err < 1e-2, err, f"batch={batch} m={m} n={n} k={k}, bf16, max|c-ref|/max|ref|"
        return launch, check
    return setup
