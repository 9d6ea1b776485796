"""PNG plots of the reproductions (matplotlib, Agg backend; no display needed)."""

from __future__ import annotations

from pathlib import Path


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


_STYLE = {
    "perceptron": ("tab:gray", "--"), "pegasos": ("k", "--"),
    "avg-perceptron": ("tab:blue", "-"), "max-perceptron": ("tab:orange", "-"),
    "avg-pegasos": ("tab:green", "-"), "max-pegasos": ("tab:red", "-"),
}


def plot_online_curves(summary, dataset, set_sizes, learners, labels, path, title=None):
    """One panel per candidate-set size: average error vs rounds for each learner.

    ``summary[(dataset, size, learner)]`` holds "curve" and "checkpoints".
    """
    plt = _plt()
    n = len(set_sizes)
    fig, axes = plt.subplots(1, n, figsize=(4.2 * n, 3.4), squeeze=False, sharey=True)
    for ax, size in zip(axes[0], set_sizes):
        for m in learners:
            s = summary.get((dataset, size, m))
            if s is None:
                continue
            color, ls = _STYLE.get(m, (None, "-"))
            ax.plot(s["checkpoints"], s["curve"], ls, color=color, lw=1.4, label=f"{labels.get(m, m)}")
        ax.set_title(f"candidate set size {size}")
        ax.set_xlabel("rounds")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("average error (vs true label)")
    axes[0][-1].legend(fontsize=7, loc="upper right")
    if title:
        fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_bars(rows, path, title, ylabel="test accuracy"):
    """Grouped bars: rows = [(group, label, mean, std)]."""
    plt = _plt()
    import numpy as np

    groups = list(dict.fromkeys(r[0] for r in rows))
    labels = list(dict.fromkeys(r[1] for r in rows))
    width = 0.8 / max(1, len(labels))
    fig, ax = plt.subplots(figsize=(1.8 + 1.6 * len(groups), 3.4))
    for j, lab in enumerate(labels):
        xs, ms, ss = [], [], []
        for i, g in enumerate(groups):
            for r in rows:
                if r[0] == g and r[1] == lab:
                    xs.append(i + j * width)
                    ms.append(r[2])
                    ss.append(r[3])
        ax.bar(xs, ms, width, yerr=ss, label=lab, capsize=2)
    ax.set_xticks(np.arange(len(groups)) + 0.4 - width / 2)
    ax.set_xticklabels(groups)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
