#!/usr/bin/env python3
"""Summary of scripts/tuning-bench: measured ratios against the tuning targets.

Reads OUTDIR/labels.txt (a label line, then the experiment folder it names, in turn),
the experiments under OUTDIR/exp and OUTDIR/walls.txt."""
import json
import math
import statistics
import sys
from pathlib import Path


def load(outdir):
    lines = (outdir / "labels.txt").read_text().splitlines() if (outdir / "labels.txt").exists() else []
    exps = {}
    for label, folder in zip(lines[0::2], lines[1::2]):
        d = outdir / "exp" / folder
        meta = json.loads((d / "experiment.json").read_text())
        recs = [json.loads(l) for l in (d / "results.jsonl").read_text().splitlines() if l.strip()]
        exps[label] = (meta, recs)
    return exps


def best_tuned(meta, unit):
    """Best rate over the tuning rows of an experiment (all variants), evaluations, wall."""
    rows = [t for t in meta.get("tuning", []) if t.get("found")]
    if not rows:
        return None, 0, 0
    best = max(rows, key=lambda t: t[unit]["value"])
    return best, sum(t["evaluations"] for t in meta["tuning"]), sum(t["wall_s"] for t in meta["tuning"])


def rate(rec, unit):
    return rec.get(unit) if rec.get("status") == "ok" else None


def search_rows(exps, prefix, unit):
    out = []
    ref = exps.get(f"{prefix} exhaustive")
    if not ref:
        return out
    rbest, revals, rwall = best_tuned(ref[0], unit)
    if not rbest:
        return out
    out.append(f"| {prefix} | exhaustive | {revals} | {rwall:.0f} s | {rbest[unit]['value']:.1f} | 1.000 |")
    for label, (meta, _) in exps.items():
        if label.startswith(prefix + " ") and label != f"{prefix} exhaustive":
            b, ev, wall = best_tuned(meta, unit)
            if b:
                out.append(f"| {prefix} | {label[len(prefix) + 1:]} | {ev} ({ev / revals:.0%}) | {wall:.0f} s | "
                           f"{b[unit]['value']:.1f} | {b[unit]['value'] / rbest[unit]['value']:.3f} |")
    return out


def main():
    outdir = Path(sys.argv[1] if len(sys.argv) > 1 else "tuning-bench-results")
    exps = load(outdir)
    print("## search: best found / exhaustive best (GFLOP/s for GEMM, GB/s for SpMV)")
    print("| problem | strategy | evaluations | tuning wall | best | ÷ exhaustive |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for row in search_rows(exps, "search gemm", "gflops"):
        print(row)
    mats = sorted({l.split()[1] for l in exps if l.startswith("spmv-search ")})
    for m in mats:
        for row in search_rows(exps, f"spmv-search {m}", "gbs"):
            print(row)

    tests = sorted({l.split()[2] for l in exps if l.startswith("auto run ")})
    if tests:
        print("\n## auto: run spmv --variant auto (D) against the exhaustive own best and cuSPARSE (GB/s)")
        print("| matrix | nnz | auto chose | auto | own best (exhaustive) | cuSPARSE | auto ÷ own | auto ÷ cuSPARSE |")
        print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
        vs_cus = []
        for m in tests:
            recs = exps[f"auto run {m}"][1]
            a = [r for r in recs if r.get("status") == "ok" and r.get("auto")]
            c = [rate(r, "gbs") for r in recs if r["variant"] == "cusparse"]
            c = max([x for x in c if x], default=None)
            own, _, _ = best_tuned(exps.get(f"auto exhaustive {m}", ({}, []))[0], "gbs")
            if not a:
                print(f"| {m} | | no ok point | | | | | |")
                continue
            r = a[0]
            chose = f"{r['variant']} {';'.join(f'{k}={v}' for k, v in r['params'].items())}"
            # where the parameters came from: db, rule (auto's parameter rule) or metadata
            src = r.get("param_source") or {}
            kinds = sorted({"db" if str(v).startswith("db:") else str(v).split(":")[0].split(" ")[0] for v in src.values()})
            if kinds:
                chose += f" ({'/'.join(kinds)})"
            ao = r["gbs"] / own["gbs"]["value"] if own else math.nan
            ac = r["gbs"] / c if c else math.nan
            if c:
                vs_cus.append(ac)
            print(f"| {m} | {r['sizes'].get('nnz', '')} | {chose} | {r['gbs']:.0f} | "
                  f"{own['gbs']['value'] if own else math.nan:.0f} | {c or math.nan:.0f} | {ao:.3f} | {ac:.3f} |")
        if vs_cus:
            g = math.exp(sum(math.log(x) for x in vs_cus) / len(vs_cus))
            print(f"\nauto ÷ cuSPARSE: geometric mean {g:.3f}, minimum {min(vs_cus):.3f} over {len(vs_cus)} matrices")

    # "gemm-opencl" runs hold regblock on both CUDA and OpenCL: their own side is OpenCL's.
    gl = [l for l in exps if l.startswith("gemm ") or l.startswith("gemm-opencl ")]
    if gl:
        print("\n## GEMM with database parameters ÷ cuBLAS (GFLOP/s)")
        print("| precision | size | own | params (source) | own | cuBLAS | ratio |")
        print("| --- | --- | --- | --- | ---: | ---: | ---: |")
        for l in gl:
            recs = exps[l][1]
            by = {}
            for r in recs:
                key = ";".join(f"{k}={v}" for k, v in sorted(r["sizes"].items()))
                by.setdefault(key, []).append(r)
            for key, rs in by.items():
                lib = [x for x in rs if x["variant"] == "cublas" and rate(x, "gflops")]
                own = [x for x in rs if x["variant"] != "cublas" and rate(x, "gflops")
                       and (not l.startswith("gemm-opencl") or x.get("backend") == "opencl")]
                if not lib or not own:
                    continue
                o = max(own, key=lambda x: x["gflops"])
                src = o.get("param_source", {})
                srcs = sorted({str(v).split(" ")[0] for v in src.values()}) if isinstance(src, dict) else []
                print(f"| {l.split()[1]} | {key} | {o['variant']} ({o.get('backend', '')}) | {'/'.join(srcs)} | {o['gflops']:.0f} | "
                      f"{lib[0]['gflops']:.0f} | {o['gflops'] / lib[0]['gflops']:.3f} |")

    reps = {}
    for l, (meta, recs) in exps.items():
        if l.startswith("reps "):
            _, mode, _ = l.split()
            ok = [r for r in recs if r.get("status") == "ok"]
            if ok:
                reps.setdefault(mode, []).append((ok[0]["timing"]["seconds"]["median"], ok[0]["timing"]["seconds"]["n"]))
    if reps:
        walls = {}
        wf = outdir / "walls.txt"
        if wf.exists():
            for line in wf.read_text().splitlines():
                _, mode, _, ms = line.split()
                walls.setdefault(mode, []).append(int(ms) / 1000)
        print("\n## repeated runs of copy D 2^28 (simple): spread of the medians")
        print("| mode | runs | samples per run | median of medians | (max − min) ÷ median | wall per run |")
        print("| --- | ---: | --- | ---: | ---: | ---: |")
        for mode, v in reps.items():
            meds = [m for m, _ in v]
            mm = statistics.median(meds)
            w = walls.get(mode, [])
            print(f"| {mode} | {len(v)} | {', '.join(str(n) for _, n in v)} | {mm * 1e6:.1f} µs | "
                  f"{(max(meds) - min(meds)) / mm:.2%} | {statistics.median(w) if w else math.nan:.1f} s |")


if __name__ == "__main__":
    main()
