import sys, os, torch
sys.path.insert(0, os.getcwd())
from examples import pipelined as P
a = torch.randn(300, 200, device="cuda").half(); b = torch.randn(200, 264, device="cuda").half()
c = P.mma_v2_matmul(a, b, STAGES=3)
bw = torch.randn(264, 200, device="cuda").bfloat16(); aw = a.bfloat16()
d4 = P.wgmma_matmul(aw, bw, STAGES=4, num_warps=4)
d8 = P.wgmma_matmul(aw, bw, STAGES=3, num_warps=8)
t4 = P.tma_matmul(aw, bw, STAGES=4, num_warps=4)
t8 = P.tma_matmul(aw, bw, STAGES=3, num_warps=8)
x = torch.randn(100, 1000, device="cuda"); s = P.row_sum(x, STAGES=3)
torch.cuda.synchronize()
r = aw.float() @ bw.float().T
rel = lambda o: ((o.float() - r).norm() / r.norm()).item()
print("rel errs", ((c.float() - a.float() @ b.float()).norm() / (a.float() @ b.float()).norm()).item(),
      rel(d4), rel(d8), rel(t4), rel(t8), (s - x.sum(1)).abs().max().item())
