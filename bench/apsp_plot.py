"""Log-log plot of APSP time against n from RESULT lines (bench_apsp_gpu, scipy_fw.py), with the
fitted exponent of each series (least squares of log t on log n over n >= 2048 where there are
two such points, else all). Usage: apsp_plot.py OUT.png results.txt..."""
import re, sys
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

series = {}
for path in sys.argv[2:]:
    for line in open(path):
        if line.startswith("RESULT"):
            r = dict(re.findall(r"(\w+)=(\S+)", line))
            key = f'{r["algo"]} {r["type"]}'
            series.setdefault(key, []).append((int(r["n"]), float(r["ms"]) / 1e3))

fig, ax = plt.subplots(figsize=(7, 5))
for key, pts in sorted(series.items()):
    pts.sort()
    n = np.array([p[0] for p in pts], float)
    t = np.array([p[1] for p in pts])
    big = n >= 2048
    sel = big if big.sum() >= 2 else np.ones_like(big)
    k = np.polyfit(np.log(n[sel]), np.log(t[sel]), 1)[0] if sel.sum() >= 2 else float("nan")
    print(f"FIT {key}: exponent {k:.2f}")
    ax.loglog(n, t, marker="o", label=f"{key} (n^{k:.2f})")
n = np.array([512, 16384], float)
ax.loglog(n, n**3 / 15.1e12, "k--", label="fp32 ceiling n^3 / 15.1 T/s")
ax.set_xlabel("n (vertices)")
ax.set_ylabel("time (s)")
ax.set_title("APSP / closure, dense random graphs")
ax.grid(True, which="both", alpha=0.3)
ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(sys.argv[1], dpi=120)
