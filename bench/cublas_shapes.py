"""cuBLAS's IEEE fp32 GEMM (torch.mm, TF32 off) at the SO(2) linears'
product shapes, 645,240 rows: how far sezm's GEMM kernels are from it."""
import torch

torch.backends.cuda.matmul.allow_tf32 = False
rows = 645240
for name, depth, cols in [("mini m0", 96, 96), ("mini m1", 128, 128),
                          ("default m0", 256, 256), ("default m1", 384, 384)]:
    a = torch.randn(rows, depth, device="cuda")
    b = torch.randn(depth, cols, device="cuda")
    for _ in range(3):
        torch.mm(a, b)
    times = []
    for _ in range(20):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); torch.mm(a, b); e.record(); torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    times.sort()
    ms = times[len(times) // 2]
    print(f"{name}: ({rows} x {depth}) ({depth} x {cols}): {ms:.3f} ms, "
          f"{2 * rows * depth * cols / ms / 1e9:.1f} TFLOP/s")
