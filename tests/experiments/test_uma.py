"""Small slices of the UMA reproductions' code path."""

import numpy as np
import pytest

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


@pytest.mark.slow
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


@pytest.mark.slow
def test_real_cell_uma_helps_under_class_conditional_noise():
    """optdigits, kernel-PCA features, one run: UMA well below the Perceptron on the same noisy labels."""
    cfg = {"dataset": "optdigits", "run": 0, "noise": "b", "max_iter": 150, "conf_fraction": 0.05,
           "methods": ["uma", "f_y"]}
    r = uma.real_cell(cfg)
    assert r["noise_rate"] > 0.1
    assert r["uma"] < r["f_y"] - 0.03
    assert r["uma"] < 0.15


@pytest.mark.slow
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


@pytest.fixture
def digits_as_real(monkeypatch):
    """uma-real's protocol on scikit-learn's digits (unit-norm rows): the same code path,
    a problem small enough for the suite."""
    from sklearn.datasets import load_digits
    from sklearn.preprocessing import normalize

    X, y = load_digits(return_X_y=True)
    data = (normalize(X[:1300]), y[:1300], normalize(X[1300:]), y[1300:])
    monkeypatch.setattr(uma, "real_features", lambda name, kernel=True: data if kernel else
                        (normalize(np.sqrt(X[:1300])), y[:1300], normalize(np.sqrt(X[1300:])), y[1300:]))
    monkeypatch.setitem(uma.REAL_DATASETS, "digits", (10, None, "test"))
    monkeypatch.setattr(uma, "ALPHAS", (1e-3, 1e-4))


@pytest.mark.slow
def test_corrected_cell_beats_noisy_lr_under_class_conditional_noise(digits_as_real):
    cfg = {"dataset": "digits", "run": 0, "noise": "b", "max_iter": 150, "conf_fraction": 0.05,
           "lbfgs_iter": 300, "methods": ["forward_sconf", "backward_sconf", "forward_anchor", "lr_full"]}
    r = uma.corrected_cell(cfg)
    assert r["alpha"] in (1e-3, 1e-4)
    assert r["forward_sconf"] < r["lr_noisy"] - 0.02          # the correction helps
    assert r["forward_sconf"] < r["lr_full"] + 0.05           # and comes near the clean model
    assert r["anchor_error"] < 0.5 and r["forward_anchor"] is not None
    assert "cleanlab_lr" not in r and "forward_weighted" not in r


def test_corrected_tables_pair_runs_with_the_eval_stage():
    plan = {"datasets": ["optdigits"]}
    eval_rows = [({"dataset": "optdigits", "noise": "b", "run": r}, {"cleanlab": 0.05, "f_full": 0.03, "uma": 0.07})
                 for r in range(2)]
    cor = [({"dataset": "optdigits", "noise": "b", "run": r},
            {"alpha": 1e-4, "lr_noisy": 0.08, "cleanlab_lr": 0.06, "forward_sconf": 0.035 + 0.01 * r,
             "backward_sconf": 0.07, "forward_anchor": 0.045, "backward_anchor": 0.06, "forward_weighted": 0.05,
             "lr_full": 0.033}) for r in range(2)]
    tables = uma._corrected_tables(plan, eval_rows, cor)
    assert [t.name for t in tables] == ["corrected_a", "corrected_b"]
    assert tables[0].rows == []
    row = tables[1].rows[0]
    h = tables[1].columns
    assert row[h.index("forward, C from S_conf")].mean == pytest.approx(0.04)
    assert row[h.index("cleanlab(SGD)")].mean == pytest.approx(0.05)
    assert row[h.index("UMA")].mean == pytest.approx(0.07)
    # no "best of" columns: the minimum of six columns against the minimum of two is not a comparison
    assert not any("best" in c for c in h)
    assert "weight 1" in tables[1].note and "not a validated one" in tables[1].note


@pytest.mark.slow
def test_trusted_cv_cell_chooses_a_weight_by_cv_on_the_trusted_rows(digits_as_real):
    cfg = {"dataset": "digits", "run": 0, "noise": "a", "max_iter": 150, "conf_fraction": 0.05,
           "lbfgs_iter": 300, "weights": [1.0, "balanced", 10.0]}
    r = uma.trusted_cv_cell(cfg)
    assert len(r["cv_accuracy"]) == 3 and all(0 < a <= 1 for a in r["cv_accuracy"])
    best = int(np.argmax(r["cv_accuracy"]))
    assert r["trusted_weight"] == str(cfg["weights"][best])
    cor = uma.corrected_cell({**cfg, "methods": ["forward_sconf"]})
    # the weight chosen scores at least weight 1 on the held-out trusted rows, and the
    # model it picks is no worse on test than weight 1 (same alpha, same rows)
    assert r["cv_accuracy"][best] >= r["cv_accuracy"][0]
    assert r["alpha"] == cor["alpha"]
    assert r["forward_cv"] <= cor["forward_sconf"] + 0.01


def test_corrected_tables_take_the_trusted_cv_stage():
    plan = {"datasets": ["optdigits"]}
    eval_rows = [({"dataset": "optdigits", "noise": "a", "run": r}, {"cleanlab": 0.05, "f_full": 0.03, "uma": 0.07})
                 for r in range(2)]
    cor = [({"dataset": "optdigits", "noise": "a", "run": r},
            {"alpha": 1e-4, "lr_noisy": 0.08, "cleanlab_lr": 0.06, "forward_sconf": 0.06, "backward_sconf": 0.07,
             "forward_anchor": 0.065, "backward_anchor": 0.06, "forward_weighted": 0.05, "lr_full": 0.033})
           for r in range(2)]
    cv = [({"dataset": "optdigits", "noise": "a", "run": r},
           {"alpha": 1e-4, "forward_cv": 0.02 + 0.01 * r, "trusted_weight": ["10.0", "balanced"][r]})
          for r in range(2)]
    table = uma._corrected_tables(plan, eval_rows, cor, cv)[0]
    row, h = table.rows[0], table.columns
    assert row[h.index(uma.TRUSTED_CV_LABEL)].mean == pytest.approx(0.025)
    assert row[h.index("weights chosen (weight:runs)")] == "balanced:1/10.0:1"
    # a run missing from the CV stage leaves the column empty rather than averaging fewer runs
    row = uma._corrected_tables(plan, eval_rows, cor, cv[:1])[0].rows[0]
    assert row[h.index(uma.TRUSTED_CV_LABEL)] is None


@pytest.mark.slow
def test_fair_cell_gives_the_peers_the_trusted_weights_and_selection(digits_as_real):
    """The peers' columns: the same alpha, rows, weight grid and CV rule as the forward CV
    column; at weight 1 alone, "LR, CV weight" is plain LR on the noisy labels."""
    cfg = {"dataset": "digits", "run": 0, "noise": "a", "max_iter": 150, "conf_fraction": 0.05,
           "lbfgs_iter": 300, "weights": [1.0, "balanced", 10.0]}
    r = uma.fair_cell(cfg)
    cv = uma.trusted_cv_cell(cfg)
    assert r["alpha"] == cv["alpha"]
    for key in ("lr_cv", "cleanlab_lr_cv"):
        scores = r[f"{key}_scores"]
        assert len(scores) == 3 and all(0 < a <= 1 for a in scores)
        assert r[f"{key}_weight"] == str(cfg["weights"][int(np.argmax(scores))])
        assert 0 <= r[key] < 0.5
    assert 0 < r["cleanlab_dropped"] < 1300 and r["cleanlab_dropped_trusted"] <= r["cleanlab_dropped"]
    cor = uma.corrected_cell({**cfg, "methods": []})
    only_one = uma.fair_cell({**cfg, "weights": [1.0]})
    assert only_one["lr_cv"] == pytest.approx(cor["lr_noisy"], abs=0.005)
    # under the paper's noise (labels = g's predictions) trusting the clean rows is what helps
    assert r["lr_cv"] <= only_one["lr_cv"] + 0.01


def test_trusted_sample_weight_matches_corrected_logistics_balanced_weight():
    from weaklabel.noisy._corrected import _weigh_trusted

    mask = np.array([True, False, False, True, False, False, False])
    assert np.allclose(uma._trusted_sample_weight(mask, "balanced", 99.0), _weigh_trusted(None, mask, "balanced", 7))
    assert np.allclose(uma._trusted_sample_weight(mask, 10.0, 2.5), np.where(mask, 25.0, 1.0))
    assert np.allclose(uma._trusted_sample_weight(mask, 1.0, 2.5), 1.0)


def test_fair_tables_pair_runs_and_count_wins():
    plan = {"datasets": ["optdigits"], "cv_datasets": ["optdigits"]}
    cor = [({"dataset": "optdigits", "noise": "b", "run": r},
            {"alpha": 1e-4, "lr_noisy": 0.08, "cleanlab_lr": 0.06, "forward_sconf": 0.05}) for r in range(3)]
    cv = [({"dataset": "optdigits", "noise": "b", "run": r}, {"forward_cv": 0.04, "trusted_weight": "10.0"})
          for r in range(3)]
    fair = [({"dataset": "optdigits", "noise": "b", "run": r},
             {"lr_cv": 0.05, "cleanlab_lr_cv": [0.045, 0.03, 0.05][r], "cleanlab_dropped": 10}) for r in range(3)]
    t = uma._fair_tables(plan, cor, cv, fair)[1]
    row, h = t.rows[0], t.columns
    assert row[h.index("runs")] == 3
    assert row[h.index("forward CV - cleanlab(LR) CV")].mean == pytest.approx(0.04 - np.mean([0.045, 0.03, 0.05]))
    assert row[h.index("runs forward CV wins")] == "2 of 3"
    assert row[h.index("LR, weight 1")].mean == pytest.approx(0.08)
    # a run missing from one stage is left out of every column, so the columns stay paired
    t = uma._fair_tables(plan, cor, cv[:2], fair)[1]
    assert t.rows[0][h.index("runs")] == 2


def test_raw_s3vm_cell_uses_the_eval_stages_labelled_rows(digits_as_real):
    cfg = {"dataset": "digits", "run": 0, "noise": "a", "max_iter": 150, "conf_fraction": 0.05}
    r = uma.raw_s3vm_cell(cfg)
    assert r["n_features"] == 64 and 0 <= r["self_training_raw"] < 0.5
    full = uma.raw_s3vm_cell({**cfg, "features": "full-kernel"})
    assert set(full) == {"self_training_full", "n_features"} and 0 <= full["self_training_full"] < 0.5


def test_fig3_m_caps_seed_rows_at_half_a_class():
    """Fig. 3's m = 70 on a class of 41 rows takes 20 of them, so S_conf can still hold some;
    without it every class gives the dataset's m."""
    y = np.r_[np.zeros(41, int), np.ones(300, int)]
    assert uma._seed_counts(y, [0, 1], 70, 20) == {0: 20, 1: 70}
    assert uma._seed_counts(y, [0, 1], None, 20) == {0: 20, 1: 20}


@pytest.mark.slow
def test_alpha_beyond_the_grid_continues_the_selection_path(digits_as_real):
    """The alpha_wide cell reproduces the corrected stage's choice on the grid (the same
    warm-started path), then scores the decades beyond; the table counts a wider alpha only
    when strictly better."""
    cfg = {"dataset": "digits", "run": 0, "noise": "b", "max_iter": 150, "conf_fraction": 0.05, "lbfgs_iter": 300}
    cor = uma.corrected_cell({**cfg, "methods": ["forward_sconf"]})
    r = uma.alpha_wide_cell({**cfg, "beyond": [1e-5, 1e-6]})
    assert r["alpha_grid"] == cor["alpha"]
    assert set(r["scores"]) == {"0.001", "0.0001", "1e-05", "1e-06"}
    assert r["scores"][f"{r['alpha_wide']:g}"] == max(r["scores"].values())
    plan = {"datasets": ["digits"]}
    rows_c = [({"dataset": "digits", "noise": "b", "run": 0}, {"alpha": 1e-4})]
    tie = {"scores": {"0.001": 0.5, "0.0001": 0.9, "1e-05": 0.9}, "alpha_grid": 1e-4, "alpha_wide": 1e-4}
    better = {"scores": {"0.001": 0.5, "0.0001": 0.9, "1e-05": 0.95}, "alpha_grid": 1e-4, "alpha_wide": 1e-5}
    t = uma._alpha_wide_table(plan, rows_c, [({"dataset": "digits", "noise": "b", "run": 0}, tie)])
    assert t.rows[0][4] == 0                                 # a tie keeps the grid's choice
    t = uma._alpha_wide_table(plan, rows_c, [({"dataset": "digits", "noise": "b", "run": 0}, better)])
    assert t.rows[0][4] == 1 and t.rows[0][5] == "1e-05: 1" and t.rows[0][6] == pytest.approx(0.05)


@pytest.mark.slow
def test_side_info_cell_gives_cleanlab_the_noise_matrix_and_denies_it_to_forward(digits_as_real, monkeypatch):
    """cleanlab's label issues come from ``noise_matrix=C`` (S_conf's C); the forward column's C
    is the anchor estimate, which reads no clean label."""
    from cleanlab.classification import CleanLearning

    seen = []
    real = CleanLearning.find_label_issues

    def spy(self, X=None, labels=None, **kw):
        seen.append(kw.get("noise_matrix"))
        return real(self, X, labels, **kw)

    monkeypatch.setattr(CleanLearning, "find_label_issues", spy)
    cfg = {"dataset": "digits", "run": 0, "noise": "b", "max_iter": 150, "conf_fraction": 0.05,
           "lbfgs_iter": 300, "weights": [1.0, "balanced"]}
    r = uma.side_info_cell(cfg)
    C = uma._prepare_run(cfg)["C"]
    assert seen and all(np.array_equal(m, C) for m in seen)          # both cleanlab columns got S_conf's C
    assert 0 < r["anchor_error"] < 1                                 # the anchor C is an estimate, not C
    for key in ("forward_cv_anchor", "cleanlab_lr_cv_given", "cleanlab_sgd_given"):
        assert 0 <= r[key] < 0.5
    assert r["cleanlab_lr_cv_given_weight"] in ("1.0", "balanced") and len(r["forward_cv_anchor_scores"]) == 2
    # the anchor C is the one CorrectedLogistic(confusion="anchors") estimates from the labels as given
    noisy = uma.CorrectedLogistic(classes=np.arange(10), alpha=r["alpha"], max_iter=300, confusion="anchors")
    prep = uma._prepare_run(cfg)
    assert np.abs(noisy.fit(prep["Xtr"], prep["y_noisy"]).confusion_ - C).sum(axis=0).mean() / 2 == \
        pytest.approx(r["anchor_error"])


def test_side_info_tables_pair_the_given_and_denied_columns():
    plan = {"datasets": ["optdigits"], "cv_datasets": ["optdigits"]}
    key = lambda r: {"dataset": "optdigits", "noise": "b", "run": r}   # noqa: E731
    ev = [(key(r), {"uma": 0.07, "cleanlab": 0.05}) for r in range(3)]
    cv = [(key(r), {"forward_cv": 0.04}) for r in range(3)]
    fair = [(key(r), {"cleanlab_lr_cv": 0.046}) for r in range(3)]
    side = [(key(r), {"forward_cv_anchor": 0.043, "cleanlab_lr_cv_given": 0.048, "cleanlab_sgd_given": 0.06,
                      "anchor_error": 0.1}) for r in range(2)]
    t = uma._side_info_tables(plan, ev, cv, fair, side)[1]
    row, h = t.rows[0], t.columns
    assert row[h.index("runs")] == 2                                  # only runs every stage holds
    assert row[h.index("cleanlab(LR) given S_conf's C, CV weight")].mean == pytest.approx(0.048)
    assert row[h.index("forward, anchor C, CV weight")].mean == pytest.approx(0.043)
    assert row[h.index("anchor C: mean TV from S_conf's C")] == pytest.approx(0.1)
