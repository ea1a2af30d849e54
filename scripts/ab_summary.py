#!/usr/bin/env python3
"""new/old rate per headline point from two folders of hetbench experiments (scripts/gpu-ab).
A point is op x variant x precision x sizes/matrix x params; its rate is the median over the
runs of one build (GB/s, or TFLOP/s for GEMM). Prints one row per point and the verdict
against a 2 % tolerance."""
import json
import os
import pathlib
import statistics
import sys


def renames():
    """NEW=OLD pairs of HB_AB_OLD_MAP: the old build's records carry the old names."""
    pairs = (m.split("=", 1) for m in os.environ.get("HB_AB_OLD_MAP", "").split() if "=" in m)
    return {old: new for new, old in pairs}


def points(root, rename=None):
    rename = rename or {}
    out = {}
    for f in pathlib.Path(root).rglob("results.jsonl"):
        for line in f.read_text().splitlines():
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("status") != "ok":
                continue
            sizes = r.get("sizes", {})
            size = sizes.get("input") or ",".join(f"{k}={v}" for k, v in sorted(sizes.items()) if k != "soa")
            params = ";".join(f"{k}={v}" for k, v in sorted((rename.get(k, k), v) for k, v in r.get("params", {}).items()))
            key = (r["op"], r["variant"], r["precision"], size, params)
            rate = r["gflops"] / 1e3 if r["op"] == "gemm" else r["gbs"]
            out.setdefault(key, []).append(rate)
    return {k: statistics.median(v) for k, v in out.items()}


def main():
    old, new = points(sys.argv[1], renames()), points(sys.argv[2])
    keys = sorted(set(old) & set(new))
    print(f"{'op':<5} {'variant':<10} {'p':<2} {'size/matrix':<36} {'params':<16} {'old':>8} {'new':>8} {'new/old':>8}")
    worst = None
    for k in keys:
        o, n = old[k], new[k]
        ratio = n / o if o else float("nan")
        worst = ratio if worst is None else min(worst, ratio)
        flag = "" if ratio >= 0.98 else "  <-- slower than 2 %"
        print(f"{k[0]:<5} {k[1]:<10} {k[2]:<2} {k[3][:36]:<36} {k[4][:16]:<16} {o:8.1f} {n:8.1f} {ratio:8.3f}{flag}")
    missing = sorted(set(old) ^ set(new))
    for k in missing:
        print("only in", "old" if k in old else "new", ":", k)
    print(f"ab: {len(keys)} points paired, worst new/old {worst:.3f}" if keys else "ab: nothing paired")
    return 0


if __name__ == "__main__":
    sys.exit(main())
