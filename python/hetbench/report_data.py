"""What the report plots, derived from read_experiments' DataFrame: the rate of each point
(GB/s or GFLOP/s) with the interval of its median, the size on the x axis, the local size
of work-group sweeps, the arithmetic intensity. Pure pandas, no plotting."""
import json
import math
import os

import numpy as np
import pandas as pd

# Unit roundoff of each precision (docs/precision.md), for the speed-versus-accuracy table.
UNIT_ROUNDOFF = {"S": 2.0**-24, "D": 2.0**-53, "DF": 2.0**-48, "DD": 2.0**-106}
PRECISION_ORDER = ["S", "DF", "D", "DD"]
# Parameters that are (a dimension of) the work-group size: docs/metadata-format.md.
LOCAL_SIZE_PARAMS = ("WG", "WX", "WY", "LWS_J", "LWS_I", "LWS0", "LWS1", "LWS2")


def rate_unit(op, flops, min_bytes, units=None):
    """An op's headline unit: as the program rates it (`units`, the rates.json that
    `hetbench report` writes from each op's own declaration), else, for an op it does not
    name (the script run alone), by the point's arithmetic intensity: below 1 flop a byte
    memory-bound on every device made, GB/s."""
    if units and op in units:
        return units[op]
    return "GFLOP/s" if min_bytes and flops / min_bytes >= 1 else "GB/s"


def _col(df, name, default=np.nan):
    return df[name] if name in df else pd.Series(default, index=df.index)


def size_axis(row):
    """(x value, axis label) of a point's problem size."""
    op = row["op"]
    if op == "spmv":
        return row.get("size_nnz"), "nonzeros"
    if op == "gemm":
        m, n, k = (row.get("size_" + a) for a in "mnk")
        if all(isinstance(v, (int, float)) and not pd.isna(v) for v in (m, n, k)):
            return (m * n * k) ** (1.0 / 3.0), "(m·n·k)^(1/3)  [= n when square]"
    n = row.get("size_n")
    return n, "n (elements)"


def local_size(row):
    """Work-items per work-group from the parameters, or NaN when none sets it."""
    values = [row.get("param_" + p) for p in LOCAL_SIZE_PARAMS]
    values = [v for v in values if isinstance(v, (int, float)) and not pd.isna(v)]
    return float(np.prod(values)) if values else np.nan


def param_columns(df):
    # param_source_<name> (where each value came from) is the record's "param_source", not a parameter.
    return [c for c in df.columns if c.startswith("param_") and not c.startswith("param_source_")]


def config_label(row, columns):
    parts = []
    for c in columns:
        v = row.get(c)
        if v is not None and not (isinstance(v, float) and math.isnan(v)):
            parts.append(f"{c[6:]}={int(v) if isinstance(v, float) and v.is_integer() else v}")
    return ",".join(parts)


def matrix_label(row):
    for key in ("feature_matrix", "size_input"):
        v = row.get(key)
        if isinstance(v, str) and v:
            return v.rsplit("/", 1)[-1]
    return f"{row.get('size_rows')}x{row.get('size_cols')}"


def prepare(df, units=None):
    """The ok points with the derived columns the plots need; and the count left out.
    `units`: each op's headline unit as the program rates it (rate_unit)."""
    if df.empty:
        return df, 0
    ok = df[df["status"] == "ok"].copy()
    left_out = len(df) - len(ok)
    if ok.empty:
        return ok, left_out
    flops = _col(ok, "flops", 0.0).astype(float)
    nbytes = _col(ok, "min_bytes", 0.0).astype(float)
    ok["unit"] = [rate_unit(o, f, b, units) for o, f, b in zip(ok["op"], flops, nbytes)]
    work = np.where(ok["unit"] == "GB/s", nbytes, flops) / 1e9
    med = _col(ok, "median_s").astype(float)
    lo = _col(ok, "ci95_lo_s").astype(float).fillna(med)
    hi = _col(ok, "ci95_hi_s").astype(float).fillna(med)
    with np.errstate(divide="ignore", invalid="ignore"):
        ok["rate"] = work / med
        # The rate's interval is the time's turned over: the slow end of the time is the low rate.
        ok["rate_lo"] = work / hi
        ok["rate_hi"] = np.where(lo > 0, work / lo, np.nan)
        ok["intensity"] = np.where(nbytes > 0, flops / nbytes, np.nan)
        ok["achieved_gflops"] = flops / 1e9 / med
    ok = ok[np.isfinite(ok["rate"]) & (ok["rate"] > 0)]
    xs = [size_axis(r) for r in ok.to_dict("records")]
    ok["size_x"] = [x for x, _ in xs]
    ok["size_label"] = [lab for _, lab in xs]
    recs = ok.to_dict("records")
    ok["local_size"] = [local_size(r) for r in recs]
    pcols = param_columns(ok)
    ok["config"] = [config_label(r, pcols) for r in recs]
    ok["matrix"] = [matrix_label(r) if r["op"] == "spmv" else "" for r in recs]
    ok["device_label"] = ok["device"] + " (" + _col(ok, "device_name", "").astype(str) + ")"
    if "host" in ok and ok["host"].nunique() > 1:  # several machines: a device id is per machine
        ok["device_label"] = ok["host"].astype(str) + ": " + ok["device_label"]
    return ok, left_out


def best_per(df, keys):
    """The fastest point of each group (a variant swept over parameters keeps its best)."""
    idx = df.groupby(keys, dropna=False)["rate"].idxmax()
    return df.loc[idx.values]


def size_sweeps(ok):
    """Groups (op, device) where some variant ran at two sizes or more in one precision."""
    keys = ["op", "device_label"]
    out = []
    for key, g in ok.groupby(keys, sort=True):
        g = g[g["size_x"].notna()]
        if g.empty or g.groupby(["variant_id", "precision"])["size_x"].nunique().max() < 2:
            continue
        out.append((key, best_per(g, ["variant_id", "precision", "size_x"]).sort_values("size_x")))
    return out


def local_sweeps(ok, max_sizes=3):
    """Groups (op, device) where a variant ran at two local sizes or more at one
    problem size; each with the sizes swept (at most `max_sizes` of them, spread from the
    smallest to the largest, so that a sweep over sizes and work-groups stays readable)."""
    out = []
    g_all = ok[ok["local_size"].notna() & ok["size_x"].notna()]
    for key, g in g_all.groupby(["op", "device_label"], sort=True):
        counts = g.groupby(["variant_id", "size_x"])["local_size"].nunique()
        swept = counts[counts >= 2]
        if swept.empty:
            continue
        sizes = sorted(swept.index.get_level_values("size_x").unique())
        if len(sizes) > max_sizes:
            pick = {round(i * (len(sizes) - 1) / (max_sizes - 1)) for i in range(max_sizes)}
            shown = [sizes[i] for i in sorted(pick)]
        else:
            shown = sizes
        keep = [(v, s) for v, s in swept.index if s in shown]
        sel = g.set_index(["variant_id", "size_x"]).index.isin(keep)
        out.append((key, g[sel].sort_values("local_size"), len(sizes)))
    return out


def accuracy_table(ok):
    """Speed versus accuracy across precisions: per op, device and size where two or more
    of S, D, DF, DD ran, the fastest point of each precision with its measured error."""
    have = ok[ok["precision"].isin(UNIT_ROUNDOFF) & ok["size_x"].notna()]
    keys = ["op", "device_label", "size_x"]
    if have.empty:
        return pd.DataFrame()
    best = best_per(have, keys + ["precision"])
    best = best[best.groupby(keys)["precision"].transform("nunique") >= 2]
    if best.empty:
        return pd.DataFrame()
    ref = best[best["precision"] == "D"].set_index(keys)["rate"].rename("ref")
    best = best.join(ref, on=keys)
    best = best.assign(order=best["precision"].map(PRECISION_ORDER.index)).sort_values(keys + ["order"])
    return pd.DataFrame({
        "op": best["op"], "device": best["device_label"], "size": best["size_x"].map(_fmt_num),
        "precision": best["precision"], "variant": best["variant_id"], "rate": best["rate"], "unit": best["unit"],
        "vs D": best["rate"] / best["ref"], "u": best["precision"].map(UNIT_ROUNDOFF),
        "max rel err": _col(best, "validation_max_rel_err"),
        "err/bound": _col(best, "validation_max_err_over_bound")}).reset_index(drop=True)


def summary(rows):
    """How fast, against what, as `hetbench report` computed it with the library's results
    query (summary.json: per machine, device, op and precision, the fastest own variant
    over the fastest vendor library at each problem both ran, as a geometric mean, minimum
    and maximum over those problems; where no library ran, the own best rate). Rows with a
    vendor come first, by device, op and precision; the device named as the plots name it."""
    if not rows:
        return pd.DataFrame()
    several_hosts = len({r.get("host", "") for r in rows}) > 1
    out = []
    for r in rows:
        dev = f"{r['device']} ({r.get('device_name', '')})"
        best = r["best_own"]
        out.append({
            "device": f"{r['host']}: {dev}" if several_hosts else dev, "op": r["op"], "precision": r["precision"],
            "own ÷ vendor (geomean)": r.get("geomean", np.nan), "min": r.get("min", np.nan),
            "max": r.get("max", np.nan), "problems": r.get("problems", np.nan),
            "vendor": ", ".join(r["vendor"]) if r.get("vendor") else "none ran", "min at": r.get("min_at", np.nan),
            "own variant": f"{best['variant_id']} {best.get('params', '')}".strip(), "best own rate": best["rate"],
            "unit": r["unit"], "at": best["problem"]})
    return pd.DataFrame(out)


def spmv_table(ok):
    """Per matrix, device and precision: the fastest kernel against the fastest vendor
    library (kind `library`) on the same device, else on any device of the report."""
    sp = ok[ok["op"] == "spmv"]
    if sp.empty:
        return pd.DataFrame()
    kind = _col(sp, "kind", "kernel")
    rows = []
    for (mat, prec, dev), g in sp.groupby(["matrix", "precision", "device_label"], sort=True):
        own = g[kind.loc[g.index] != "library"]
        lib = g[kind.loc[g.index] == "library"]
        where = "same device"
        if lib.empty:
            lib = sp[(sp["matrix"] == mat) & (sp["precision"] == prec) & (kind.loc[sp.index] == "library")]
            where = "other device" if not lib.empty else ""
        r = {"matrix": mat, "precision": prec, "device": dev,
             "nnz": _fmt_num(g["size_x"].iloc[0])}
        if not own.empty:
            b = own.loc[own["rate"].idxmax()]
            r.update({"best variant": f"{b['variant_id']} {b['config']}".strip(), "GB/s": b["rate"]})
        else:
            r.update({"best variant": "(none)", "GB/s": np.nan})
        if not lib.empty:
            b = lib.loc[lib["rate"].idxmax()]
            r.update({"library": f"{b['variant_id']} ({where})", "library GB/s": b["rate"],
                      "vs library": r["GB/s"] / b["rate"] if b["rate"] > 0 else np.nan})
        else:
            r.update({"library": "none recorded", "library GB/s": np.nan, "vs library": np.nan})
        rows.append(r)
    return pd.DataFrame(rows)


def energy_points(ok):
    if "energy_available" not in ok:
        return ok.iloc[0:0]
    e = ok[ok["energy_available"].fillna(False).astype(bool)].copy()
    if e.empty:
        return e
    per_j = np.where(e["unit"] == "GB/s", _col(e, "energy_gb_per_j"), _col(e, "energy_gflop_per_j"))
    e["per_joule"] = pd.to_numeric(pd.Series(per_j, index=e.index), errors="coerce")
    e["energy_unit"] = np.where(e["unit"] == "GB/s", "GB/J", "GFLOP/J")
    return e[e["per_joule"].notna()]


def ceilings_of(g):
    """Per device group: the copy bandwidth and the FMA peak per precision that the records
    carry (docs/ceilings.md: the observer adds `ceiling` where `hetbench ceilings` ran)."""
    if "ceiling_gbs" not in g:
        return None
    c = g[g["ceiling_gbs"].notna()]
    if c.empty:
        return None
    peaks = {}
    if "ceiling_gflops" in c:
        for prec, h in c.groupby("precision"):
            v = h["ceiling_gflops"].dropna()
            if len(v):
                peaks[prec] = float(v.max())
    return {"gbs": float(c["ceiling_gbs"].max()), "gflops": peaks,
            "source": str(c["ceiling_source"].dropna().iloc[0]) if "ceiling_source" in c else ""}


def _fmt_num(v):
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, int) and v >= 1024 and v & (v - 1) == 0:
        return f"2^{v.bit_length() - 1}"
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def _fact_value(f):
    v, unit = f.get("value"), f.get("unit") or ""
    if v is None:
        return f"not available ({f.get('note', '')})"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, list):
        if len(v) > 8:
            return f"{len(v)} entries"
        return (", " if all(isinstance(x, str) for x in v) else " x ").join(str(x) for x in v)
    if isinstance(v, dict):  # a span {min, max, count} (supported clocks), or named parts (remapped rows)
        if {"min", "max", "count"} <= v.keys():
            return f"{v['min']}-{v['max']} {unit} ({v['count']} values)".replace("  ", " ")
        return ", ".join(f"{k} {('yes' if x else 'no') if isinstance(x, bool) else x}" for k, x in v.items())
    if unit == "bytes" and isinstance(v, (int, float)):
        b, u = float(v), 0
        while b >= 1024 and u < 4:
            b, u = b / 1024, u + 1
        return f"{b:.4g} {['B', 'KiB', 'MiB', 'GiB', 'TiB'][u]}"
    if isinstance(v, float):
        v = f"{v:.1f}"
    return f"{v} {unit}".strip()


def device_reports(dirs, contexts):
    """One entry per device of the experiments (per host and id the first report, unless a
    later one has ceilings or measurements where it had none),
    from experiment.json's devices[].report and, after `devices --report --measure`, the
    folder's device-report.json (its measurements): (title, facts, measured) with facts
    and measured as DataFrames (docs/memory-system.md)."""
    chosen = {}  # (host, id) -> (rank, entry)
    for directory, ctx in zip(dirs, contexts):
        host = ctx.get("host")
        host = host.get("hostname", "") if isinstance(host, dict) else str(host or "")
        measured_by_id = {}
        path = os.path.join(directory, "device-report.json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                for r in json.load(f).get("reports") or []:
                    measured_by_id[r.get("id")] = r
        for d in ctx.get("devices") or []:
            rep = d.get("report") if isinstance(d, dict) else None
            if not isinstance(rep, dict):
                continue
            measured = (measured_by_id.get(d.get("id")) or {}).get("measurements") or []
            rank = (isinstance(rep.get("ceilings"), dict)) + 2 * bool(measured)
            if (host, d.get("id")) in chosen and chosen[(host, d.get("id"))][0] >= rank:
                continue
            facts = [{"section": s.get("name", ""), "fact": f.get("label", ""), "value": _fact_value(f),
                      "note": "" if f.get("value") is None else (f.get("note") or "")}
                     for s in rep.get("sections") or [] for f in s.get("facts") or []]
            rows = []
            c = rep.get("ceilings")
            if isinstance(c, dict):
                for label, v, unit, key in (("copy bandwidth", c.get("copy_gbs"), "GB/s", "gbs"),
                                            ("FMA peak FP32", (c.get("gflops") or {}).get("S"), "GFLOP/s", "gflops"),
                                            ("FMA peak FP64", (c.get("gflops") or {}).get("D"), "GFLOP/s", "gflops")):
                    rows.append({"measurement": label, "at": "", "value": (v or {}).get(key), "unit": unit,
                                 "how": (v or {}).get("variant_id", "not measured") + f", ceilings of {c.get('date', '')}"})
            else:
                rows.append({"measurement": "copy bandwidth, FMA peak", "at": "", "value": None, "unit": "",
                             "how": "not measured: " + rep.get("ceilings_note", "")})
            for m in measured:
                if m.get("status") != "measured":
                    rows.append({"measurement": m.get("label", ""), "at": "", "value": None, "unit": "",
                                 "how": "not measured: " + m.get("reason", "")})
                    continue
                for v in m.get("values") or []:
                    rows.append({"measurement": m.get("label", ""), "at": v.get("at", ""), "value": v.get("value"),
                                 "unit": m.get("unit", ""), "how": f"{v.get('variant_id', '')}, {v.get('precision', '')}"})
            chosen[(host, d.get("id"))] = (rank, (f"{host}: {d.get('id', '')} {d.get('name', '')}",
                                                  pd.DataFrame(facts), pd.DataFrame(rows)))
    return [entry for _, entry in chosen.values()]


def _problem_text(row):
    """The point's sizes without its layout: "n=4097", "NX=64,NY=64,NZ=64"."""
    parts = []
    for k, v in row.items():
        if k.startswith("size_") and k not in ("size_input", "size_x", "size_label") and isinstance(v, (int, float)) \
                and not pd.isna(v):
            parts.append(f"{k[5:]}={int(v) if float(v).is_integer() else v}")
    return ",".join(parts)


def _layout_name(token):
    """A layout's short name: a shipped one's name, a file's name without its folder."""
    return os.path.basename(str(token)) if token else "soa"


def layout_table(ok):
    """Points placed by a data layout (features.layout: nbody, stencil3d, docs/layouts.md):
    per device, op, precision and problem, each layout's fastest point with its kernel time
    (the median) and the rest (features.rest_s: transfers and layout conversion), both over
    the kernel time of the problem's fastest layout on that device. Only problems that ran
    in two layouts or more on a device."""
    cols = ["device_label", "op", "precision", "problem", "layout", "variant_id", "kernel_s", "rest_s",
            "kernel_norm", "rest_norm"]
    if "feature_layout" not in ok:
        return pd.DataFrame(columns=cols)
    lp = ok[ok["feature_layout"].notna()].copy()
    if lp.empty:
        return pd.DataFrame(columns=cols)
    recs = lp.to_dict("records")
    lp["problem"] = [_problem_text(r) for r in recs]
    lp["layout"] = [_layout_name(t) for t in lp["feature_layout"]]
    lp["kernel_s"] = lp["median_s"].astype(float)
    lp["rest_s"] = _col(lp, "feature_rest_s").astype(float)
    keys = ["device_label", "op", "precision", "problem"]
    best = best_per(lp, keys + ["layout"])
    best = best[best.groupby(keys)["layout"].transform("nunique") >= 2].copy()
    if best.empty:
        return pd.DataFrame(columns=cols)
    fastest = best.groupby(keys)["kernel_s"].transform("min")
    best["kernel_norm"] = best["kernel_s"] / fastest
    best["rest_norm"] = best["rest_s"] / fastest
    return best.sort_values(keys + ["kernel_norm"])[cols].reset_index(drop=True)
