"""Chunked min-plus product in PyTorch on the same GPU: the baseline for bench_gemm_gpu.

C = min_k (A[:, k] + B[k, :]) for fp32 and int32, computed as broadcast sums over chunks of k
(and of rows when the temporary would pass 2 GiB), reduced with amin. Times with CUDA events:
one warm-up, median of the runs. Usage: torch_minplus.py N [N ...]
"""
import sys

import torch


def min_plus(a, b, k_chunk=16, max_bytes=2 << 30):
    n, k = a.shape
    m = b.shape[1]
    rows = max(1, min(n, max_bytes // (k_chunk * m * a.element_size())))
    c = torch.full((n, m), float("inf") if a.is_floating_point() else torch.iinfo(a.dtype).max,
                   dtype=a.dtype, device=a.device)
    for r0 in range(0, n, rows):
        acc = c[r0:r0 + rows]
        for k0 in range(0, k, k_chunk):
            t = a[r0:r0 + rows, k0:k0 + k_chunk].unsqueeze(2) + b[k0:k0 + k_chunk].unsqueeze(0)
            torch.minimum(acc, t.amin(dim=1), out=acc)
    return c


def main():
    sizes = [int(s) for s in sys.argv[1:]] or [1024, 2048, 4096, 8192]
    print("torch", torch.__version__, torch.cuda.get_device_name(0), flush=True)
    g = torch.Generator(device="cuda").manual_seed(1)
    for n in sizes:
        for name, dtype in (("fp32", torch.float32), ("int32", torch.int32)):
            if dtype.is_floating_point:
                a = torch.rand((n, n), generator=g, device="cuda", dtype=dtype) * 99 + 1
                b = torch.rand((n, n), generator=g, device="cuda", dtype=dtype) * 99 + 1
            else:  # small values: sums stay far from overflow, so plain + is exact here
                a = torch.randint(1, 1001, (n, n), generator=g, device="cuda", dtype=dtype)
                b = torch.randint(1, 1001, (n, n), generator=g, device="cuda", dtype=dtype)
            reps = 1 if n >= 8192 else 3
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            min_plus(a[:256], b)  # warm-up on a slice (a full one costs as much as a run)
            times = []
            for _ in range(reps):
                start.record()
                c = min_plus(a, b)
                stop.record()
                stop.synchronize()
                times.append(start.elapsed_time(stop))
            i, j = 3 % n, 5 % n
            assert c[i, j] == (a[i, :] + b[:, j]).min(), "torch min-plus check failed"
            ms = sorted(times)[len(times) // 2]
            print(f'TORCH kind="{name} min_plus" n={n} ms={ms:.3f} tups={n**3 / ms / 1e9:.4f}',
                  flush=True)
            del a, b, c
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
