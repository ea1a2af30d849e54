"""Experiment folders (docs/results-format.md) as pandas DataFrames: one row per point.

The records are nested JSON; a DataFrame wants flat columns, so `sizes`, `params` and
`features` become `size_<k>`, `param_<k>` and `feature_<k>` (nested: `feature_derived_<k>`), `timing.seconds` becomes
`median_s`, `ci95_lo_s`, ... (the names of results.csv), other objects become
`<key>_<subkey>`, and `timing.samples` stays a list per row (`samples`). experiment.json
is attached as `df.attrs["experiment"]` (and `df.attrs["dir"]`).
"""
import json
import os

import pandas as pd


class ExperimentError(ValueError):
    """Bad input: names the file (and line) at fault."""


def _load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise ExperimentError(f"'{path}' does not exist") from None
    except json.JSONDecodeError as e:
        raise ExperimentError(f"'{path}' line {e.lineno}: not JSON ({e.msg})") from None


def read_records(directory):
    """The records of results.jsonl, in order. As C++ read_results: a torn last line (a run
    killed mid-write) is skipped; any other line that is not a JSON object is an error
    naming the file and line."""
    path = os.path.join(directory, "results.jsonl")
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except FileNotFoundError:
        raise ExperimentError(f"'{path}' does not exist") from None
    except UnicodeDecodeError as e:
        raise ExperimentError(f"'{path}': not UTF-8 text ({e.reason})") from None
    while lines and not lines[-1].strip():
        lines.pop()
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            if number == len(lines):
                break  # the torn last line of a killed run
            raise ExperimentError(f"'{path}' line {number}: not JSON ({e.msg}, column {e.colno})") from None
        if not isinstance(rec, dict):
            raise ExperimentError(f"'{path}' line {number}: a record must be a JSON object")
        for key in ("op", "variant_id", "device", "status"):
            if not isinstance(rec.get(key), str):
                raise ExperimentError(f"'{path}' line {number}: key '{key}' is missing or not a string")
        records.append(rec)
    return records


def read_context(directory):
    """experiment.json, checked to be an experiment's."""
    if not os.path.isdir(directory):
        raise ExperimentError(f"'{directory}' is not a folder")
    path = os.path.join(directory, "experiment.json")
    if not os.path.exists(path):
        raise ExperimentError(f"'{directory}' is not an experiment folder: it has no experiment.json")
    ctx = _load_json(path)
    if not isinstance(ctx, dict) or "hetbench_version" not in ctx:
        raise ExperimentError(f"'{path}' is not a hetbench experiment.json (no 'hetbench_version')")
    return ctx


_SECONDS = ("min", "max", "median", "mean", "stddev", "ci95_lo", "ci95_hi")
_PREFIX = {"sizes": "size_", "params": "param_", "features": "feature_"}


def _flatten(prefix, obj, row):
    for k, v in obj.items():
        if isinstance(v, dict):
            _flatten(f"{prefix}{k}_", v, row)
        else:
            row[prefix + k] = v


def flatten_record(rec):
    """One record as one flat dict (the row of read_experiment)."""
    row = {}
    for key, value in rec.items():
        if key == "timing" and isinstance(value, dict):
            seconds = value.get("seconds") or {}
            for s in _SECONDS:
                row[s + "_s"] = seconds.get(s)
            row["n"] = seconds.get("n")
            row["ci_level"] = seconds.get("ci_level")
            row["samples"] = value.get("samples") or []
            for k, v in value.items():
                if k not in ("seconds", "samples"):
                    if isinstance(v, dict):
                        _flatten(f"timing_{k}_", v, row)
                    else:
                        row["timing_" + k] = v
        elif key in _PREFIX and isinstance(value, dict):
            # features.derived (conflict_degree, spill_slowdown, ...) -> feature_derived_<k>
            _flatten(_PREFIX[key], value, row)
        elif isinstance(value, dict):
            _flatten(key + "_", value, row)
        else:
            row[key] = value
    return row


def read_experiment(directory):
    """One experiment folder as a DataFrame, one row per recorded point."""
    ctx = read_context(directory)
    rows = [flatten_record(r) for r in read_records(directory)]
    df = pd.DataFrame(rows)
    if "samples" not in df:
        df["samples"] = pd.Series([[] for _ in range(len(df))], dtype=object)
    df.attrs["experiment"] = ctx
    df.attrs["dir"] = os.path.abspath(directory)
    return df


def experiment_label(directory, ctx):
    """A short name for an experiment: its folder name (unique within one machine's results)."""
    return os.path.basename(os.path.normpath(directory)) or ctx.get("name", "experiment")


def read_experiments(directories):
    """Several experiment folders as one DataFrame with an `experiment` column (the folder
    name) and a `host` column; df.attrs["experiments"] maps each name to its experiment.json."""
    frames, contexts = [], {}
    for d in directories:
        df = read_experiment(d)
        ctx = df.attrs["experiment"]
        name = experiment_label(d, ctx)
        if name in contexts:  # the same folder name from two machines
            name = f"{name} ({len(contexts)})"
        contexts[name] = ctx
        df.insert(0, "experiment", name)
        df.insert(1, "host", (ctx.get("host") or {}).get("hostname", "") if isinstance(ctx.get("host"), dict)
                  else str(ctx.get("host", "")))
        frames.append(df)
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    out.attrs = {"experiments": contexts}
    return out
