"""Node features for Markov networks over images (the visual Sudoku of Section 4.3)."""

from __future__ import annotations

import numpy as np

__all__ = ["rbf_node_features", "nystroem_whitening"]


def _unit_rows(A):
    A = A.reshape(A.shape[0], -1).astype(np.float64)
    nrm = np.linalg.norm(A, axis=1, keepdims=True)
    return A / np.where(nrm > 0, nrm, 1.0)


def rbf_node_features(images, centres, gamma=2.0, relative_to_blank=True, whiten=True, rcond=1e-10, chunk=20000):
    """RBF features ``k(x, mu_i) = exp(-gamma ||x - mu_i||^2)`` of node images to centre
    images, whitened by the centres' Gram matrix (a Nystroem map).

    Images and centres are first scaled to unit Euclidean norm (an all-black image stays
    zero), which gives the paper's width ``gamma = 2`` its meaning: distances lie in
    ``[0, 2]`` for non-negative images.  With ``relative_to_blank`` the features of the
    all-black image, ``exp(-gamma)`` for every centre, are subtracted, so a blank cell
    scores 0 for every label and the unary weights need not also encode a blank-cell
    bias (the scores of all other cells shift by a per-label constant).

    With ``whiten`` (the default, as in the authors' code), the kernel vector is mapped by
    ``A = S^{-1/2} U^T`` from the eigendecomposition ``K = U S U^T`` of the centres' Gram
    matrix ``K_ij = k(mu_i, mu_j)``: the Nystroem features, whose inner products
    approximate the kernel itself instead of ``sum_i k(x, mu_i) k(x', mu_i)``.  Directions
    whose eigenvalue is below ``rcond`` times the largest are dropped, so there may be
    fewer features than centres.  The visual-sudoku reproduction page compares whitened
    and raw features.

    Parameters
    ----------
    images : array of shape (..., height, width)
        Node images, for example (n_puzzles, 81, 28, 28).
    centres : array of shape (n_centres, height, width)
        The centre images ``mu_i`` (the paper draws 2,000 MNIST digits).
    gamma : float, default=2.0
        Kernel width, the paper's 2.
    relative_to_blank : bool, default=True
        Subtract the features of the all-black image.
    whiten : bool, default=True
        Map the kernel vectors by ``S^{-1/2} U^T`` (Nystroem whitening).
    rcond : float, default=1e-10
        With ``whiten``, eigenvalues below ``rcond * max eigenvalue`` are dropped.
    chunk : int, default=20000
        Images per block (bounds the memory of the distance computation).

    Returns
    -------
    ndarray of float64 of shape (..., n_features)
        The ``X`` of :class:`~weaklabel.structured.LPMILM3N` for real node features;
        ``n_features`` is ``n_centres``, or the number of eigenvalues kept when whitening.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.eye(3).reshape(3, 3, 1)
    >>> images = np.array([[[[2.], [0.], [0.]], [[0.], [0.], [0.]]]])
    >>> F = rbf_node_features(images, C, whiten=False)
    >>> F.shape, np.round(F[0, 0], 3).tolist(), F[0, 1].tolist()
    ((1, 2, 3), [0.865, -0.117, -0.117], [0.0, 0.0, 0.0])
    >>> W = rbf_node_features(images, C)
    >>> W.shape, bool(np.allclose(W[0, 1], 0))
    ((1, 2, 3), True)
    """
    images = np.asarray(images)
    centres = np.asarray(centres)
    if centres.ndim < 2:
        raise ValueError(f"centres must be an array (n_centres, *image_shape); got shape {centres.shape}.")
    shape = centres.shape[1:]
    k = len(shape)
    if images.ndim <= k or images.shape[images.ndim - k:] != shape:
        raise ValueError(f"images must end with the centres' image shape {shape}; got shape {images.shape}.")
    if not gamma > 0:
        raise ValueError(f"gamma must be > 0; got {gamma!r}.")
    if not 0 <= rcond < 1:
        raise ValueError(f"rcond must be in [0, 1); got {rcond!r}.")
    lead = images.shape[:images.ndim - k]
    flat = images.reshape((-1,) + shape)
    C = _unit_rows(centres)
    cc = np.sum(C * C, axis=1)
    out = np.empty((flat.shape[0], C.shape[0]))
    for a in range(0, flat.shape[0], chunk):
        A = _unit_rows(flat[a:a + chunk])
        d2 = np.sum(A * A, axis=1)[:, None] + cc[None, :] - 2.0 * (A @ C.T)
        out[a:a + chunk] = np.exp(-gamma * np.maximum(d2, 0.0))
    if relative_to_blank:
        out -= np.exp(-gamma * cc)[None, :]
    if whiten:
        out = out @ nystroem_whitening(C, gamma, rcond).T
    return out.reshape(lead + (out.shape[1],))


def nystroem_whitening(centres, gamma, rcond=1e-10):
    """Return the Nystroem map ``A = S^{-1/2} U^T`` of the centres' RBF Gram matrix ``K = U S U^T``.

    ``A k(x, C)`` are the Nystroem features of ``x``, for the kernel
    ``exp(-gamma ||a - b||^2)``.

    Parameters
    ----------
    centres : ndarray of shape (n_centres, n_pixels)
        The centres, already unit-norm and flattened.
    gamma : float
        The kernel width.
    rcond : float, default=1e-10
        Eigenvalues below ``rcond`` times the largest are dropped (their rows of ``A`` are
        left out).

    Returns
    -------
    ndarray of shape (n_kept, n_centres)
        The map ``A``.
    """
    C = np.asarray(centres, dtype=np.float64)
    cc = np.sum(C * C, axis=1)
    K = np.exp(-gamma * np.maximum(cc[:, None] + cc[None, :] - 2.0 * (C @ C.T), 0.0))
    S, U = np.linalg.eigh(K)
    keep = S > rcond * S[-1]
    return (U[:, keep] / np.sqrt(S[keep])).T
