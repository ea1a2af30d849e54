"""One tuning problem, two tuners: Kernel Tuner from hetbench's T1 export, and `hetbench tune`.

The problem is a hetbench kernel variant at one size and precision on one OpenCL device.
`hetbench kernel export-t1 --size` writes it as a T1 file (the same space: the variant's
parameters, its constraints with the device's limits bound, the work-group bound to
Kernel Tuner's block_size_x/y/z); Kernel Tuner 1.5's tune_kernel_T1 tunes that file with
its strategy and a budget of N configurations; `hetbench tune` tunes the variant with its
strategy and the same N. Both time each configuration with the same effort (Kernel
Tuner's 7 iterations; hetbench --reps 7 --warmup 1). Printed per tuner: evaluations,
best time (each tuner's own measurement of its best), the configuration, wall time; then
the ratio Kernel Tuner's best / hetbench's best (>= 1: hetbench found as fast or faster)
and each tuner's best re-timed by hetbench (`hetbench run`, adaptive repetitions), so that
the two bests are compared by one clock. A measurement campaign, not a test: the test
(InteropT1.HeadToHeadRunsBothTunersOnOneSpace) checks only that both tuners search the
same space and finish.

usage: head_to_head.py HETBENCH VARIANT SIZE PRECISION DEVICE BUDGET OUTDIR
       [KT_STRATEGY] [HB_STRATEGY] [KT_DEVICE_INDEX]
e.g.   head_to_head.py build/hetbench opencl/gemm/regblock 1000x1000x1000@TN S opencl:0:0 30 h2h
Prints one JSON line per tuner (prefix "result ") and a summary table.

The same two Kernel Tuner 1.5.0 defects as tests/interop/kt_t1.py are worked around here:
an empty constant-memory dict is let through the OpenCL backend, and the device is passed
as an index.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

from kernel_tuner import tune_kernel_T1
from kernel_tuner.backends import opencl

_copy_cmem = opencl.OpenCLFunctions.copy_constant_memory_args


def _copy_cmem_if_any(self, cmem_args):
    return _copy_cmem(self, cmem_args) if cmem_args else None


opencl.OpenCLFunctions.copy_constant_memory_args = _copy_cmem_if_any

KT_TO_HB_PARAMS = ("block_size_x", "block_size_y", "block_size_z")


def run(cmd, ok=(0,)):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode not in ok:
        sys.exit(f"head_to_head: {' '.join(cmd)} exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return r


def kernel_tuner(hb, variant, size, prec, device, budget, out, strategy, index):
    t1 = out / "problem.json"
    run([hb, "kernel", "export-t1", variant, "--size", size, "--precision", prec, "--device", device,
         "--strategy", strategy, "--budget", str(budget), "--out", str(t1)])
    t0 = time.perf_counter()
    _, t4 = tune_kernel_T1(t1, device=index, iterations=7)
    wall = time.perf_counter() - t0
    evals, best, config = 0, None, None
    for r in t4["results"]:
        evals += 1
        if r.get("invalidity", "correct") != "correct":
            continue
        times = [m["value"] for m in r["measurements"] if m["name"] == "time"]
        if times and (best is None or times[0] < best):
            best = times[0]
            config = r["configuration"]
    params = {k: v for k, v in (config or {}).items() if k not in KT_TO_HB_PARAMS}
    space = json.loads(t1.read_text())["ConfigurationSpace"]
    return {"tuner": "Kernel Tuner", "strategy": strategy, "evaluations": evals,
            "best_s": best / 1e3 if best is not None else None, "params": params, "wall_s": wall,
            "parameters": len(space["TuningParameters"])}


def hetbench(hb, variant, size, prec, device, budget, out, strategy):
    t0 = time.perf_counter()
    run([hb, "tune", variant.split("/")[1], "--variant", variant, "--size", size, "--precision", prec, "--device", device,
         "--strategy", strategy, "--budget", str(budget), "--reps", "7", "--warmup", "1", "--db", "none",
         "--no-isolate", "--out", str(out / "hetbench")], ok=(0, 1))  # 1: some configurations failed
    wall = time.perf_counter() - t0
    exp = next((out / "hetbench").iterdir())
    t = json.loads((exp / "experiment.json").read_text())["tuning"][0]
    return {"tuner": "hetbench", "strategy": strategy, "evaluations": t["evaluations"],
            "best_s": t["seconds"]["median"] if t.get("found") else None, "params": t["params"], "wall_s": wall,
            "space": t["space"]}


def retime(hb, variant, size, prec, device, params, out, tag):
    """The configuration timed by hetbench run (adaptive repetitions): one clock for both bests."""
    if not params:
        return None
    cmd = [hb, "run", variant.split("/")[1], "--variant", variant, "--size", size, "--precision", prec, "--device", device,
           "--db", "none", "--out", str(out / tag)]
    for k, v in params.items():
        cmd += ["--param", f"{k}={v}"]
    run(cmd, ok=(0, 1))  # 1: the point failed, said by its status
    exp = next((out / tag).iterdir())
    rec = json.loads((exp / "results.jsonl").read_text().splitlines()[0])
    return rec["timing"]["seconds"]["median"] if rec.get("status") == "ok" else None


def main():
    if len(sys.argv) < 8:
        sys.exit(__doc__)
    hb, variant, size, prec, device, budget, outdir = sys.argv[1:8]
    kt_strategy = sys.argv[8] if len(sys.argv) > 8 else "random_sample"
    hb_strategy = sys.argv[9] if len(sys.argv) > 9 else "random"
    index = int(sys.argv[10]) if len(sys.argv) > 10 else 0
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    if variant.count("/") != 2:
        sys.exit(f"head_to_head: '{variant}': give the variant's id, BACKEND/OP/NAME")
    op = variant.split("/")[1]
    kt = kernel_tuner(hb, variant, size, prec, device, int(budget), out, kt_strategy, index)
    hbr = hetbench(hb, variant, size, prec, device, int(budget), out, hb_strategy)
    kt["retimed_s"] = retime(hb, variant, size, prec, device, kt["params"], out, "retime-kt")
    hbr["retimed_s"] = retime(hb, variant, size, prec, device, hbr["params"], out, "retime-hb")
    for r in (kt, hbr):
        print("result " + json.dumps(r, sort_keys=True))
    print(f"{variant} {size} {prec} on {device} ({op}), budget {budget}")
    print(f"{'tuner':14} {'strategy':16} {'evals':>5} {'best (own)':>12} {'best (hetbench run)':>20} {'wall':>8}  params")
    for r in (kt, hbr):
        own = f"{r['best_s'] * 1e6:.1f} us" if r["best_s"] else "-"
        re = f"{r['retimed_s'] * 1e6:.1f} us" if r["retimed_s"] else "-"
        print(f"{r['tuner']:14} {r['strategy']:16} {r['evaluations']:5} {own:>12} {re:>20} {r['wall_s']:7.1f}s  "
              f"{json.dumps(r['params'], sort_keys=True)}")
    if kt["retimed_s"] and hbr["retimed_s"]:
        print(f"Kernel Tuner's best / hetbench's best, both timed by hetbench run: "
              f"{kt['retimed_s'] / hbr['retimed_s']:.3f} (>= 1: hetbench's tuner found as fast or faster)")


if __name__ == "__main__":
    main()
