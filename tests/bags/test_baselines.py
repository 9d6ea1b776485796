"""The CL-SVM baseline (weaklabel.bags.CandidateLabelSVM): one-vs-rest on candidate labels."""

import numpy as np
import pytest
from sklearn.svm import LinearSVC

from weaklabel.bags import CandidateLabelSVM
from weaklabel.simulate import bags as simulate_bags


def test_cl_svm_is_one_vs_rest_on_candidate_labels():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = (X[:, 0] > 0).astype(int) + 2 * (X[:, 1] > 0)
    B = simulate_bags(y, 3, 3, 0.0, 0.0, random_state=0)
    est = CandidateLabelSVM(C=0.5, random_state=0).fit(X, B)
    s = est.row_scale_                          # "auto": LIBLINEAR on X / s, C and the intercept rescaled
    assert s ** 2 == pytest.approx(np.mean(np.sum(X * X, axis=1)))
    mask = B.instance_candidates().mask
    for k in range(4):
        ref = LinearSVC(C=0.5 / s ** 2, loss="hinge", dual=True, max_iter=1000, tol=1e-4, intercept_scaling=s,
                        random_state=0).fit(X, mask[:, k].astype(int))
        np.testing.assert_allclose(est.coef_[k], ref.coef_[0], rtol=1e-6, atol=1e-8)
        assert est.intercept_[k] == pytest.approx(ref.intercept_[0], rel=1e-6, abs=1e-8)
    with pytest.raises(ValueError, match="The 'loss' parameter of CandidateLabelSVM must be a str among"):
        CandidateLabelSVM(loss="log").fit(X, B)


def test_cl_svm_persists(tmp_path):
    import weaklabel

    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    est = CandidateLabelSVM(random_state=0).fit(X, simulate_bags(y, 2, 2, random_state=0))
    est.save(tmp_path / "cl.npz")
    back = weaklabel.load(tmp_path / "cl.npz")
    np.testing.assert_array_equal(back.coef_, est.coef_)
    assert back.n_iter_ == est.n_iter_
