#!/usr/bin/env python3
"""One row per device x op x precision from results.jsonl files under a folder: best own
kernel, best vendor library, measured copy ceiling, ratios and energy (GB/J)."""
import json
import pathlib
import sys


def load(root):
    recs = []
    for f in sorted(pathlib.Path(root).rglob("results.jsonl")):
        for line in f.read_text().splitlines():
            try:
                r = json.loads(line)
            except ValueError:
                continue  # a truncated last line
            if r.get("status") == "ok" and r.get("gbs"):
                recs.append(r)
    return recs


def best(rs):
    return max(rs, key=lambda r: r["gbs"]) if rs else None


def main():
    recs = load(sys.argv[1] if len(sys.argv) > 1 else ".")
    if not recs:
        print("no ok points found")
        return 1
    gemm = [r for r in recs if r["op"] == "gemm"]
    spmv = [r for r in recs if r["op"] == "spmv"]
    recs = [r for r in recs if r["op"] not in ("gemm", "spmv")]
    ceiling = {}
    for r in recs:
        if r["op"] == "copy":
            ceiling[r["device"]] = max(ceiling.get(r["device"], 0), r["gbs"])
    keys = sorted({(r["device"], r["op"], r["precision"]) for r in recs})
    hdr = f"{'device':<12} {'op':<5} {'p':<2} {'best own':<30} {'GB/s':>7} {'vendor':<10} {'GB/s':>7} {'ceil':>7} {'own/ceil':>8} {'own/vend':>8} {'GB/J':>6}"
    print(hdr)
    print("-" * len(hdr))
    for dev, op, p in keys:
        rs = [r for r in recs if (r["device"], r["op"], r["precision"]) == (dev, op, p)]
        own = best([r for r in rs if r.get("kind") == "kernel"])
        ven = best([r for r in rs if r.get("kind") == "library"])
        ceil = ceiling.get(dev)

        def label(r):
            if not r:
                return "-"
            ps = ",".join(f"{k}={v}" for k, v in sorted(r.get("params", {}).items()))
            return (r["variant"] + (f"[{ps}]" if ps else ""))[:30]

        og = own["gbs"] if own else None
        vg = ven["gbs"] if ven else None
        e = (own or {}).get("energy", {})
        gbj = f"{e['gb_per_j']:.2f}" if e.get("available") and "gb_per_j" in e else "-"
        f = lambda x: f"{x:.0f}" if x else "-"
        rt = lambda a, b: f"{a / b:.3f}" if a and b else "-"
        print(f"{dev:<12} {op:<5} {p:<2} {label(own):<30} {f(og):>7} {label(ven)[:10]:<10} {f(vg):>7} {f(ceil):>7} "
              f"{rt(og, ceil):>8} {rt(og, vg):>8} {gbj:>6}")
    if gemm:
        gemm_table(gemm)
    if spmv:
        spmv_table(spmv, ceiling)
    return 0


def spmv_table(recs, ceiling):
    """SpMV: per matrix, the best own kernel against cuSPARSE, and the geometric mean."""
    print()
    hdr = f"{'device':<8} {'p':<2} {'matrix':<38} {'best own':<26} {'GB/s':>6} {'cuSPARSE':>8} {'own/cusp':>8} {'own/copy':>8}"
    print(hdr)
    print("-" * len(hdr))
    for dev, p in sorted({(r["device"], r["precision"]) for r in recs}):
        ratios = []
        for mat in sorted({r["sizes"].get("input", "?") for r in recs if (r["device"], r["precision"]) == (dev, p)}):
            rs = [r for r in recs if (r["device"], r["precision"], r["sizes"].get("input", "?")) == (dev, p, mat)]
            own = best([r for r in rs if r.get("kind") == "kernel"])
            lib = best([r for r in rs if r.get("kind") == "library"])
            ps = ",".join(f"{k}={v}" for k, v in sorted((own or {}).get("params", {}).items()))
            name = ((own["variant"] + (f"[{ps}]" if ps else "")) if own else "-")[:26]
            rt = own["gbs"] / lib["gbs"] if own and lib else None
            if rt:
                ratios.append(rt)
            c = ceiling.get(dev)
            print(f"{dev:<8} {p:<2} {mat[:38]:<38} {name:<26} {own['gbs'] if own else 0:>6.0f} "
                  f"{lib['gbs'] if lib else 0:>8.0f} {rt or 0:>8.3f} {(own['gbs'] / c) if own and c else 0:>8.3f}")
        if ratios:
            g = 1.0
            for x in ratios:
                g *= x
            print(f"{dev:<8} {p:<2} {'geometric mean over ' + str(len(ratios)) + ' matrices':<38} {'':<26} {'':>6} {'':>8} "
                  f"{g ** (1 / len(ratios)):>8.3f}   min {min(ratios):.3f}")


def gemm_table(recs):
    """GEMM: TFLOP/s of the best own kernel and library per device, against cuBLAS."""
    def size(r):
        s = r["sizes"]
        storage = "@d64" if s.get("d64") else "@soa" if s.get("soa") else ""
        return f"{s['m']}x{s['n']}x{s['k']}{storage}"

    def top(rs):
        return max(rs, key=lambda r: r["gflops"]) if rs else None

    print()
    hdr = f"{'device':<12} {'p':<2} {'size':<16} {'best own':<34} {'TFLOP/s':>8} {'library':<8} {'TFLOP/s':>8} {'own/cuBLAS':>10}"
    print(hdr)
    print("-" * len(hdr))
    for p, sz in sorted({(r["precision"], size(r)) for r in recs}):
        rs = [r for r in recs if r["precision"] == p and size(r) == sz]
        cublas = top([r for r in rs if r["variant"] == "cublas"])
        for dev in sorted({r["device"] for r in rs}):
            own = top([r for r in rs if r["device"] == dev and r.get("kind") == "kernel"])
            lib = top([r for r in rs if r["device"] == dev and r.get("kind") == "library"])
            ps = ",".join(f"{k}={v}" for k, v in sorted((own or {}).get("params", {}).items()))
            name = ((own["variant"] + (f"[{ps}]" if ps else "")) if own else "-")[:34]
            t = lambda r: f"{r['gflops'] / 1e3:.1f}" if r else "-"
            ratio = f"{own['gflops'] / cublas['gflops']:.2f}" if own and cublas else "-"
            print(f"{dev:<12} {p:<2} {sz:<16} {name:<34} {t(own):>8} {(lib or {}).get('variant', '-'):<8} {t(lib):>8} {ratio:>10}")


if __name__ == "__main__":
    sys.exit(main())
