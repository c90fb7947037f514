"""FlagDNN _matmul_sm90_ws_kernel: warp-specialized (load / WGMMA / TMA-store partitions)
batched matmul, bf16; its partitions are specialized for batch 16, m = n = 2048, k = 512."""
from _flagdnn import PROJECT, MODULE, TARGET, KIND, make_setup  # noqa: F401

NAME = "flagdnn_matmul_sm90_ws"
setup = make_setup("_matmul_sm90_ws_kernel", batch=16, m=2048, n=2048, k=512, bm=128, bn=128,
                   bk=64, num_warps=8, num_buffers=4, cube_variant=False)
