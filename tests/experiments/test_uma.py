"""Small slices of the UMA reproductions' code path."""

import numpy as np

from weaklabel.experiments import uma


def test_confusion_rate():
    classes = np.arange(3)
    assert uma.confusion_rate([0, 1, 2], [0, 1, 2], classes) == 0.0
    # every class fully confused: three off-diagonal ones -> sqrt(3)/sqrt(3)
    assert np.isclose(uma.confusion_rate([0, 1, 2], [1, 2, 0], classes), 1.0)


def test_toy_cell_uma_beats_perceptron_under_noise():
    base = {"figure": "1a", "i": 5, "max_iter": 400}
    u = [uma.toy_cell(dict(base, run=r, method="uma")) for r in range(3)]
    p = [uma.toy_cell(dict(base, run=r, method="perceptron")) for r in range(3)]
    assert np.mean([r["noise_rate"] for r in u]) > 0.3
    assert np.mean([r["confusion_rate"] for r in u]) < np.mean([r["confusion_rate"] for r in p])
    assert np.mean([r["error"] for r in u]) < 0.2


def test_toy_data_has_margin_and_sizes():
    Xtr, ytr, Xte, yte, M = uma.toy_data(0)
    assert Xtr.shape == (1000, 2) and Xte.shape == (10000, 2)
    assert np.allclose(np.linalg.norm(Xtr, axis=1), 1.0)
    assert np.allclose(M.sum(axis=0), 1.0)


def test_quick_toy_returns_figure1_numbers(tmp_path):
    summary = uma.run_toy(tmp_path, quick=True, repeats=1, progress=False)
    fig_a = summary.table("figure1a")
    assert fig_a.column("i") == [2, 6, 10, 14, 18]
    levels = fig_a.column("noise level ||C - diag C||_F")
    assert levels == sorted(levels)                                # the family's noise grows with i
    low = fig_a.where(i=2)[0]
    # at low noise UMA's confusion rate is far below the Perceptron's (Figure 1a's message)
    assert low["UMA confusion rate"].mean < low["Perceptron confusion rate"].mean - 0.1
    assert np.allclose(summary.table("figure1b").column("rho"), [0.8, 0.4, 0.0, -0.4, -0.8])
    assert "Figure 1a" in summary.report.read_text()
    assert (tmp_path / "uma_toy.png").stat().st_size > 10_000


def test_real_cell_uma_helps_under_class_conditional_noise():
    """optdigits, kernel-PCA features, one run: UMA well below the Perceptron on the same noisy labels."""
    cfg = {"dataset": "optdigits", "run": 0, "noise": "b", "max_iter": 150, "conf_fraction": 0.05,
           "methods": ["uma", "f_y"]}
    r = uma.real_cell(cfg)
    assert r["noise_rate"] > 0.1
    assert r["uma"] < r["f_y"] - 0.03
    assert r["uma"] < 0.15


def test_reuters_row_and_f_conf_on_s_conf_alone(monkeypatch):
    """issue 17: Reuters (R8) in the real-data table; f_conf trains on S_conf alone, as in the paper."""
    sizes = []
    real = uma._perceptron
    monkeypatch.setattr(uma, "_perceptron", lambda X, y, c, s: sizes.append(X.shape[0]) or real(X, y, c, s))
    cfg = {"dataset": "reuters", "run": 0, "noise": "b", "max_iter": 300, "conf_fraction": 0.05,
           "methods": ["uma", "f_y", "f_conf", "f_full"]}
    r = uma.real_cell(cfg)
    n = 5485
    assert sizes == [n, round(0.05 * n), n]                  # f_y, f_conf (S_conf only), f_full
    assert r["f_full"] < 0.1                                  # R8 is nearly linearly separable
    assert r["noise_rate"] > 0.05 and r["uma"] < r["f_y"]
    assert uma.PAPER["reuters"]["uma"] == 0.21 and "sector9" not in uma.PAPER
