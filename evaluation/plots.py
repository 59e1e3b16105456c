"""Bar charts of an evaluation report (PNG, matplotlib): for each kind of task, its
metrics per category and per level, with the overall mean as the last group.

Every metric is drawn on one 0-100 axis (rates as percentages, manipulation points as
they are). The bytes carry no date or version, so a report gives the same files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fdc.evaluation.report import MANIPULATION_METRICS, MEMORY_METRICS, EvaluationReport, GroupRow

if TYPE_CHECKING:
    from typing import Any

DPI = 120


def plot_reports(report: EvaluationReport, dpi: int = DPI) -> dict[str, bytes]:
    """File name -> PNG bytes: `{kind}-by-category.png` and `{kind}-by-level.png` for
    each kind of task in the report (a level chart only where tasks have levels)."""
    out: dict[str, bytes] = {}
    for kind, names in (("memory", MEMORY_METRICS), ("manipulation", MANIPULATION_METRICS)):
        rows = [r for r in report.summary if r.kind == kind]
        if not rows:
            continue
        overall = [r for r in rows if r.by == "overall"]
        for by in ("category", "level"):
            groups = [r for r in rows if r.by == by]
            if by == "level" and all(r.name == "-" for r in groups):
                continue
            title = f"{kind} tasks by {by}"
            out[f"{kind}-by-{by}.png"] = _bars(groups + overall, names, title, by, dpi)
    return out


def _bars(rows: list[GroupRow], names: dict[str, str], title: str, by: str, dpi: int
          ) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from fdc.sim_bridge.pictures import figure_bytes

    keys = [k for k in names if any(k in r.metrics for r in rows)]
    labels = [("all" if r.by == "overall" else f"level {r.name}" if by == "level" else r.name)
              + f"\n(n={r.tasks})" for r in rows]
    x = np.arange(len(rows))
    width = 0.8 / max(len(keys), 1)
    fig: Any
    width_in = min(16.0, max(6.0, 0.22 * len(rows) * (len(keys) + 1)))
    fig, ax = plt.subplots(figsize=(width_in, 4.8))
    palette = plt.get_cmap("tab10")
    for k, key in enumerate(keys):
        scale = 1.0 if key == "points" else 100.0
        values = [scale * r.metrics.get(key, 0.0) for r in rows]
        ax.bar(x + (k - (len(keys) - 1) / 2) * width, values, width, label=names[key],
               color=palette(k % 10))
    ax.set_xticks(x, labels, rotation=30 if len(rows) > 6 else 0, ha="right"
                  if len(rows) > 6 else "center", fontsize=8)
    ax.set_ylim(0, 100)
    ax.set_ylabel("% (points: of 100)" if "points" in keys else "%")
    ax.set_title(title)
    ax.axvline(len(rows) - 1.5, color="#999999", linewidth=0.8, linestyle=":")
    ax.grid(axis="y", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    data: bytes = figure_bytes(fig, "png", dpi)
    return data
