"""Runs a T1 file from `hetbench kernel export-t1 --size` with Kernel Tuner, unmodified:
tune_kernel_T1 tunes it as written (search, budget and device from the file), then every
configuration it measured is run once more on seeded inputs and its output checked
against a float64 reference of the op under the error bound of its floating-point
analysis. Prints one line per check and exits non-zero on the first failure.

Two defects of Kernel Tuner 1.5.0 are worked around here, not in the file:
- tune_kernel_T1 hands the backend an empty dict of constant-memory arguments, and the
  OpenCL backend raises NotImplementedError for any dict, empty or not; the patch below
  lets an empty one through.
- tune_kernel_T1 passes the T1 Device.Name (a string, as the schema says) to the backend
  as its device index; the index is given here (device=0).

usage: kt_t1.py T1_FILE
"""

import json
import sys
from pathlib import Path

import numpy as np
from kernel_tuner import run_kernel, tune_kernel_T1
from kernel_tuner.backends import opencl

_copy_cmem = opencl.OpenCLFunctions.copy_constant_memory_args


def _copy_cmem_if_any(self, cmem_args):
    if cmem_args:
        return _copy_cmem(self, cmem_args)
    return None


opencl.OpenCLFunctions.copy_constant_memory_args = _copy_cmem_if_any


def gamma(n, u):
    return n * u / (1 - n * u)


def inputs(spec, rng):
    """The T1 arguments as Kernel Tuner allocates them, with seeded random fills."""
    out = []
    for a in spec["Arguments"]:
        dtype = {"float": np.float32, "double": np.float64, "int32": np.int32}[a["Type"]]
        if a["MemoryType"] == "Scalar":
            out.append(dtype(a["FillValue"]))
        elif a["FillType"] == "Random":
            out.append(rng.standard_normal(a["Size"]).astype(dtype))
        else:
            out.append(np.full(a["Size"], a["FillValue"], dtype=dtype))
    return out


def check(op, sizes, names, args, outs, u):
    """(worst error / bound, elements checked) of the op's output."""
    a = dict(zip(names, args))
    got = dict(zip(names, outs))
    if op == "axpy":
        x, y, alpha = (a["x"].astype(np.float64), a["y"].astype(np.float64), float(a["alpha"]))
        ref, mag, res = alpha * x + y, np.abs(alpha * x) + np.abs(y), got["r"]
        bound = gamma(2, u) * mag
    elif op == "dot":
        x, y = a["x"].astype(np.float64), a["y"].astype(np.float64)
        # One output element: the sum of n products in any order.
        ref, res = np.array([x @ y]), got["result"][:1]
        bound = gamma(len(x), u) * np.array([np.abs(x) @ np.abs(y)])
    elif op == "gemm":
        m, n, k, ta, tb = (sizes[s] for s in ("m", "n", "k", "ta", "tb"))
        A = a["A"].astype(np.float64).reshape((k, m) if ta else (m, k))
        B = a["B"].astype(np.float64).reshape((n, k) if tb else (k, n))
        A, B = (A.T if ta else A), (B.T if tb else B)
        C0 = a["C"].astype(np.float64).reshape(m, n)
        alpha, beta = float(a["alpha"]), float(a["beta"])
        ref = alpha * (A @ B) + beta * C0
        mag = abs(alpha) * (np.abs(A) @ np.abs(B)) + abs(beta) * np.abs(C0)
        bound = gamma(k + 2, u) * mag
        res = got["C"].reshape(m, n)
    else:
        raise SystemExit(f"kt_t1.py: no reference for op '{op}'")
    err = np.abs(res.astype(np.float64) - ref)
    if not np.all(np.isfinite(res)):
        return float("inf"), res.size
    # A zero bound (both terms zero) allows no error at all.
    ratio = np.where(bound > 0, err / np.where(bound > 0, bound, 1), np.where(err > 0, np.inf, 0))
    return float(ratio.max()), res.size


def main():
    t1_file = Path(sys.argv[1])
    doc = json.loads(t1_file.read_text())
    spec, ext = doc["KernelSpecification"], doc["hetbench"]
    _, t4 = tune_kernel_T1(t1_file, device=0, iterations=3)
    measured = [r for r in t4["results"] if r["invalidity"] == "correct"]
    print(f"{t1_file.name}: Kernel Tuner measured {len(measured)} configuration(s) of {len(t4['results'])} evaluated")
    if not measured:
        raise SystemExit(f"{t1_file.name}: no configuration ran")

    source = t1_file.parent / spec["KernelFile"]
    names = [a["Name"] for a in spec["Arguments"]]
    u = 2.0**-24 if ext["precision"] == "S" else 2.0**-53
    grid_div = {f"grid_div_{ax.lower()}": spec[f"GridDiv{ax}"] for ax in "XYZ" if f"GridDiv{ax}" in spec}
    for r in measured:
        args = inputs(spec, np.random.default_rng(7))
        outs = run_kernel(spec["KernelName"], source, spec["ProblemSize"], args, r["configuration"],
                          lang=spec["Language"], device=0, quiet=True, **grid_div)
        ratio, count = check(ext["op"], ext["sizes"], names, args, outs, u)
        status = "ok" if ratio <= 1 else "FAILED"
        print(f"  {r['configuration']}: err/bound {ratio:.3g} over {count} elements, {status}")
        if ratio > 1:
            raise SystemExit(1)
    print(f"{t1_file.name}: validated {len(measured)} configuration(s)")


if __name__ == "__main__":
    main()
