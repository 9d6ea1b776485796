"""Real node features (structured/features.py): RBF similarities to centres, zero for a blank
image, and their Nystroem whitening against a numpy reference."""

import numpy as np
import pytest

from weaklabel.structured import (
    rbf_node_features,
)


def test_rbf_node_features_blank_is_zero_and_width_matters():
    rng = np.random.default_rng(0)
    C = rng.random((7, 4, 4))
    imgs = rng.random((2, 3, 4, 4))
    imgs[0, 1] = 0
    F = rbf_node_features(imgs, C, whiten=False)
    assert F.shape == (2, 3, 7) and np.all(F[0, 1] == 0)
    assert np.allclose(rbf_node_features(imgs, C)[0, 1], 0)   # whitened: the blank cell stays 0
    raw = rbf_node_features(imgs, C, relative_to_blank=False, whiten=False)
    np.testing.assert_allclose(raw[0, 1], np.exp(-2.0))      # unit-norm centres: distance 1 to black
    # scale invariance (unit norm) and the exact kernel
    np.testing.assert_allclose(rbf_node_features(3 * imgs, C, relative_to_blank=False, whiten=False), raw)
    a = imgs[1, 2].ravel() / np.linalg.norm(imgs[1, 2])
    c = C[4].ravel() / np.linalg.norm(C[4])
    assert raw[1, 2, 4] == pytest.approx(np.exp(-2.0 * np.sum((a - c) ** 2)))
    with pytest.raises(ValueError, match="centres' image shape"):
        rbf_node_features(imgs[..., :3], C)
    with pytest.raises(ValueError, match="gamma must be"):
        rbf_node_features(imgs, C, gamma=0)
    with pytest.raises(ValueError, match="rcond must be"):
        rbf_node_features(imgs, C, rcond=1.5)


def _whitened_reference(images, centres, gamma, rcond):
    """Plain numpy, element by element: unit-norm images, the kernel to each centre minus
    the blank image's, then A = S^{-1/2} U^T of the centres' Gram matrix (issue 17)."""
    unit = lambda v: v / np.linalg.norm(v) if np.linalg.norm(v) > 0 else v
    C = [unit(c.ravel()) for c in centres]
    n = len(C)
    K = np.array([[np.exp(-gamma * np.sum((C[i] - C[j]) ** 2)) for j in range(n)] for i in range(n)])
    S, U = np.linalg.eigh(K)
    A = np.array([U[:, j] / np.sqrt(S[j]) for j in range(n) if S[j] > rcond * S.max()])
    out = []
    for img in images.reshape(-1, *centres.shape[1:]):
        x = unit(img.ravel())
        k = np.array([np.exp(-gamma * np.sum((x - c) ** 2)) - np.exp(-gamma * np.sum(c ** 2)) for c in C])
        out.append(A @ k)
    return np.array(out).reshape(images.shape[:-2] + (A.shape[0],))


@pytest.mark.parametrize("seed", range(3))
def test_rbf_node_features_whitening_equals_the_numpy_reference(seed):
    rng = np.random.default_rng(seed)
    C = rng.random((9, 5, 5))
    imgs = rng.random((2, 4, 5, 5))
    imgs[1, 3] = 0
    W = rbf_node_features(imgs, C)
    np.testing.assert_allclose(W, _whitened_reference(imgs, C, 2.0, 1e-10), rtol=1e-7, atol=1e-8)
    # the whitened features' inner products reproduce the kernel on the centres (Nystroem)
    Wc = rbf_node_features(C, C, relative_to_blank=False)
    unit = C.reshape(9, -1) / np.linalg.norm(C.reshape(9, -1), axis=1, keepdims=True)
    K = np.exp(-2.0 * ((unit[:, None] - unit[None]) ** 2).sum(-1))
    np.testing.assert_allclose(Wc @ Wc.T, K, atol=1e-8)
    # a duplicated centre makes the Gram matrix singular: that direction is dropped
    C2 = np.concatenate([C, C[:1]])
    assert rbf_node_features(imgs, C2).shape[-1] == 9
