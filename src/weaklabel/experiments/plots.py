"""PNG plots of the reproductions (matplotlib, Agg backend; no display needed)."""

from __future__ import annotations

from pathlib import Path

from .._extras import require


def _plt():
    matplotlib = require("matplotlib", "plotting a reproduction")
    matplotlib.use("Agg", force=False)
    plt = require("matplotlib.pyplot", "plotting a reproduction")
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


def plot_mms_artificial(summary, dataset, levels, Ls, path):
    """Figure 1 style: one panel per (P_c, P_a), accuracy vs L for MMS (final and after
    round 1) and CL-SVM, with the supervised SVMs as horizontal lines."""
    plt = _plt()
    n = len(levels)
    cols = min(3, n)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 2.9 * rows), squeeze=False, sharey=True)
    style = {"mms": ("tab:red", "-", "o", "MMS"), "mms-round1": ("tab:red", ":", ".", "MMS, CCCP round 1"),
             "cl-svm": ("tab:blue", "-", "s", "CL-SVM")}
    for k, (pc, pa) in enumerate(levels):
        ax = axes[k // cols][k % cols]
        for m, (color, ls, mk, lab) in style.items():
            pts = [(L, summary[(dataset, pc, pa, L, m)]) for L in Ls if (dataset, pc, pa, L, m) in summary]
            if pts:
                ax.errorbar([q[0] for q in pts], [q[1][0] for q in pts], yerr=[q[1][1] for q in pts], color=color,
                            ls=ls, marker=mk, ms=3, lw=1.2, capsize=2, label=lab)
        for m, color, lab in (("1va-svm", "tab:gray", "1vA-SVM"), ("mc-svm", "k", "MC-SVM")):
            if (dataset, m) in summary and summary[(dataset, m)][0] == summary[(dataset, m)][0]:
                ax.axhline(summary[(dataset, m)][0], color=color, ls="--", lw=1, label=lab)
        ax.set_title(f"{dataset}: P_c={pc:g}, P_a={pa:g}", fontsize=8)
        ax.set_xlabel("L (candidate labeling vectors)")
        ax.grid(alpha=0.3)
    for k in range(n, rows * cols):
        axes[k // cols][k % cols].axis("off")
    axes[0][0].set_ylabel("test accuracy")
    axes[0][0].legend(fontsize=6, loc="lower left")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_sudoku_scores(unary, pairwise, path, title):
    """Figure 2(c)(d) style: the learned unary scores (input symbol x label) and the shared
    pairwise table (label x label)."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(8.4, 3.6))
    for ax, M, ttl, ylab in ((axes[0], unary, "unary score (input symbol, label)", "input symbol (0 = empty)"),
                             (axes[1], pairwise, "pairwise score (label, label)", "label")):
        im = ax.imshow(M, cmap="RdBu_r", vmin=-abs(M).max(), vmax=abs(M).max())
        ax.set_title(ttl, fontsize=8)
        ax.set_xticks(range(M.shape[1]))
        ax.set_xticklabels(range(1, M.shape[1] + 1), fontsize=7)
        ax.set_yticks(range(M.shape[0]))
        ax.set_yticklabels(range(M.shape[0]) if M.shape[0] != M.shape[1] else range(1, M.shape[0] + 1), fontsize=7)
        ax.set_xlabel("label (digit)")
        ax.set_ylabel(ylab)
        fig.colorbar(im, ax=ax, fraction=0.046)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_m3n_hmc(summary, ms, rates, methods, labels, lines, path):
    """Figure 1 style: test error (top) and training partial error (bottom) against the
    number of training sequences, one column per learner, one curve per missing rate, with
    the Bayes rules of the Hamming loss (solid red) and the 0/1 loss (dashed red)."""
    import numpy as np

    plt = _plt()
    fig, axes = plt.subplots(2, len(methods), figsize=(4.2 * len(methods), 6.0), squeeze=False, sharex=True)
    colors = plt.cm.viridis(np.linspace(0, 0.85, max(len(rates), 1)))
    for j, method in enumerate(methods):
        for k, (key, ylab) in enumerate((("test_error", "test error (Hamming)"),
                                         ("train_partial_error", "training partial error"))):
            ax = axes[k][j]
            for rate, color in zip(rates, colors):
                pts = [(m, [q[key] for q in summary[(method, rate, m)]]) for m in ms if (method, rate, m) in summary]
                if pts:
                    ax.errorbar([q[0] for q in pts], [np.mean(q[1]) for q in pts], yerr=[np.std(q[1]) for q in pts],
                                color=color, marker="o", ms=3, lw=1.2, capsize=2, label=f"missing {rate:g}")
            if k == 0 and lines:
                ax.axhline(lines["hamming"][0], color="tab:red", lw=1.2, label="Bayes, Hamming loss")
                ax.axhline(lines["zero_one"][0], color="tab:red", ls="--", lw=1.2, label="Bayes, 0/1 loss")
            ax.set_title(f"{labels[method]}: {ylab}", fontsize=9)
            ax.grid(alpha=0.3)
            if k == 1:
                ax.set_xlabel("training sequences m")
            if j == 0:
                ax.set_ylabel(ylab)
    axes[0][0].legend(fontsize=6)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
