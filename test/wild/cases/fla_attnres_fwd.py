"""flash-linear-attention AttnRes forward (attnres_fwd_kernel_gluon, autotuned) through the
backend's own entry (_run): L=8 sources of [8192, 2048] bf16."""
from _fla import PROJECT, MODULE, TARGET, KIND, inputs, reference, L, N, D  # noqa: F401

NAME = "fla_attnres_fwd"


def setup(mod):
    from harness import rel_error
    q, w, res, scale = inputs()
    ref = reference(q, w, res, scale)
    out = {}

    def launch():
        out["o"] = mod._run(q, res, w, None, 1e-6, scale, False, 1)

    def check():
        err = rel_error(out["o"], ref)
        return err < 2e-2, err, f"L={L} N={N} D={D}, bf16 out, max|o-ref|/max|ref|"
    return launch, check
