"""The results store (docs/store.md) as a pandas DataFrame: one row per stored point.

    import hetbench
    df = hetbench.read_store("~/.local/share/hetbench/results.db", op="gemm", device="NVIDIA H200")
    df = hetbench.read_store("postgresql://me@dbhost/results", precision="D", since="2026-06-01")

SQLite through the standard library; PostgreSQL through psycopg2 (Debian's
python3-psycopg2). The filters are those of `hetbench store query`: op, device (a name, or an
id: host, cuda:N, opencl:P:D), variant (name or id), precision, host, status, experiment (id or list of ids),
since/until (ISO 8601, until inclusive), size ("n=1024", "n=1000..4096", or a list).
Columns: experiment, host, point, op, variant, variant_id, backend, device, device_name,
precision, sizes, params, status, time, median_s, gflops, gbs, then size_<axis> and
param_<name> (numbers) from sizes and params; with records=True also `record` (the whole
point record, a dict).
"""
import json
import os
import re
import sqlite3

import pandas as pd

_COLUMNS = ["experiment", "host", "point", "op", "variant", "variant_id", "backend", "device",
            "device_name", "precision", "sizes", "params", "status", "time", "median_s", "gflops", "gbs"]
_NUMBER = r"[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?"
_SIZE = re.compile(rf"^([A-Za-z_]\w*)=({_NUMBER})(?:\.\.({_NUMBER}))?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}(:\d{2}(:\d{2})?)?Z?)?$")
_DEVICE_ID = re.compile(r"^(host|cuda:\d+|opencl:\d+:\d+)$")
_FILTERS = {"op", "device", "variant", "precision", "host", "status", "experiment", "since", "until", "size"}


class StoreError(ValueError):
    """Bad input or a store that cannot be read: says which and why."""


def _pairs(text):
    out = {}
    for part in filter(None, (text or "").split(";")):
        key, _, value = part.partition("=")
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


def _connect(url):
    if url.startswith(("postgresql://", "postgres://")):
        try:
            import psycopg2  # Debian: python3-psycopg2
        except ImportError:
            raise StoreError("reading a PostgreSQL store needs psycopg2 (Debian: apt-get install python3-psycopg2)") from None
        try:
            return psycopg2.connect(url), "%s"
        except psycopg2.Error as e:
            raise StoreError(f"store {url}: cannot connect: {str(e).strip()}") from None
    path = os.path.expanduser(url)
    if not os.path.isfile(path):
        raise StoreError(f"store {path} does not exist")
    try:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True), "?"
    except sqlite3.Error as e:
        raise StoreError(f"store {path}: cannot open: {e}") from None


def _check_schema(cur, url):
    try:
        cur.execute("SELECT key, value FROM hetbench_store")
        meta = dict(cur.fetchall())
    except Exception:  # noqa: BLE001 (sqlite3 and psycopg2 raise different classes)
        raise StoreError(f"store {url} is not a hetbench results store") from None
    if meta.get("application") != "hetbench results store" or meta.get("schema_version") != "1":
        raise StoreError(f"store {url} has schema version {meta.get('schema_version')}, this reader reads version 1")


def read_store(url=None, records=False, **filters):
    """Points of the store at `url` (default: $HETBENCH_STORE, else the default file), filtered."""
    unknown = set(filters) - _FILTERS
    if unknown:
        raise StoreError(f"unknown filter(s) {sorted(unknown)}; known: {sorted(_FILTERS)}")
    url = url or os.environ.get("HETBENCH_STORE") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "hetbench", "results.db")
    conn, mark = _connect(url)
    where, args = [], []

    def param(value):
        args.append(str(value))
        return mark

    for key, column in (("op", "p.op"), ("precision", "p.precision"), ("host", "e.host"), ("status", "p.status")):
        if filters.get(key) is not None:
            where.append(f"{column} = {param(filters[key])}")
    if filters.get("device") is not None:
        column = "p.device" if _DEVICE_ID.match(str(filters["device"])) else "p.device_name"
        where.append(f"{column} = {param(filters['device'])}")
    if filters.get("variant") is not None:
        where.append(f"(p.variant = {param(filters['variant'])} OR p.variant_id = {param(filters['variant'])})")
    for key in ("since", "until"):
        if filters.get(key) is not None and not _DATE.match(str(filters[key])):
            raise StoreError(f"{key}={filters[key]!r}: expected an ISO 8601 date or time (2026-12-01)")
    if filters.get("since") is not None:
        where.append(f"p.time >= {param(filters['since'])}")
    if filters.get("until") is not None:
        until = str(filters["until"])
        where.append(f"substr(p.time, 1, {len(until)}) <= {param(until)}")
    if filters.get("experiment") is not None:
        ids = filters["experiment"]
        ids = [ids] if isinstance(ids, (int, str)) else list(ids)
        where.append("p.experiment_id IN (" + ",".join(param(int(i)) for i in ids) + ")")
    sizes = filters.get("size") or []
    sizes = [sizes] if isinstance(sizes, str) else list(sizes)
    tests = []
    for s in sizes:
        m = _SIZE.match(s)
        if not m:
            raise StoreError(f"size={s!r}: expected AXIS=VALUE or AXIS=LO..HI (n=1024, n=1000..4096)")
        tests.append((m[1], float(m[2]), float(m[3] or m[2])))
    sql = ("SELECT p.experiment_id, e.host, p.point, p.op, p.variant, p.variant_id, p.backend, p.device, "
           "p.device_name, p.precision, p.sizes, p.params, p.status, p.time, p.median_s, p.gflops, p.gbs"
           + (", p.record" if records else "")
           + " FROM points p JOIN experiments e ON e.id = p.experiment_id"
           + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY p.experiment_id, p.point")
    try:
        cur = conn.cursor()
        _check_schema(cur, url)
        cur.execute(sql, args)
        rows = cur.fetchall()
    finally:
        conn.close()
    df = pd.DataFrame(rows, columns=_COLUMNS + (["record"] if records else []))
    parsed = [_pairs(s) for s in df["sizes"]]
    if tests:
        keep = [all(isinstance(p.get(a), (int, float)) and lo <= p[a] <= hi for a, lo, hi in tests) for p in parsed]
        df = df[keep].reset_index(drop=True)
        parsed = [p for p, k in zip(parsed, keep) if k]
    for prefix, items in (("size_", parsed), ("param_", [_pairs(s) for s in df["params"]])):
        for key in sorted({k for p in items for k in p}):
            df[prefix + key] = [p.get(key) for p in items]
    for col in ("median_s", "gflops", "gbs"):
        df[col] = pd.to_numeric(df[col])
    if records:
        df["record"] = [json.loads(r) for r in df["record"]]
    df.attrs["store"] = url
    return df
