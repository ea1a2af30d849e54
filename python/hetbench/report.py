"""hetbench report EXPERIMENT... -o DIR: a static HTML report with plots (docs/report.md).

Run by `hetbench report` as a script (python3 .../hetbench/report.py -o DIR EXP...), or as
`python3 -m hetbench.report`. Writes DIR/index.html (inline CSS, no scripts from elsewhere,
nothing fetched) and DIR/plots/<name>.png and .svg for every figure. Exit 2 on bad input
or a missing package, with one line on stderr.
"""
import argparse
import html
import importlib
import json
import os
import sys
import time


def _require_packages():
    missing = []
    for module, package in (("pandas", "python3-pandas"), ("matplotlib", "python3-matplotlib")):
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append((module, package))
    if missing:
        names = " ".join(p for _, p in missing)
        sys.stderr.write(f"hetbench: error: the report needs {', '.join(m for m, _ in missing)} for "
                         f"{sys.executable}: install {names} (Debian: apt-get install {names}), "
                         f"or point HETBENCH_PYTHON at a Python that has them\n")
        sys.exit(2)


if __name__ == "__main__" and not __package__:
    _require_packages()  # before the package's own imports, which need pandas
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    __package__ = "hetbench"  # noqa: A001

import pandas as pd  # noqa: E402

from . import plots  # noqa: E402
from . import report_data as rd  # noqa: E402
from .experiment import ExperimentError, read_context, read_experiments  # noqa: E402

CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:1320px;
padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em}h2{font-size:1.25em;border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.9em;color:#444}figcaption a{margin-left:.5em}
details summary{cursor:pointer}details summary h3{display:inline}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0;max-width:100%}
td{overflow-wrap:break-word}
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left}th{background:#f3f3f3}
td.num{text-align:right;font-variant-numeric:tabular-nums}
p.absent{color:#777;font-style:italic}
"""

# Writes each image's natural size into the page once it has loaded, so that a headless
# browser's DOM dump shows whether every plot decoded (tests/cli/test_report.cpp reads it).
SIZE_SCRIPT = """<script>
window.addEventListener('load', function () {
  var imgs = document.querySelectorAll('img.plot'), ok = 0;
  imgs.forEach(function (im) {
    im.setAttribute('data-natural', im.naturalWidth + 'x' + im.naturalHeight);
    if (im.naturalWidth > 0 && im.naturalHeight > 0) ok++;
  });
  document.body.setAttribute('data-plots', imgs.length);
  document.body.setAttribute('data-plots-loaded', ok);
  document.body.setAttribute('data-tables', document.querySelectorAll('table.data').length);
  // Where the first plot starts in the page, for the test that it is on the first screen.
  if (imgs.length) document.body.setAttribute('data-first-plot-top',
      Math.round(imgs[0].getBoundingClientRect().top + window.scrollY));
});
</script>"""


def _fmt(v):
    if v is None or (isinstance(v, float) and v != v):
        return ""
    if isinstance(v, float):
        return f"{v:.3g}" if abs(v) < 1e-3 or abs(v) >= 1e5 else f"{v:.4g}"
    return str(v)


def table_html(df, caption=""):
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    rows = []
    for r in df.itertuples(index=False):
        cells = []
        for v in r:
            cls = ' class="num"' if isinstance(v, (int, float)) and not isinstance(v, bool) else ""
            cells.append(f"<td{cls}>{html.escape(_fmt(v))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return f'<table class="data">{cap}<thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


class Report:
    def __init__(self, out):
        self.out = out
        self.parts = []
        self.figures = 0
        self.checks = {}  # per figure, what plots.figure_checks saw of it once drawn
        os.makedirs(os.path.join(out, "plots"), exist_ok=True)

    def section(self, title, intro=""):
        self.parts.append(f"<h2>{html.escape(title)}</h2>")
        if intro:
            self.parts.append(f"<p>{html.escape(intro)}</p>")

    def absent(self, why):
        self.parts.append(f'<p class="absent">{html.escape(why)}</p>')

    def table(self, df, caption=""):
        self.parts.append(table_html(df, caption))

    def figures_of(self, figs):
        for f in figs:
            base = os.path.join(self.out, "plots", f.name)
            f.fig.savefig(base + ".png", dpi=100)
            self.checks[f.name] = plots.figure_checks(f.fig)
            f.fig.savefig(base + ".svg")
            plots.plt.close(f.fig)
            self.figures += 1
            self.parts.append(
                f'<figure><img class="plot" src="plots/{f.name}.png" alt="{html.escape(f.caption)}">'
                f"<figcaption>{html.escape(f.caption)}<a href=\"plots/{f.name}.svg\">SVG</a></figcaption></figure>")

    def write(self, title):
        doc = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
               f"<style>{CSS}</style>{SIZE_SCRIPT}</head><body><h1>{html.escape(title)}</h1>"
               + "\n".join(self.parts) + "</body></html>\n")
        with open(os.path.join(self.out, "index.html"), "w", encoding="utf-8") as f:
            f.write(doc)
        # What each drawn figure shows (tick labels, legends, styles), for tests and for
        # anyone checking a report without looking at it.
        with open(os.path.join(self.out, "plots", "checks.json"), "w", encoding="utf-8") as f:
            json.dump(self.checks, f, indent=1)


def experiments_table(df):
    rows = []
    for name, ctx in df.attrs["experiments"].items():
        host = ctx.get("host")
        host = host.get("hostname", "") if isinstance(host, dict) else str(host or "")
        devs = ", ".join(d.get("id", "") + " " + d.get("name", "") for d in ctx.get("devices") or [] if isinstance(d, dict))
        n = int((df["experiment"] == name).sum()) if "experiment" in df else 0
        ok = int(((df["experiment"] == name) & (df["status"] == "ok")).sum()) if n else 0
        rows.append({"experiment": name, "host": host, "commit": ctx.get("git_commit", ""),
                     "command": ctx.get("command_line", ""), "devices": devs,
                     "start (UTC)": ctx.get("start_time", ""), "status": ctx.get("status", ""),
                     "points": n, "ok": ok})
    return pd.DataFrame(rows)


def build(dirs, out, summary_rows=None, units=None):
    """The report: first how fast each op is against the vendor libraries, then the plots,
    then where the numbers come from (experiments, device facts) and what did not pass."""
    df = read_experiments(dirs)
    ok, left_out = rd.prepare(df, units)
    rep = Report(out)
    summary_section(rep, summary_rows)
    if left_out:
        rep.absent(f"{left_out} of {len(df)} points did not pass (failed, error or skipped) and are in no plot; "
                   "they are listed at the end.")

    # Solve records (every status: a solve that stopped at --max-iter shows why) carry no
    # rate, so they are plotted apart from the points prepared for the rate plots.
    figs = plots.residual_history(df)
    if figs:
        rep.section("Solver residual history")
        rep.figures_of(figs)
    if ok.empty:
        rep.absent(f"No point passed ({len(df)} recorded): nothing to plot.")
    else:
        _plot_sections(rep, df, ok, units)
    rep.section("Experiments")
    rep.table(experiments_table(df))
    devices_section(rep, dirs)
    if left_out:
        rep.section("Points that did not pass")
        bad = df[df["status"] != "ok"]
        cols = [c for c in ("experiment", "point", "op", "variant_id", "device", "precision", "status", "message")
                if c in bad]
        rep.table(bad[cols].head(500), "first 500" if len(bad) > 500 else "")
    names = list(df.attrs["experiments"])
    rep.write("hetbench report: " + (names[0] if len(names) == 1 else f"{len(names)} experiments"))
    return rep


def summary_section(rep, rows):
    """How fast, against what: the ratio figure, then the table behind it (rows: the
    summary `hetbench report` computed; without them, as when this script runs alone, no
    summary is drawn and the section says how to get one)."""
    rep.section("Summary", "Per device, op and precision: the fastest own variant against the fastest vendor "
                           "library at the same problem, and the fastest own rate.")
    if rows is None:
        rep.absent("No summary: it is computed by `hetbench report`, which passes it to this script "
                   "(--summary FILE).")
        return
    table = rd.summary(rows)
    if table.empty:
        rep.absent("No point passed: nothing to summarise.")
        return
    figs = plots.summary_ratios(table)
    if figs:
        rep.figures_of(figs)
    else:
        rep.absent("No vendor library ran beside an own variant on the same device and problem: the table gives "
                   "each op's fastest own rate.")
    rep.table(table, "own ÷ vendor: geometric mean over the problems both ran, min and max with where the "
                     "smallest was; best own rate: the fastest point of the op there")


def devices_section(rep, dirs):
    """Per device: the device report's facts and the measured figures beside them."""
    rep.section("Devices", "What the API and NVML report of each device (hetbench devices --report), "
                           "beside its stored ceilings and, after --measure, the report's measurements.")
    reports = rd.device_reports(dirs, [read_context(d) for d in dirs])
    if not reports:
        rep.absent("No experiment.json records a device report (experiments from before the device report).")
    # Collapsed: a device's facts run to 80 rows, which buried the plots when they came first.
    for title, facts, measured in reports:
        rep.parts.append(f"<details><summary><h3>{html.escape(title)}</h3></summary>")
        rep.table(facts, "facts (docs/memory-system.md)")
        rep.table(measured, "measured")
        rep.parts.append("</details>")


def _plot_sections(rep, df, ok, units=None):
    rep.section("Rate against size")
    figs = plots.rate_vs_size(ok)
    rep.figures_of(figs) if figs else rep.absent("No variant ran at two sizes or more: nothing to plot against size.")

    rep.section("Host link")
    figs = plots.transfer_bandwidth(ok)
    rep.figures_of(figs) if figs else rep.absent("No transfer point passed: nothing to plot against bytes copied.")

    rep.section("Rate against local size")
    figs = plots.rate_vs_local_size(ok)
    rep.figures_of(figs) if figs else rep.absent(
        "No variant ran at two work-group sizes or more (WG, WX·WY or LWS parameters) at one problem size.")

    rep.section("Roofline")
    figs, missing = plots.roofline(ok)
    rep.figures_of(figs)
    if not figs:
        rep.absent("No point carries measured ceilings (the `ceiling` key): run `hetbench ceilings` on the "
                   "device before the experiment.")
    elif missing:
        rep.absent("No ceilings recorded for " + ", ".join(missing) + ": run `hetbench ceilings` there.")

    rep.section("Tuning")
    tuned = {k: v for k, v in df.attrs["experiments"].items() if v.get("tuning")}
    if tuned:
        rows = []
        for exp, ctx in tuned.items():
            for t in ctx["tuning"]:
                # A tuning entry keeps its rates, not its flops and bytes: without the program's
                # units (the script run alone), GB/s where the entry has it.
                unit = (units or {}).get(t.get("op")) or ("GB/s" if t.get("gbs") else "GFLOP/s")
                rate = t.get("gflops") if unit == "GFLOP/s" else t.get("gbs")
                rows.append({"experiment": exp, "op": t.get("op"), "variant": t.get("variant_id", t.get("variant")),
                             "device": t.get("device"), "precision": t.get("precision"),
                             "sizes": plots._sizes(t.get("sizes")),
                             "best": ",".join(f"{k}={v}" for k, v in (t.get("params") or {}).items()) if t.get("found") else "(none passed)",
                             "rate": (rate or {}).get("value"),
                             "unit": unit,
                             "evaluations": t.get("evaluations"), "space": t.get("space"),
                             "strategy": t.get("strategy")})
        rep.table(pd.DataFrame(rows), "the best configuration of each tuned problem (experiment.json \"tuning\")")
        figs = plots.tuning_landscapes(ok, tuned)
        rep.figures_of(figs) if figs else rep.absent("No tuned problem has two passing evaluations to plot.")
    else:
        rep.absent("No experiment is a `hetbench tune` (experiment.json has no \"tuning\").")

    rep.section("Speed against accuracy")
    acc = rd.accuracy_table(ok)
    if acc.empty:
        rep.absent("No op ran in two precisions or more (S, D, DF, DD) at one size on one device.")
    else:
        rep.figures_of(plots.accuracy_scatter(acc))
        rep.table(acc, "fastest variant per precision; vs D: its rate over D's; u: unit roundoff; "
                       "max rel err and err/bound from the validation (docs/validation.md)")

    rep.section("SpMV per matrix")
    sp = rd.spmv_table(ok)
    if sp.empty:
        rep.absent("No SpMV point passed.")
    else:
        rep.figures_of(plots.spmv_bars(ok))
        rep.table(sp, "fastest kernel against the fastest vendor library (kind library) per matrix")

    rep.section("Data layouts")
    lt = rd.layout_table(ok)
    if lt.empty:
        rep.absent("No problem ran in two layouts or more on one device (features.layout: nbody, stencil3d with "
                   "--layout or --param LAYOUT=...).")
    else:
        rep.figures_of(plots.layouts_normalised(lt))
        rep.table(lt, "each layout's fastest point; kernel and rest (features.rest_s) over the fastest layout's "
                      "kernel time on the device (docs/layouts.md)")

    rep.section("Memory latency")
    figs = plots.pchase_latency(ok)
    rep.figures_of(figs) if figs else rep.absent("No pchase point passed (the `ns_per_load` key).")

    rep.section("Energy")
    e = rd.energy_points(ok)
    if e.empty:
        rep.absent("No point recorded energy (energy.available: NVML on NVIDIA GPUs, docs/measurement.md).")
    else:
        rep.figures_of(plots.energy(e))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="hetbench report", description=__doc__.splitlines()[0])
    ap.add_argument("experiments", nargs="+")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--summary", help="the summary table as `hetbench report` computed it (JSON rows)")
    ap.add_argument("--rates", help="each op's headline unit as `hetbench report` wrote it (JSON object)")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    try:
        rows = None
        if args.summary:
            with open(args.summary, encoding="utf-8") as f:
                rows = json.load(f)
        units = None
        if args.rates:
            with open(args.rates, encoding="utf-8") as f:
                units = json.load(f)
        rep = build(args.experiments, args.out, rows, units)
    except ExperimentError as e:
        sys.stderr.write(f"hetbench: error: {e}\n")
        return 2
    except OSError as e:
        sys.stderr.write(f"hetbench: error: cannot write the report in '{args.out}': {e}\n")
        return 2
    sys.stderr.write(f"hetbench: report of {len(args.experiments)} experiment(s), {rep.figures} plot(s), "
                     f"in {os.path.join(args.out, 'index.html')} ({time.monotonic() - t0:.1f} s)\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
