"""The report's figures (matplotlib, Agg). Each function takes the prepared points of
report_data and returns figures with a caption; the report writes each as PNG and SVG.
Conventions: sizes on log axes (base 2), rates with their unit, one legend entry per variant,
error bars from the interval of the median time (docs/results-format.md)."""
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullLocator  # noqa: E402

from . import report_data as rd  # noqa: E402

MARKERS = "osD^v<>pP*hX"
COLORS = [to_hex(c) for c in plt.get_cmap("tab10").colors]
LINESTYLES = ["-", "--", ":", "-."]
# Above this many points a scatter is drawn as pixels inside the SVG too, so that a large
# experiment's SVG stays a few hundred kB and quick to write.
RASTER_ABOVE = 2000
# Text stays text in the SVG (the viewer's sans-serif): drawing every glyph as a path made
# the SVGs several times larger and slower to write.
matplotlib.rcParams["svg.fonttype"] = "none"


class Figure:
    def __init__(self, fig, name, caption):
        self.fig, self.name, self.caption = fig, name, caption


def _slug(*parts):
    s = "-".join(str(p) for p in parts)
    return "".join(c if c.isalnum() else "_" for c in s).strip("_")[:80]


class Styles:
    """One style per label within a figure: the same label looks the same in every panel
    (the figure has one legend), and 40 labels get 40 different styles: ten colours, then
    the ten again dashed, dotted, dash-dotted, each with its own marker."""

    def __init__(self):
        self.seen = {}

    def __call__(self, label):
        i = self.seen.setdefault(label, len(self.seen))
        return {"color": COLORS[i % 10], "marker": MARKERS[i % len(MARKERS)],
                "linestyle": LINESTYLES[(i // 10) % len(LINESTYLES)]}


def _errbar(ax, g, x, label, style, line=True):
    y = g["rate"].to_numpy(float)
    lo = np.clip(y - g["rate_lo"].to_numpy(float), 0, None)
    hi = np.clip(np.nan_to_num(g["rate_hi"].to_numpy(float), nan=0.0) - y, 0, None)
    ax.errorbar(g[x].to_numpy(float), y, yerr=[lo, hi], label=label, markersize=4, capsize=2,
                linewidth=1 if line else 0, elinewidth=0.8, **style)


def _grid(n):
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 3.8 * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def _is_colorbar(ax):
    return hasattr(ax, "_colorbar") or ax.get_label() == "<colorbar>"


def _tick_text(v, _pos=None):
    if v > 0 and float(v).is_integer() and int(v) >= 1024 and int(v) & (int(v) - 1) == 0:
        return f"$2^{{{int(v).bit_length() - 1}}}$"
    return f"{v:g}"


def labelled_ticks(axis, lim):
    """How many major ticks inside the view `lim` carry a label (what a reader can read off)."""
    lo, hi = sorted(lim)
    locs = [v for v in axis.get_major_locator().tick_values(lo, hi) if lo - 1e-12 * abs(lo) <= v <= hi + 1e-12 * abs(hi)]
    if not locs:
        return 0
    texts = axis.get_major_formatter().format_ticks(locs)
    return sum(1 for t in texts if t.strip())


def _readable_log_axes(ax):
    """A log axis over less than a decade shows no labelled tick with matplotlib's
    defaults (host DOT at 30-60 GB/s had a bare axis): label 1-2-5 (base 2: 1 and 1.5 of
    each power), and where even that leaves fewer than two labels, go linear."""
    for name in ("x", "y"):
        axis = getattr(ax, name + "axis")
        if getattr(ax, f"get_{name}scale")() != "log":
            continue
        lim = getattr(ax, f"get_{name}lim")()
        if min(lim) <= 0 or labelled_ticks(axis, lim) >= 2:
            continue
        base = getattr(axis.get_transform(), "base", 10)
        axis.set_major_locator(LogLocator(base=base, subs=(1.0, 2.0, 5.0) if base == 10 else (1.0, 1.5)))
        axis.set_major_formatter(FuncFormatter(_tick_text))
        if labelled_ticks(axis, lim) < 2:
            getattr(ax, f"set_{name}scale")("linear")
            getattr(ax, f"set_{name}lim")(lim)


def _finish(fig, legend_title=None):
    """Readable axes, fixed margins, and one legend for the figure, beside the panels so
    that it covers neither data nor text. Fixed margins: tight_layout measures every tick
    label of every panel and was most of the time of a 10,000-point report; so were the
    minor ticks of the log axes."""
    axes = [ax for ax in fig.axes if ax.get_visible() and not _is_colorbar(ax)]
    handles, labels = [], []
    for ax in axes:
        if ax.get_xscale() == "log":
            ax.xaxis.set_minor_locator(NullLocator())
        if ax.get_yscale() == "log":
            ax.yaxis.set_minor_locator(NullLocator())
        _readable_log_axes(ax)
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    w, h = fig.get_size_inches()
    # Room on the left for the widest tick labels of a panel (a heat map's categories).
    widest = 0
    for ax in axes:
        lo, hi = sorted(ax.get_ylim())
        locs = [v for v in ax.yaxis.get_major_locator().tick_values(lo, hi) if lo <= v <= hi]
        if locs:
            widest = max(widest, max(len(t) for t in ax.yaxis.get_major_formatter().format_ticks(locs)))
    left = max(0.75, 0.45 + 0.075 * widest)
    top = 0.35 + 0.16 * max([ax.get_title().count("\n") for ax in axes] or [0])
    lw, ncol = 0.0, 1
    if labels:
        ncol = 1 if len(labels) * 0.17 < h - 0.4 else 2
        lw = min(5.0, 0.45 + 0.055 * max(len(lab) for lab in labels)) * ncol
        fig.set_size_inches(w + lw, h)
    total = w + lw
    fig.subplots_adjust(left=left / total, right=(w - 0.25) / total, bottom=0.55 / h, top=1 - top / h,
                        wspace=0.32, hspace=0.45)
    if labels:
        fig.legend(handles, labels, loc="upper left", bbox_to_anchor=((w - 0.05) / total, 1 - 0.3 / h),
                   fontsize=7, ncol=ncol, frameon=False, title=legend_title, title_fontsize=7)


def figure_checks(fig):
    """What a reader can see of a drawn figure, for the report's tests: per axes the
    labelled ticks of each axis (and whether it is logarithmic), legends overlapping any
    panel, the labelled series and how many distinct styles they have, and the
    annotations."""
    renderer = fig.canvas.get_renderer()
    axes = [ax for ax in fig.axes if ax.get_visible()]
    out = {"axes": [], "legend_overlaps": 0, "series": 0, "styles": 0, "annotations": 0}
    styles = {}
    for ax in axes:
        entry = {"colorbar": _is_colorbar(ax)}
        for name in ("x", "y"):
            axis = getattr(ax, name + "axis")
            entry[name] = labelled_ticks(axis, getattr(ax, f"get_{name}lim")())
            entry[name + "_log"] = getattr(ax, f"get_{name}scale")() == "log"
        out["axes"].append(entry)
        out["annotations"] += len(ax.texts)
        series = [(c.get_label() or "_", c.lines[0]) for c in ax.containers if isinstance(c, ErrorbarContainer)]
        series += [(ln.get_label() or "_", ln) for ln in ax.lines]
        for label, line in series:
            if line is not None and not label.startswith("_"):
                styles[label] = (to_hex(line.get_color()), str(line.get_marker()), str(line.get_linestyle()))
    out["series"] = len(styles)
    out["styles"] = len(set(styles.values()))
    panels = [ax.get_window_extent(renderer) for ax in axes if not _is_colorbar(ax)]
    legends = list(fig.legends) + [ax.get_legend() for ax in axes if ax.get_legend() is not None]
    for leg in legends:
        box = leg.get_window_extent(renderer)
        out["legend_overlaps"] += sum(1 for p in panels if box.overlaps(p))
    return out


def _panels(items, per_figure=12):
    return [items[i:i + per_figure] for i in range(0, len(items), per_figure)]


def rate_vs_size(ok):
    """One figure per op: a panel per device, a line per variant and precision."""
    out = []
    by_op = {}
    for key, g in rd.size_sweeps(ok):
        by_op.setdefault(key[0], []).append((key, g))
    for op, panels, part in [(op, p, i) for op, ps in sorted(by_op.items()) for i, p in enumerate(_panels(ps))]:
        fig, axes = _grid(len(panels))
        style = Styles()
        for ax, ((_, dev), g) in zip(axes, panels):
            variants = sorted(g.groupby(["variant_id", "precision"]).groups)
            for v, prec in variants:
                h = g[(g["variant_id"] == v) & (g["precision"] == prec)]
                _errbar(ax, h, "size_x", f"{v} {prec}", style(f"{v} {prec}"))
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel(g["size_label"].iloc[0])
            ax.set_ylabel(g["unit"].iloc[0])
            ax.set_title(f"{op} on {dev}", fontsize=9)
            ax.grid(True, alpha=0.3)
        _finish(fig)
        out.append(Figure(fig, _slug("size", op, part),
                          f"{op}: rate against problem size, a panel per device, a line per variant and precision (its fastest "
                          f"parameters at each size); bars: the 95% interval of the median time."))
    return out


def transfer_bandwidth(ok):
    """Op transfer (the host link): a panel per device, bandwidth against bytes copied on a
    log x axis, a line per direction and host memory kind (the best variant at each size)."""
    if not {"size_bytes", "feature_direction", "feature_memory"} <= set(ok.columns):
        return []
    t = ok[(ok["op"] == "transfer") & ok["size_bytes"].notna()]
    if t.empty:
        return []
    t = t.assign(link=t["feature_direction"].astype(str) + " " + t["feature_memory"].astype(str),
                 size_x=t["size_bytes"].astype(float))
    devices = sorted(t.groupby("device_label").groups)
    out = []
    for part, panel in enumerate(_panels(devices)):
        fig, axes = _grid(len(panel))
        style = Styles()
        for ax, dev in zip(axes, panel):
            g = rd.best_per(t[t["device_label"] == dev], ["link", "size_x"])
            links = sorted(g["link"].unique())
            for link in links:
                _errbar(ax, g[g["link"] == link].sort_values("size_x"), "size_x", link, style(link))
            ax.set_xscale("log", base=2)
            ax.set_xlabel("bytes copied (each way)")
            ax.set_ylabel("GB/s (1e9 bytes/s; bidir: both ways)")
            ax.set_title(f"transfer on {dev}", fontsize=9)
            ax.grid(True, alpha=0.3)
        _finish(fig)
        out.append(Figure(fig, _slug("transfer", part),
                          "transfer: host-link bandwidth against bytes copied, a panel per device, a line per direction "
                          "and host memory kind (the fastest variant at each size); bars: the 95% interval of the "
                          "median time."))
    return out


def rate_vs_local_size(ok):
    """One figure per op: a panel per device, a line per variant, precision and size."""
    out = []
    by_op = {}
    for key, g, n_sizes in rd.local_sweeps(ok):
        by_op.setdefault(key[0], []).append((key, g, n_sizes))
    for op, all_panels in sorted(by_op.items()):
        for part, panels in enumerate(_panels(all_panels)):
            fig, axes = _grid(len(panels))
            style = Styles()
            for ax, ((_, dev), g, n_sizes) in zip(axes, panels):
                series = sorted(g.groupby(["variant_id", "precision", "size_x"]).groups)
                for v, prec, size in series:
                    h = g[(g["variant_id"] == v) & (g["precision"] == prec) & (g["size_x"] == size)]
                    best = rd.best_per(h, ["local_size"]).sort_values("local_size")
                    label = f"{v} {prec}" + ("" if g["size_x"].nunique() == 1 else f", {rd._fmt_num(size)}")
                    _errbar(ax, best, "local_size", label, style(label))
                    if len(h) > len(best):  # several shapes of one size (WX x WY): every one as a dot
                        ax.scatter(h["local_size"], h["rate"], s=8, alpha=0.4, color="gray")
                ax.set_xscale("log", base=2)
                ax.set_xlabel("local size (work-items per work-group)")
                ax.set_ylabel(g["unit"].iloc[0])
                shown = g["size_x"].nunique()
                more = f", {shown} of {n_sizes} sizes" if n_sizes > shown else ""
                ax.set_title(f"{op} on {dev}{more}", fontsize=9)
                ax.grid(True, alpha=0.3)
            _finish(fig)
            out.append(Figure(fig, _slug("lws", op, part),
                              f"{op}: rate against the work-group size (the product of "
                              f"{', '.join(rd.LOCAL_SIZE_PARAMS)} where set), a line per variant and "
                              f"precision and problem size ({g['size_label'].iloc[0]}; at most 3 sizes a panel, spread "
                              f"from the smallest to the largest swept)."))
    return out


def roofline(ok):
    """Per device: attained GFLOP/s against arithmetic intensity under its measured ceilings."""
    out, missing = [], []
    for dev, g in ok.groupby("device_label", sort=True):
        c = rd.ceilings_of(g)
        if c is None:
            missing.append(dev)
            continue
        g = g[g["intensity"].notna() & (g["intensity"] > 0) & (g["achieved_gflops"] > 0)]
        if g.empty:
            missing.append(dev)
            continue
        fig, ax = plt.subplots(figsize=(9, 4.5))
        lo = min(g["intensity"].min(), 0.01) / 2
        hi = max(g["intensity"].max(), 100) * 2
        x = np.logspace(math.log10(lo), math.log10(hi), 200)
        for prec, peak in sorted(c["gflops"].items()):
            ax.plot(x, np.minimum(peak, x * c["gbs"]), linewidth=1.5,
                    label=f"ceiling {prec}: {c['gbs']:.3g} GB/s, {peak:.3g} GFLOP/s")
        if not c["gflops"]:
            ax.plot(x, x * c["gbs"], linewidth=1.5, label=f"copy {c['gbs']:.3g} GB/s")
        big = len(g) > RASTER_ABOVE
        for i, ((op, prec), h) in enumerate(g.groupby(["op", "precision"], sort=True)):
            ax.scatter(h["intensity"], h["achieved_gflops"], s=10, marker=MARKERS[i % len(MARKERS)],
                       alpha=0.6, label=f"{op} {prec} ({len(h)})", rasterized=big)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("arithmetic intensity (flops / minimum bytes)")
        ax.set_ylabel("GFLOP/s")
        ax.set_title(f"roofline of {dev}", fontsize=9)
        ax.grid(True, alpha=0.3)
        _finish(fig)
        out.append(Figure(fig, _slug("roofline", dev),
                          f"{dev}: every passing point under the measured ceilings "
                          f"(copy bandwidth and FMA peak per precision, from {c['source'] or 'the records'})."))
    return out, missing


def tuning_landscapes(ok, contexts):
    """Per tuned problem: every configuration's rate, sorted; a heat map where two
    parameters varied."""
    out = []
    if "tune_task" not in ok:
        return out
    for exp, tasks in contexts.items():
        tuning = tasks.get("tuning") or []
        for task, t in enumerate(tuning):
            g = ok[(ok.get("experiment") == exp) & (ok["tune_task"] == task)] if "experiment" in ok else ok[ok["tune_task"] == task]
            if len(g) < 2:
                continue
            varying = [c for c in rd.param_columns(g) if g[c].nunique() > 1]
            title = f"{t.get('variant')} {t.get('precision')} on {t.get('device')}, {_sizes(t.get('sizes'))}"
            best = t.get("params") or {}
            best_text = "best: " + (",".join(f"{k}={v}" for k, v in best.items()) or "(none passed)")
            if len(varying) == 2:
                fig, ax = plt.subplots(figsize=(6, 4.5))
                a, b = varying
                grid = g.pivot_table(index=b, columns=a, values="rate", aggfunc="max").sort_index()
                values = grid.to_numpy(float)
                im = ax.imshow(values, origin="lower", aspect="auto", cmap="viridis")
                ax.set_xticks(range(len(grid.columns)), [rd._fmt_num(v) for v in grid.columns])
                ax.set_yticks(range(len(grid.index)), [rd._fmt_num(v) for v in grid.index])
                ax.set_xlabel(a[6:])
                ax.set_ylabel(b[6:])
                fig.colorbar(im, ax=ax, label=g["unit"].iloc[0])
                # Each evaluated cell says its rate (up to 8 x 8 cells; more would not fit).
                if values.size <= 64:
                    mid = np.nanmean(values)
                    for (yi, xi), v in np.ndenumerate(values):
                        if np.isfinite(v):
                            ax.annotate(f"{v:.3g}", (xi, yi), ha="center", va="center", fontsize=6,
                                        color="white" if v < mid else "black")
                kind = "heat map over the two parameters that varied, each cell's rate written in it (blank: not evaluated)"
            else:
                fig, ax = plt.subplots(figsize=(7, 4.5))
                s = g.sort_values("rate", ascending=False)
                xs = np.arange(1, len(s) + 1)
                ax.errorbar(xs, s["rate"], yerr=[np.clip(s["rate"] - s["rate_lo"], 0, None),
                                                 np.clip(s["rate_hi"].fillna(s["rate"]) - s["rate"], 0, None)],
                            fmt="o", markersize=3, capsize=1.5, elinewidth=0.7)
                # Configurations by name: every one up to 30, else the five fastest and the slowest.
                shown = range(len(s)) if len(s) <= 30 else list(range(5)) + [len(s) - 1]
                for i in shown:
                    ax.annotate(s["config"].iloc[i] or "(defaults)", (xs[i], s["rate"].iloc[i]), xytext=(0, 5),
                                textcoords="offset points", rotation=90, ha="center", va="bottom", fontsize=5)
                top = float(s["rate_hi"].fillna(s["rate"]).max())
                ax.set_ylim(top=top * 1.45 if top > 0 else None)  # room above the points for their names
                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
                ax.set_xlabel("configurations, fastest first")
                ax.set_ylabel(g["unit"].iloc[0])
                kind = ("rate of every evaluated configuration, fastest first, with the median's interval, each "
                        "named by its parameters")
            ax.set_title(f"{title}\n{best_text}", fontsize=9)
            _finish(fig)
            out.append(Figure(fig, _slug("tune", exp, task),
                              f"tuning landscape of {title} ({best_text}): {kind}; "
                              f"{len(g)} evaluations of {t.get('space', '?')} configurations ({t.get('strategy', '')})."))
    return out


def summary_ratios(table):
    """The report's first figure: per device, op and precision, the fastest own variant
    over the fastest vendor library (geometric mean over the problems both ran; the bar's
    whisker spans the smallest to the largest ratio), 1 marked."""
    if table.empty or "own ÷ vendor (geomean)" not in table:
        return []
    t = table[table["own ÷ vendor (geomean)"].notna()]
    if t.empty:
        return []
    t = t.iloc[::-1]  # the table's first row at the top
    y = np.arange(len(t))
    r = t["own ÷ vendor (geomean)"].to_numpy(float)
    err = [np.clip(r - t["min"].to_numpy(float), 0, None), np.clip(t["max"].to_numpy(float) - r, 0, None)]
    fig, ax = plt.subplots(figsize=(9, 0.9 + 0.28 * len(t)))
    colors = [COLORS[0] if v >= 1 else COLORS[3] for v in r]
    ax.barh(y, r, xerr=err, color=colors, height=0.6, capsize=2, error_kw={"elinewidth": 0.8})
    for yi, v, hi, n in zip(y, r, t["max"].to_numpy(float), t["problems"]):
        ax.annotate(f"{v:.2f} ({int(n)})", (max(v, hi), yi), xytext=(4, 0), textcoords="offset points", va="center",
                    fontsize=6)
    ax.axvline(1.0, color="#555", linewidth=0.8, linestyle=":")
    ax.set_yticks(y, [f"{op} {prec} on {dev}" for op, prec, dev in zip(t["op"], t["precision"], t["device"])],
                  fontsize=7)
    ax.set_xlim(0, max(1.2, float(np.nanmax(t["max"].to_numpy(float))) * 1.15))
    ax.set_xlabel("fastest own variant ÷ fastest vendor library (rate; above 1: own faster)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_title("how fast, against what", fontsize=9)
    _finish(fig)
    # Long device names: the labels need a wider left margin than the other figures.
    longest = max(len(lab.get_text()) for lab in ax.get_yticklabels())
    fig.subplots_adjust(left=min(0.5, (0.2 + 0.052 * longest) / fig.get_size_inches()[0]))
    return [Figure(fig, "summary", "Each op's fastest own variant over the fastest vendor library on the same "
                                   "device and problem: geometric mean over the problems both ran (their count in "
                                   "brackets), whiskers from the smallest to the largest ratio.")]


def accuracy_scatter(table):
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    t = table[table["max rel err"].notna() & (table["max rel err"] > 0)]
    if t.empty:
        plt.close(fig)
        return []
    for i, (prec, h) in enumerate(t.groupby("precision")):
        ax.scatter(h["max rel err"], h["rate"], marker=MARKERS[i % len(MARKERS)], label=prec)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("largest relative error of an output element")
    ax.set_ylabel("rate (" + "/".join(sorted(t["unit"].unique())) + ")")
    ax.grid(True, alpha=0.3)
    ax.set_title("speed against accuracy", fontsize=9)
    _finish(fig, legend_title="precision")
    return [Figure(fig, "accuracy", "speed against the measured error: one dot per op, device, size and "
                                    "precision (its fastest variant), as in the table below.")]


def spmv_bars(ok):
    out = []
    sp = ok[ok["op"] == "spmv"]
    for (dev, prec), g in sp.groupby(["device_label", "precision"], sort=True):
        best = rd.best_per(g, ["matrix", "variant_id"])
        mats = sorted(best["matrix"].unique())
        variants = sorted(best["variant_id"].unique())
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(mats) * max(1, len(variants)) / 2), 4))
        width = 0.8 / len(variants)
        for i, v in enumerate(variants):
            h = best[best["variant_id"] == v].set_index("matrix").reindex(mats)
            lib = (h["kind"] == "library").any() if "kind" in h else False
            x = np.arange(len(mats)) + i * width
            y = h["rate"].to_numpy(float)
            err = [np.nan_to_num(y - h["rate_lo"].to_numpy(float)), np.nan_to_num(h["rate_hi"].to_numpy(float) - y)]
            ax.bar(x, y, width, yerr=err, capsize=2, label=v + (" (library)" if lib else ""),
                   hatch="//" if lib else None)
        ax.set_xticks(np.arange(len(mats)) + 0.4 - width / 2, mats, rotation=20, ha="right", fontsize=7)
        ax.set_ylabel("GB/s")
        ax.set_title(f"SpMV {prec} on {dev}", fontsize=9)
        _finish(fig)
        out.append(Figure(fig, _slug("spmv", dev, prec),
                          f"SpMV {prec} on {dev}: each variant's fastest point per matrix; hatched: vendor libraries."))
    return out


def layouts_normalised(table):
    """Per device: a panel per problem (op, precision, sizes), a bar per layout: the kernel
    time (solid) and the rest (hatched: transfers and layout conversion) over the kernel
    time of the fastest layout, as Majeti et al. show their layouts."""
    out = []
    for dev, g in table.groupby("device_label", sort=True):
        problems = list(g.groupby(["op", "precision", "problem"], sort=True))
        for part, panels in enumerate(_panels(problems)):
            fig, axes = _grid(len(panels))
            for ax, ((op, prec, problem), h) in zip(axes, panels):
                x = np.arange(len(h))
                k = h["kernel_norm"].to_numpy(float)
                r = np.nan_to_num(h["rest_norm"].to_numpy(float))
                ax.bar(x, k, 0.7, label="kernel", color="#4c72b0")
                ax.bar(x, r, 0.7, bottom=k, label="rest (transfers + conversion)", color="#dd8452", hatch="//",
                       alpha=0.8)
                ax.axhline(1.0, color="#555", linewidth=0.8, linestyle=":")
                ax.set_xticks(x, h["layout"], rotation=20, ha="right", fontsize=7)
                ax.set_ylabel("time ÷ fastest layout's kernel")
                ax.set_title(f"{op} {prec} {problem}", fontsize=9)
            _finish(fig)
            out.append(Figure(fig, _slug("layouts", dev, part),
                              f"Layouts on {dev}: per problem, each layout's kernel time (solid) and the rest "
                              "(hatched: transfers and layout conversion, features.rest_s) over the kernel time of "
                              "the fastest layout there."))
    return out


def energy(e):
    out = []
    for (op, dev), g in e.groupby(["op", "device_label"], sort=True):
        fig, ax = plt.subplots(figsize=(6, 4))
        style = Styles()
        for (v, prec), h in g.groupby(["variant_id", "precision"], sort=True):
            h = rd.best_per(h, ["size_x"]).sort_values("size_x")
            ax.plot(h["size_x"], h["per_joule"], label=f"{v} {prec}", **style(f"{v} {prec}"))
        ax.set_xscale("log", base=2)
        ax.set_xlabel(g["size_label"].iloc[0])
        ax.set_ylabel(g["energy_unit"].iloc[0])
        ax.set_title(f"{op}: energy efficiency on {dev}", fontsize=9)
        ax.grid(True, alpha=0.3)
        _finish(fig)
        out.append(Figure(fig, _slug("energy", op, dev),
                          f"{op} on {dev}: work per joule (energy.gb_per_j or energy.gflop_per_j) against size."))
    return out


def _sizes(s):
    return ", ".join(f"{k}={v}" for k, v in (s or {}).items() if k not in ("soa", "input"))


def pchase_latency(ok):
    """pchase: nanoseconds per dependent load against the working set (log x), one line per
    device (its fastest variant at each working set), so that the cache levels show as
    plateaus. The error bars are the median time's interval over the loads."""
    if "ns_per_load" not in ok or "size_ws" not in ok:
        return []
    pc = ok[(ok["op"] == "pchase") & ok["ns_per_load"].notna()].copy()
    if pc.empty:
        return []
    loads = pc["size_loads"].astype(float)
    pc["ns"] = pc["ns_per_load"].astype(float)
    pc["ns_lo"] = pc["ci95_lo_s"].astype(float).fillna(pc["median_s"].astype(float)) / loads * 1e9
    pc["ns_hi"] = pc["ci95_hi_s"].astype(float).fillna(pc["median_s"].astype(float)) / loads * 1e9
    fig, ax = plt.subplots(figsize=(7, 4.5))
    style = Styles()
    for dev, g in pc.groupby("device_label", sort=True):
        best = g.loc[g.groupby("size_ws")["ns"].idxmin()].sort_values("size_ws")
        y = best["ns"].to_numpy(float)
        err = [np.clip(y - best["ns_lo"].to_numpy(float), 0, None), np.clip(best["ns_hi"].to_numpy(float) - y, 0, None)]
        ax.errorbar(best["size_ws"].to_numpy(float), y, yerr=err, label=dev, markersize=4, capsize=2, linewidth=1,
                    elinewidth=0.8, **style(dev))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("working set (bytes)")
    ax.set_ylabel("ns per load")
    ax.set_title("pointer chase: latency against working set", fontsize=9)
    ax.grid(True, alpha=0.3)
    _finish(fig)
    return [Figure(fig, _slug("pchase"), "pchase: ns per dependent load against the working set, one line per "
                   "device (its fastest variant); plateaus are the cache levels and device memory "
                   "(docs/memory-system.md).")]


def residual_history(df):
    """hetbench solve: ||r_k||/||b|| against the iteration (log y), one line per solve
    (method, precision, device, variant), every record with a residual history."""
    if "residual_history" not in df or "op" not in df:
        return []
    sv = df[(df["op"] == "solve") & df["residual_history"].apply(lambda h: isinstance(h, list) and len(h) > 1)]
    if sv.empty:
        return []
    fig, ax = plt.subplots(figsize=(7, 4.5))
    style = Styles()
    for _, r in sv.iterrows():
        h = np.asarray(r["residual_history"], dtype=float)
        label = f"{r.get('method')} {r.get('precision')}{'+' + r['refine'] if isinstance(r.get('refine'), str) else ''} " \
                f"{r.get('device')} {r.get('variant')}"
        ax.plot(np.arange(len(h)), h, label=label, linewidth=1, markersize=3, markevery=max(1, len(h) // 10),
                **style(label))
    ax.set_yscale("log")
    ax.set_xlabel("iteration (refinement: the inner solves in order)")
    ax.set_ylabel("||r_k|| / ||b||")
    ax.set_title("solver residual history", fontsize=9)
    ax.grid(True, alpha=0.3)
    _finish(fig)
    return [Figure(fig, _slug("residual-history"), "hetbench solve: the recursively updated relative residual per "
                   "iteration (docs/solvers.md); rows thinned above 5000 entries.")]
