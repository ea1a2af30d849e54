#!/usr/bin/env python3
"""Summary of scripts/gemm-shape-bench: per shape and precision, `--variant auto` and the
best of each calibration configuration against cuBLAS measured in the same part, with the
geometric mean and the minimum of auto ÷ cuBLAS per precision."""
import math
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from hetbench.experiment import read_records  # noqa: E402  the package's reader


def records(root):
    """Every record under root, read by the package's reader (a torn last line skipped)."""
    for f in sorted(pathlib.Path(root).rglob("results.jsonl")):
        yield from read_records(f.parent)


def shape(r):
    s = r.get("sizes", {})
    lay = ("T" if s.get("ta") else "N") + ("T" if s.get("tb") else "N")
    return f"{s.get('m')}x{s.get('n')}x{s.get('k')}@{lay}"


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    failed = 0
    for part in ("check", "calib", "auto"):
        recs = list(records(root / part))
        if not recs:
            continue
        bad = [r for r in recs if r.get("status") not in ("ok", "skipped")]
        failed += len(bad)
        print(f"\n## {part}: {len(recs)} points, {len(bad)} not ok")
        for r in bad[:20]:
            print(f"  {r.get('status')}: {r.get('variant')} {r.get('precision')} {shape(r)} {r.get('params')} "
                  f"{(r.get('message') or '')[:160]}")
        ok = [r for r in recs if r.get("status") == "ok" and r.get("gflops")]
        vendor = {(r["precision"], shape(r)): r["gflops"] for r in ok if r.get("kind") == "library"}
        if part == "auto":
            ratios = {}
            print(f"{'p':<2} {'shape':<20} {'auto GF/s':>10} {'cuBLAS':>10} {'ratio':>6}  chosen")
            for r in ok:
                if r.get("auto") is None or (r["precision"], shape(r)) not in vendor:
                    continue
                v = vendor[(r["precision"], shape(r))]
                q = r["gflops"] / v
                ratios.setdefault(r["precision"], []).append(q)
                ps = ",".join(f"{k}={x}" for k, x in sorted(r.get("params", {}).items()))
                print(f"{r['precision']:<2} {shape(r):<20} {r['gflops']:>10.0f} {v:>10.0f} {q:>6.3f}  {r['variant']}[{ps}]")
            for p, qs in sorted(ratios.items()):
                g = math.exp(sum(math.log(q) for q in qs) / len(qs))
                print(f"{p}: auto / cuBLAS geometric mean {g:.3f}, min {min(qs):.3f} over {len(qs)} shapes")
        elif part == "calib":
            best = {}
            for r in ok:
                if r.get("kind") == "library":
                    continue
                key = (r["precision"], shape(r))
                if key not in best or r["gflops"] > best[key]["gflops"]:
                    best[key] = r
            for key, r in sorted(best.items()):
                v = vendor.get(key)
                ps = ",".join(f"{k}={x}" for k, x in sorted(r.get("params", {}).items()))
                print(f"{key[0]:<2} {key[1]:<20} best {r['gflops']:>8.0f} cuBLAS {v or 0:>8.0f} "
                      f"{(r['gflops'] / v if v else 0):>6.3f} {r['variant']}[{ps}]")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
