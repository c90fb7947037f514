"""FlagDNN _matmul_sm90_kernel: persistent multistage TMA + WGMMA batched matmul, bf16."""
from _flagdnn import PROJECT, MODULE, TARGET, KIND, make_setup  # noqa: F401

NAME = "flagdnn_matmul_sm90"
setup = make_setup("_matmul_sm90_kernel", batch=4, m=2048, n=2048, k=1024, bm=128, bn=128, bk=64,
                   num_warps=4, num_buffers=4)
