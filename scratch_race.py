import sys, os, torch
sys.path.insert(0, os.getcwd())
from examples import pipelined as P
a = torch.randn(300, 200, device="cuda").half(); b = torch.randn(200, 264, device="cuda").half()
c = P.mma_v2_matmul(a, b, STAGES=3)
bw = torch.randn(264, 200, device="cuda").bfloat16(); aw = a.bfloat16()
d4 = P.wgmma_matmul(aw, bw, STAGES=4, num_warps=4)
d8 = P.wgmma_matmul(aw, bw, STAGES=3, num_warps=8)
x = torch.randn(100, 1000, device="cuda"); s = P.row_sum(x, STAGES=3)
torch.cuda.synchronize()
r = aw.float() @ bw.float().T
print("max errs", (c.float() - a.float() @ b.float()).abs().max().item(), (d4.float() - r).abs().max().item(),
      (d8.float() - r).abs().max().item(), (s - x.sum(1)).abs().max().item())
