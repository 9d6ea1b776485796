"""Markdown and CSV reports of the reproductions."""

from __future__ import annotations

import csv
from pathlib import Path

from ._common import fmt_params


def write_partial_labels_report(out, p, summary, datasets, learners, labels, grid, pngs):
    out = Path(out)
    lines = [
        "# Online learning from candidate label sets (Bhattacharjee & Manwani, Section 5)",
        "",
        f"Repeats per cell: {p['repeats']}; tuning repeats: {p['tune_repeats']}; "
        f"{'QUICK run: streams cut to ' + str(p['rounds']) + ' rounds' if p['quick'] else 'full streams (one pass)'}.",
        "Final average error = mean 0-1 error against the TRUE label over all rounds of the stream "
        "(mean +- std over repeats). Lower is better; the best candidate-set learner is in bold.",
        "",
        "| dataset | set size | rounds | " + " | ".join(labels[m] for m in learners) + " |",
        "|---|---|---|" + "---|" * len(learners),
    ]
    rows_csv = []
    for name in p["datasets"]:
        for size in datasets[name][0]:
            cells = [summary.get((name, size, m)) for m in learners]
            cand = [c["mean"] for m, c in zip(learners, cells) if c and m not in ("perceptron", "pegasos")]
            best = min(cand) if cand else None
            rounds = cells[0]["checkpoints"][-1] if cells[0] else "-"
            txt = []
            for m, c in zip(learners, cells):
                if c is None:
                    txt.append("-")
                    continue
                s = f"{c['mean']:.3f} +- {c['std']:.3f}"
                if best is not None and m not in ("perceptron", "pegasos") and c["mean"] == best:
                    s = f"**{s}**"
                txt.append(s)
                rows_csv.append([name, size, m, fmt_params(c["params"]), c["n"], rounds, f"{c['mean']:.5f}",
                                 f"{c['std']:.5f}", f"{c['ambiguous']:.5f}"])
            lines.append(f"| {name} | {size} | {rounds} | " + " | ".join(txt) + " |")
    lines += ["", "## Hyper-parameters", "",
              "Grid: " + "; ".join(f"{labels[m]}: {fmt_params({k: v for k, v in g.items()})}" for m, g in grid.items()),
              "", "Chosen per dataset and set size by the final ambiguous error (vs candidate sets) on separate "
              "tuning seeds:", "", "| dataset | set size | " + " | ".join(labels[m] for m in learners) + " |",
              "|---|---|" + "---|" * len(learners)]
    for name in p["datasets"]:
        for size in datasets[name][0]:
            vals = [fmt_params(summary[(name, size, m)]["params"]) if (name, size, m) in summary else "-"
                    for m in learners]
            lines.append(f"| {name} | {size} | " + " | ".join(vals) + " |")
    lines += ["", "## Data", ""] + [f"- {n}: {datasets[n][2]}" for n in p["datasets"]]
    lines += ["", "## Plots", ""] + [f"![{Path(x).stem}]({Path(x).name})" for x in pngs]
    md = out / "report.md"
    md.write_text("\n".join(lines) + "\n")
    with open(out / "final_errors.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["dataset", "set_size", "method", "params", "repeats", "rounds", "mean_error", "std_error",
                    "mean_ambiguous_error"])
        w.writerows(rows_csv)
    return md
