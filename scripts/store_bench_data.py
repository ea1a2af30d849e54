"""Synthetic experiment folders for scripts/store-bench: MACHINES machines, each with four
devices, EXPERIMENTS experiments each of POINTS points of four ops (seeded, so every run
of the benchmark stores the same content). Usage: store_bench_data.py OUTDIR MACHINES
EXPERIMENTS POINTS SEED. Prints the folders, one a line."""
import json
import os
import random
import sys

out, machines, experiments, points, seed = sys.argv[1], *map(int, sys.argv[2:6])
rng = random.Random(seed)
NAMES = ["NVIDIA H200", "NVIDIA A100-SXM4-80GB", "AMD EPYC 9654", "pthread-Intel Xeon Platinum 8480"]
OPS = ["gemm", "dot", "spmv", "axpy"]
for m in range(machines):
    host = f"node{m:02d}"
    devices = [{"id": f"cuda:{i}" if i < 2 else ("host" if i == 2 else "opencl:0:0"), "name": NAMES[(m + i) % 4],
                "vendor": NAMES[(m + i) % 4].split()[0], "driver": f"{550 + m}.{i}", "max_clock_mhz": 1980 - 10 * i,
                "backend": "cuda" if i < 2 else ("host" if i == 2 else "opencl"), "compute_units": 132}
               for i in range(4)]
    for x in range(experiments):
        name = f"sweep{x:03d}"
        folder = os.path.join(out, host, f"20261201-{m:02d}{x:04d}-{name}")
        os.makedirs(folder, exist_ok=True)
        exp = {"hetbench_version": "0.1.0", "git_commit": f"{rng.getrandbits(48):012x}", "name": name,
               "command_line": "hetbench sweep bench.json", "spec": {}, "runs": [], "seed": seed + x,
               "host": {"hostname": host, "os": "Debian GNU/Linux 12 (bookworm)"}, "compiler": "GNU 12.2.0",
               "devices": devices, "directory": folder, "start_time": f"2026-{1 + x % 12:02d}-01T08:00:00Z",
               "status": "complete", "points": points, "failed": 0, "errors": 0}
        with open(os.path.join(folder, "experiment.json"), "w") as f:
            json.dump(exp, f, indent=2, sort_keys=True)
            f.write("\n")
        with open(os.path.join(folder, "results.jsonl"), "w") as f:
            for p in range(points):
                op, dev = rng.choice(OPS), rng.choice(devices)
                if op == "gemm":
                    sizes = {"m": 256 << rng.randrange(6), "n": 256 << rng.randrange(6), "k": 256 << rng.randrange(6)}
                elif op == "spmv":
                    sizes = {"rows": rng.randrange(1000, 10 ** 6), "cols": rng.randrange(1000, 10 ** 6),
                             "nnz": rng.randrange(10 ** 7)}
                else:
                    sizes = {"n": 1024 << rng.randrange(18)}
                med = rng.uniform(1e-6, 1e-2)
                samples = [round(med * rng.uniform(0.97, 1.08), 9) for _ in range(10)]
                rec = {"point": p, "op": op, "variant": f"v{rng.randrange(6)}", "backend": dev["backend"],
                       "variant_id": f"{dev['backend']}/{op}/v{rng.randrange(6)}", "kind": "kernel",
                       "device": dev["id"], "device_name": dev["name"], "precision": rng.choice("SD"),
                       "sizes": sizes, "params": {"ts": 8 << rng.randrange(3)}, "seed": seed + p,
                       "time": f"2026-{1 + x % 12:02d}-{1 + rng.randrange(28):02d}T{rng.randrange(24):02d}:00:00Z",
                       "status": "ok", "flops": rng.uniform(1e6, 1e12), "min_bytes": rng.uniform(1e6, 1e10),
                       "timing": {"timed": "kernel", "timer": "cuda-events", "warmup": 2, "reps": 10,
                                  "samples": samples, "seconds": {"n": 10, "median": med, "min": min(samples),
                                                                  "max": max(samples), "ci95_lo": min(samples),
                                                                  "ci95_hi": max(samples)}},
                       "gflops": rng.uniform(1, 6e4), "gbs": rng.uniform(1, 4800),
                       "validation": {"passed": True, "max_err_over_bound": rng.uniform(0, 0.5)}}
                f.write(json.dumps(rec, separators=(",", ":"), sort_keys=True) + "\n")
        print(folder)
