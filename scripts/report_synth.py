"""Writes an experiment folder of N synthetic points in the results format
(docs/results-format.md) for scripts/report-bench: four devices (a host CPU, PoCL, two
H200s), copy/axpy/dot in S, D, DF, DD over sizes 2^10..2^28 and work-group sizes, GEMM and
SpMV with vendor baselines, samples from a noise model around a roofline, measured
ceilings on every record and NVML energy on the GPUs. Seeded: the same N gives the same folder.
    python3 scripts/report_synth.py DIR N"""
import json
import math
import os
import random
import sys

DEVICES = [  # id, name, copy GB/s, FMA GFLOP/s per precision, energy (W) or None
    ("host", "AMD EPYC", 45.0, {"S": 150.0, "D": 75.0, "DF": 15.0, "DD": 7.0}, None),
    ("opencl:0:0", "pthread-haswell-AMD EPYC", 40.0, {"S": 120.0, "D": 60.0, "DF": 12.0, "DD": 6.0}, None),
    ("cuda:0", "NVIDIA H200", 4200.0, {"S": 60000.0, "D": 55000.0, "DF": 6000.0, "DD": 3000.0}, 650.0),
    ("cuda:1", "NVIDIA H200", 4150.0, {"S": 59000.0, "D": 54000.0, "DF": 5900.0, "DD": 2950.0}, 640.0),
]
ELEM = {"S": 4, "D": 8, "DF": 8, "DD": 16}
VECTOR = {"copy": (["vec", "simple"], 2, 0), "axpy": (["vec", "simple", "dw"], 3, 2), "dot": (["vec", "local", "dw"], 2, 2)}
SIZES = sorted([1 << e for e in range(10, 29)] + [3 << e for e in range(9, 28)])
MATRICES = [("poisson2d", 1 << 20, 5), ("laplace3d27", 1 << 18, 27), ("powerlaw", 1 << 20, 12), ("random", 1 << 19, 8)]


def backend(dev):
    return dev.split(":")[0]


def samples_for(rng, median, n):
    noise = rng.choice([0.005, 0.01, 0.03])
    return [round(median * math.exp(rng.gauss(0, noise)) + median * 0.02 * (rng.random() < 0.05), 9) for _ in range(n)]


def seconds_of(s):
    s2 = sorted(s)
    n = len(s2)
    k = max(0, int(n / 2 - 0.98 * math.sqrt(n)))
    mean = sum(s2) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in s2) / max(1, n - 1))
    med = s2[n // 2] if n % 2 else 0.5 * (s2[n // 2 - 1] + s2[n // 2])
    return {"n": n, "min": s2[0], "max": s2[-1], "median": med, "mean": mean, "stddev": sd,
            "ci95_lo": s2[k], "ci95_hi": s2[n - 1 - k], "ci_level": 0.95}


def configs():
    for dev, name, bw, peaks, watts in DEVICES:
        for op, (variants, reads_writes, flops_per) in VECTOR.items():
            for prec in (["S", "D"] if op == "copy" else ["S", "D", "DF", "DD"]):
                for var in variants:
                    if (var == "dw") != (prec in ("DF", "DD")):
                        continue
                    for n in SIZES:
                        for wg in (64, 128, 256, 512, 1024):
                            yield dev, op, var, prec, {"n": n}, {"WG": wg}, "kernel"
                if prec in ("S", "D"):
                    lib = {"host": "openblas", "opencl:0:0": "clblast"}.get(dev, "cublas")
                    if op != "copy":
                        for n in SIZES:
                            yield dev, op, lib, prec, {"n": n}, {}, "library"
        for prec in ("S", "D", "DF", "DD"):
            for n in (256, 512, 1024, 2048, 4096, 8192):
                for tile in (16, 32, 64, 128):
                    var = "dw_tiled" if prec in ("DF", "DD") else "tiled"
                    yield dev, "gemm", var, prec, {"m": n, "n": n, "k": n, "ta": "N", "tb": "N"}, {"BM": tile, "BN": tile}, "kernel"
                if prec in ("S", "D"):
                    lib = {"host": "openblas", "opencl:0:0": "clblast"}.get(dev, "cublas")
                    yield dev, "gemm", lib, prec, {"m": n, "n": n, "k": n, "ta": "N", "tb": "N"}, {}, "library"
        for prec in ("S", "D"):
            for mat, rows, per in MATRICES:
                for var in ("vector", "merge", "adaptive"):
                    for wg in (64, 128, 256):
                        yield dev, "spmv", var, prec, {"rows": rows, "cols": rows, "nnz": rows * per, "max_row": per * 3,
                                                       "input": f"gen:{mat}"}, {"WG": wg}, "kernel"
                lib = {"host": "eigen"}.get(dev, "cusparse" if dev.startswith("cuda") else None)
                if lib:
                    yield dev, "spmv", lib, prec, {"rows": rows, "cols": rows, "nnz": rows * per, "max_row": per * 3,
                                                   "input": f"gen:{mat}"}, {}, "library"


def record(rng, i, cfg):
    dev, op, var, prec, sizes, params, kind = cfg
    d = next(x for x in DEVICES if x[0] == dev)
    _, name, bw, peaks, watts = d
    e = ELEM[prec]
    if op in VECTOR:
        n = sizes["n"]
        min_bytes = VECTOR[op][1] * n * e
        flops = VECTOR[op][2] * n * (10 if prec in ("DF", "DD") else 1)
    elif op == "gemm":
        n = sizes["m"]
        flops = 2.0 * n ** 3 * (10 if prec in ("DF", "DD") else 1)
        min_bytes = 4 * n * n * e
    else:
        flops = 2.0 * sizes["nnz"]
        min_bytes = sizes["nnz"] * (e + 4) + sizes["rows"] * (2 * e + 4)
    wg = params.get("WG", params.get("BM", 256))
    eff = 0.85 * math.exp(-0.5 * math.log2(wg / 256) ** 2 / 2) * (1.1 if kind == "library" else 1.0)
    floor = max(flops / (peaks[prec] * 1e9), min_bytes / (bw * 1e9))
    median = floor / min(eff, 0.95) + (5e-6 if dev.startswith("cuda") else 2e-6)
    samples = samples_for(rng, median, rng.randint(10, 40))
    sec = seconds_of(samples)
    t = sec["median"]
    u = {"S": 2.0**-24, "D": 2.0**-53, "DF": 2.0**-48, "DD": 2.0**-106}[prec]
    rec = {
        "backend": "host" if dev == "host" else backend(dev), "device": dev, "device_name": name,
        "flops": flops, "min_bytes": float(min_bytes), "gbs": min_bytes / t / 1e9, "gflops": flops / t / 1e9,
        "kind": kind, "op": op, "params": params, "point": i, "precision": prec, "seed": 42, "sizes": sizes,
        "status": "ok" if rng.random() > 0.01 else "failed",
        "time": "2026-12-01T08:00:00Z",
        "timing": {"cache": "hot", "measured_s": sum(samples), "rate_from": "median",
                   "rel_half_width": (sec["ci95_hi"] - sec["ci95_lo"]) / 2 / t, "reps": len(samples),
                   "samples": samples, "seconds": sec, "stop": "converged",
                   "stopping": {"rule": "adaptive", "max_noise_pct": 0.5, "min_samples": 10, "min_time_s": 0.5,
                                "timeout_s": 15, "max_samples": 10000},
                   "timed": "kernel", "timer": "cuda-events" if dev.startswith("cuda") else "opencl-profiling-events",
                   "wall_s": sum(samples) * 1.2, "warmup": 3},
        "validation": {"bound": "synthetic", "checked": 4096, "max_abs_err": u * 10, "max_err_over_bound": rng.uniform(0.01, 0.6),
                       "max_rel_err": u * rng.uniform(1, 50), "nan": 0, "note": "", "over_bound": 0, "passed": True,
                       "unwritten": 0},
        "variant": var, "variant_id": f"{backend(dev)}/{op}/{var}",
        "ceiling": {"gbs": bw, "gflops": peaks[prec], "source": f"/synthetic/ceilings/{dev}.json"},
        "pct_ceiling": 100 * floor / t, "pct_bw": 100 * min_bytes / t / 1e9 / bw,
    }
    if rec["status"] != "ok":
        rec["message"] = "max error 1.7 x bound at element 12"
        rec["validation"]["passed"] = False
    if op == "spmv":
        rec["features"] = {"matrix": sizes["input"], "rows": sizes["rows"], "nnz": sizes["nnz"]}
    if watts and t * len(samples) > 0.25:
        p = watts * rng.uniform(0.5, 0.9)
        rec["energy"] = {"available": True, "source": "timed-reps", "avg_power_w": p, "energy_per_rep_j": p * t,
                         "gflop_per_j": flops / 1e9 / (p * t), "gb_per_j": min_bytes / 1e9 / (p * t)}
    else:
        rec["energy"] = {"available": False, "reason": "synthetic: no NVML"}
    return rec


def main(out, n):
    rng = random.Random(42)
    all_cfgs = list(configs())
    chosen = sorted(rng.sample(range(len(all_cfgs)), min(n, len(all_cfgs))))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "results.jsonl"), "w") as f:
        for i, c in enumerate(chosen):
            f.write(json.dumps(record(rng, i, all_cfgs[c]), separators=(",", ":")) + "\n")
    ctx = {"hetbench_version": "0.1.0", "git_commit": "synthetic", "command_line": f"scripts/report_synth.py {out} {n}",
           "name": "synthetic", "seed": 42, "host": {"hostname": "synthetic", "os": "Linux"},
           "devices": [{"id": d[0], "name": d[1]} for d in DEVICES], "start_time": "2026-12-01T08:00:00Z",
           "end_time": "2026-12-01T10:00:00Z", "status": "complete", "points": len(chosen)}
    with open(os.path.join(out, "experiment.json"), "w") as f:
        json.dump(ctx, f, indent=2)
    print(f"{len(chosen)} synthetic points (of {len(all_cfgs)} configurations) in {out}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
