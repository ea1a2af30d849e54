#!/usr/bin/env python3
"""The measurements the GEMM shape model is tested against, from scripts/gemm-shape-bench's
experiments: every ok point of the tiled variants and cuBLAS under DIR as
{"about", "device", "points": [{precision, variant, m, n, k, ta, tb, params, gflops}]}
(the format of tests/data/gemm_shape_*.json, read by tests/ops/test_gemm_shape_model.cpp).
Usage: scripts/gemm_calib_points.py DIR "ABOUT" > tests/data/gemm_shape_NAME.json"""
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from hetbench.experiment import read_context, read_records  # noqa: E402  the package's reader


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, about = pathlib.Path(sys.argv[1]), sys.argv[2]
    device, points = None, []
    for exp in sorted(root.rglob("experiment.json")):
        folder = exp.parent
        devs = [d for d in read_context(folder).get("devices", []) if d.get("backend") == "cuda"]
        if devs and device is None:
            d = devs[0]
            device = {"name": d["name"], "compute_units": d["compute_units"], "max_clock_mhz": d["max_clock_mhz"],
                      "local_mem_launch": d["local_mem_launch_bytes"]}
        for r in read_records(folder) if (folder / "results.jsonl").exists() else []:
            if r.get("status") != "ok" or not r.get("gflops"):
                continue
            s = r["sizes"]
            points.append({"precision": r["precision"], "variant": r["variant"], "m": s["m"], "n": s["n"], "k": s["k"],
                           "ta": s.get("ta", 0), "tb": s.get("tb", 0), "params": r.get("params", {}),
                           "gflops": round(r["gflops"], 1)})
    if not points:
        sys.exit(f"gemm_calib_points: no ok GEMM points under {root}")
    json.dump({"about": about, "device": device, "points": points}, sys.stdout, indent=None)
    print()


if __name__ == "__main__":
    main()
