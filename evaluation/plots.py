"""Bar charts of evaluation reports (PNG, matplotlib): for each kind of task, one panel
per metric, its groups (categories or levels, then all tasks) along the axis and one bar
per predictions file in each group, side by side, each bar with its value written on it.

Rates are drawn as percentages, manipulation points as they are, on one 0-100 axis. The
share of tasks an agent can solve at all (`solvable`: every target has a valid frame) is
not a score: it is drawn as a reference line over each group's bars, the ceiling of its
high-level metrics. The bytes carry no date or version, so reports give the same files.
See docs/evaluation.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from fdc.evaluation.report import MANIPULATION_METRICS, MEMORY_METRICS, EvaluationReport, GroupRow

if TYPE_CHECKING:
    from typing import Any

DPI = 120
#: Drawn as a reference line, not as a bar.
REFERENCE = "solvable"


def plot_reports(reports: EvaluationReport | Sequence[tuple[str, EvaluationReport]],
                 dpi: int = DPI) -> dict[str, bytes]:
    """File name -> PNG bytes: `{kind}-by-category.png` and `{kind}-by-level.png` for
    each kind of task in the reports (a level chart only where tasks have levels).
    `reports`: one report, or (name, report) per predictions file, all of one suite."""
    runs = [("predictions", reports)] if isinstance(reports, EvaluationReport) else list(reports)
    out: dict[str, bytes] = {}
    for kind, names in (("memory", MEMORY_METRICS), ("manipulation", MANIPULATION_METRICS)):
        per_run = [[r for r in report.summary if r.kind == kind] for _, report in runs]
        if not per_run or not per_run[0]:
            continue
        for by in ("category", "level"):
            groups = [[r for r in rows if r.by == by] + [r for r in rows if r.by == "overall"]
                      for rows in per_run]
            if by == "level" and all(r.name == "-" for r in groups[0] if r.by == by):
                continue
            names_shown = [name for name, _ in runs]
            out[f"{kind}-by-{by}.png"] = _panels(groups, names_shown, names,
                                                 f"{kind} tasks by {by}", by, dpi)
    return out


def _label(row: GroupRow, by: str) -> str:
    name = "all" if row.by == "overall" else f"level {row.name}" if by == "level" else row.name
    return f"{name}\n(n={row.tasks})"


def _panels(groups: list[list[GroupRow]], runs: list[str], names: dict[str, str],
            title: str, by: str, dpi: int) -> bytes:
    """One panel per metric; in each, per group, a bar per run with its value."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fdc.sim_bridge.pictures import figure_bytes

    first = groups[0]
    keys = [k for k in names if k != REFERENCE and any(k in r.metrics for rows in groups
                                                       for r in rows)]
    x = np.arange(len(first))
    width = 0.8 / max(len(runs), 1)
    width_in = min(18.0, max(6.5, 0.35 * len(first) * (len(runs) + 1) + 2.5))
    fig: Any
    fig, axes = plt.subplots(len(keys), 1, figsize=(width_in, 0.4 + 2.3 * len(keys)),
                             sharex=True, squeeze=False)
    palette = plt.get_cmap("tab10")
    for ax, key in zip(axes[:, 0], keys, strict=True):
        scale = 1.0 if key == "points" else 100.0
        for k, (run, rows) in enumerate(zip(runs, groups, strict=True)):
            values = [scale * r.metrics.get(key, 0.0) for r in rows]
            bars = ax.bar(x + (k - (len(runs) - 1) / 2) * width, values, width,
                          label=run, color=palette(k % 10))
            ax.bar_label(bars, labels=[f"{v:.0f}" for v in values], fontsize=6.5, padding=1)
        if any(REFERENCE in r.metrics for r in first):
            for g, row in enumerate(first):
                share = 100.0 * row.metrics.get(REFERENCE, 0.0)
                ax.hlines(share, g - 0.45, g + 0.45, colors="#222222", linestyles="--",
                          linewidth=1.0, label=names[REFERENCE] if g == 0 else None)
        ax.set_ylim(0, 112)
        ax.set_ylabel(names[key] + (" (of 100)" if key == "points" else " (%)"), fontsize=8)
        ax.axvline(len(first) - 1.5, color="#999999", linewidth=0.8, linestyle=":")
        ax.grid(axis="y", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.tick_params(labelsize=7)
    axes[0, 0].set_title(title)
    axes[0, 0].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    axes[-1, 0].set_xticks(x, [_label(r, by) for r in first],
                           rotation=30 if len(first) > 6 else 0,
                           ha="right" if len(first) > 6 else "center", fontsize=7)
    data: bytes = figure_bytes(fig, "png", dpi)
    return data
