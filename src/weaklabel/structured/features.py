"""Node features for Markov networks over images (the visual Sudoku of Section 4.3)."""

from __future__ import annotations

import numpy as np

__all__ = ["rbf_node_features"]


def _unit_rows(A):
    A = A.reshape(A.shape[0], -1).astype(np.float64)
    nrm = np.linalg.norm(A, axis=1, keepdims=True)
    return A / np.where(nrm > 0, nrm, 1.0)


def rbf_node_features(images, centres, gamma=2.0, relative_to_blank=True, chunk=20000):
    """RBF features ``k(x, mu_i) = exp(-gamma ||x - mu_i||^2)`` of node images to centre images.

    Images and centres are first scaled to unit Euclidean norm (an all-black image stays
    zero), which gives the paper's width ``gamma = 2`` its meaning: distances lie in
    ``[0, 2]`` for non-negative images.  With ``relative_to_blank`` the features of the
    all-black image, ``exp(-gamma)`` for every centre, are subtracted, so a blank cell
    scores 0 for every label and the unary weights need not also encode a blank-cell
    bias (the scores of all other cells shift by a per-label constant).

    Parameters
    ----------
    images : array (..., *image_shape)
        Node images, for example (n_puzzles, 81, 28, 28).
    centres : array (n_centres, *image_shape)
        The centre images ``mu_i`` (the paper draws 2,000 MNIST digits).
    gamma : float, default=2.0
        Kernel width, the paper's 2.
    relative_to_blank : bool, default=True
        Subtract the features of the all-black image.
    chunk : int, default=20000
        Images per block (bounds the memory of the distance computation).

    Returns
    -------
    ndarray (..., n_centres) of float64, the ``X`` of
    :class:`~weaklabel.structured.LPMILM3N` for real node features.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.eye(3).reshape(3, 3, 1)
    >>> F = rbf_node_features(np.array([[[[2.], [0.], [0.]], [[0.], [0.], [0.]]]]), C)
    >>> F.shape, np.round(F[0, 0], 3).tolist(), F[0, 1].tolist()
    ((1, 2, 3), [0.865, -0.117, -0.117], [0.0, 0.0, 0.0])
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
    return out.reshape(lead + (C.shape[0],))
