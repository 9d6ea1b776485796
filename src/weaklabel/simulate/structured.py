"""Structured-output simulators: the hidden Markov chain of Franc & Yermakov (Section
4.1), missing-at-random annotation (9), and Sudoku puzzles from a second source."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .._validation import check_int_at_least

__all__ = ["hmc_model", "hidden_markov_chain", "markov_chains_of_lengths", "hmc_bayes_predict", "missing_labels",
           "node_candidate_sets", "sudoku_puzzles", "visual_sudoku"]


def hmc_model(n_states=30, stay=0.7, match=0.7):
    """Return the HMC of Section 4.1 (Franc & Yermakov).

    Uniform start, transitions ``stay`` to stay and the rest spread evenly over the other
    states, emissions ``match`` for x = y and the rest spread evenly (0.3/29 each for 30
    states).

    The defaults, 0.7 and 0.7, are the chain of the authors' released generator (their
    manet repository, ``create_hmc_dataset.py``), on which their reported errors were
    measured.  The paper's text reads as 1/2 to stay and 1/2 to emit the state
    (``stay=0.5, match=0.5``), with 1/10 for a change of state, which does not normalise
    with 30 states (0.5 + 29/10 > 1).

    Parameters
    ----------
    n_states : int, default=30
        States, and symbols.
    stay : float, default=0.7
        Probability of keeping the state.
    match : float, default=0.7
        Probability of emitting the state's own symbol.

    Returns
    -------
    start : ndarray of shape (n_states,)
        The start distribution.
    trans : ndarray of shape (n_states, n_states)
        ``trans[a, b] = p(y_t = b | y_{t-1} = a)``.
    emit : ndarray of shape (n_states, n_states)
        ``emit[y, x] = p(x | y)``.
    """
    K = int(n_states)
    off = (1.0 - stay) / (K - 1)
    trans = np.full((K, K), off)
    np.fill_diagonal(trans, stay)
    offe = (1.0 - match) / (K - 1)
    emit = np.full((K, K), offe)
    np.fill_diagonal(emit, match)
    return np.full(K, 1.0 / K), trans, emit


def hidden_markov_chain(n_sequences, length=100, n_states=30, random_state=None, *, stay=0.7, match=0.7):
    """Draw sequences of the Section 4.1 chain.

    Parameters
    ----------
    n_sequences : int
        How many.
    length : int, default=100
        Their length.
    n_states : int, default=30
        States, and symbols.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.
    stay, match : float, default=0.7
        The chain (:func:`hmc_model`; the authors' generator's 0.7 and 0.7).

    Returns
    -------
    X : ndarray of int of shape (n_sequences, length)
        The symbols.
    Y : ndarray of int of shape (n_sequences, length)
        The states.
    """
    check_int_at_least(n_sequences, "n_sequences", 1)
    check_int_at_least(length, "length", 1)
    for name, v in (("stay", stay), ("match", match)):
        if not 0 <= v <= 1:
            raise ValueError(f"{name} must be a probability in [0, 1]; got {v!r}.")
    rng = check_random_state(random_state)
    start, trans, emit = hmc_model(n_states, stay=stay, match=match)
    K = int(n_states)
    Y = np.empty((n_sequences, length), dtype=np.int64)
    Y[:, 0] = rng.randint(0, K, size=n_sequences)
    cum = np.cumsum(trans, axis=1)
    for t in range(1, length):
        u = rng.random_sample(n_sequences)
        Y[:, t] = np.minimum((u[:, None] > cum[Y[:, t - 1]]).sum(1), K - 1)
    cum_e = np.cumsum(emit, axis=1)
    u = rng.random_sample(Y.shape)
    X = np.minimum((u[..., None] > cum_e[Y]).sum(-1), K - 1).astype(np.int64)
    return X, Y


def hmc_bayes_predict(X, rule="marginal", n_states=30, *, stay=0.7, match=0.7):
    """Predict with the Bayes rules of the Section 4.1 chain, derived from the generating model.

    Parameters
    ----------
    X : ndarray of int of shape (n_sequences, length)
        Symbols.
    rule : {"marginal", "map"}, default="marginal"
        ``"marginal"``: ``argmax_y p(y_v | x)`` at every node by forward-backward, the
        Bayes rule of the Hamming loss.  ``"map"``: ``argmax_y p(y | x)`` by Viterbi, the
        Bayes rule of the 0/1 loss.
    n_states : int, default=30
        States, and symbols.
    stay, match : float, default=0.7
        The chain (:func:`hmc_model`).

    Returns
    -------
    ndarray of int of shape (n_sequences, length)
        The labels.
    """
    X = np.asarray(X)
    if X.ndim != 2 or X.dtype.kind not in "iu":
        raise ValueError(f"X must be an int array (n_sequences, length); got dtype {X.dtype}, shape {X.shape}.")
    if rule not in ("marginal", "map"):
        raise ValueError(f"rule must be 'marginal' or 'map'; got {rule!r}.")
    start, trans, emit = hmc_model(n_states, stay=stay, match=match)
    if X.size and (X.min() < 0 or X.max() >= n_states):
        raise ValueError(f"X holds symbols outside 0..{n_states - 1}.")
    m, n = X.shape
    if rule == "map":
        ls, lT = np.log(start), np.log(trans)
        le = np.log(emit)[:, X].transpose(1, 2, 0)    # (m, n, K): log p(x_t | y_t = k)
        from ..structured.inference import viterbi

        out = np.empty((m, n), dtype=np.int64)
        for i in range(m):
            u = le[i].copy()
            u[0] += ls
            out[i] = viterbi(u, lT).labels
        return out
    e = emit[:, X].transpose(1, 2, 0)                 # scaled forward-backward in probabilities
    a = np.empty((m, n, n_states))
    b = np.ones((m, n, n_states))
    a[:, 0] = start * e[:, 0]
    a[:, 0] /= a[:, 0].sum(1, keepdims=True)
    for t in range(1, n):
        a[:, t] = (a[:, t - 1] @ trans) * e[:, t]
        a[:, t] /= a[:, t].sum(1, keepdims=True)
    for t in range(n - 2, -1, -1):
        b[:, t] = (e[:, t + 1] * b[:, t + 1]) @ trans.T
        b[:, t] /= b[:, t].sum(1, keepdims=True)
    return np.argmax(a * b, axis=2).astype(np.int64)


def markov_chains_of_lengths(lengths, n_states=30, random_state=None, *, stay=0.7, match=0.7):
    """Draw sequences of the Section 4.1 chain, each with its own length.

    Each is the prefix of a :func:`hidden_markov_chain` sequence, so itself a sample of the
    chain.

    Parameters
    ----------
    lengths : array-like of int
        The length of each sequence.
    n_states : int, default=30
        States, and symbols.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.
    stay, match : float, default=0.7
        The chain (:func:`hmc_model`).

    Returns
    -------
    X : list of ndarray of int
        ``X[i]`` holds ``lengths[i]`` symbols.
    Y : list of ndarray of int
        ``Y[i]`` holds their states.
    """
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.size == 0 or lengths.dtype.kind not in "iu" or lengths.min() < 1:
        raise ValueError(f"lengths must be a non-empty 1-D array of ints >= 1; got {lengths!r}.")
    X, Y = hidden_markov_chain(lengths.size, int(lengths.max()), n_states, random_state, stay=stay, match=match)
    return [x[:n] for x, n in zip(X, lengths)], [y[:n] for y, n in zip(Y, lengths)]


def node_candidate_sets(Y, n_states, *, n_distractors=1, missing_rate=0.0, confusion=None, random_state=None):
    """Partial annotation of structured examples by candidate sets, as a tag dictionary
    gives it: each node's set holds its true label and ``n_distractors`` other labels;
    a node is left unannotated (every label allowed) with probability ``missing_rate``.

    Distractors are drawn without replacement, uniformly, or with ``confusion`` (K, K)
    in proportion to ``confusion[y]`` (e.g. the labels a weak classifier confuses with
    ``y``; its diagonal is ignored).

    Parameters
    ----------
    Y : int array (n_examples, n_nodes) or a list of (n_i,) int arrays
        True labels ``0 .. n_states-1``.
    n_states : int
        The number of labels.
    n_distractors : int, default=1
        Wrong labels added to each annotated node's set.
    missing_rate : float in [0, 1], default=0.0
        Probability that a node is left unannotated.
    confusion : array (n_states, n_states) of non-negative weights, or None
        Distractors drawn in proportion to ``confusion[y]`` (None: uniformly).
    random_state : int, RandomState or None
        Seed of the random draws; a fixed seed reproduces a run exactly.

    Returns
    -------
    ndarray of bool of shape (n_examples, n_nodes, n_states), or a list of (n_i, n_states) arrays
        The masks in Y's form, the ``Y`` of the structured learners.

    Examples
    --------
    >>> import numpy as np
    >>> M = node_candidate_sets(np.array([[0, 2, 1]]), 4, n_distractors=1, random_state=0)
    >>> M.shape, M.sum(axis=2).tolist(), bool(M[0, np.arange(3), [0, 2, 1]].all())
    ((1, 3, 4), [[2, 2, 2]], True)
    """
    K = check_int_at_least(n_states, "n_states", 2)
    check_int_at_least(n_distractors, "n_distractors", 0)
    if n_distractors > K - 1:
        raise ValueError(f"n_distractors must be at most n_states - 1 = {K - 1}; got {n_distractors}.")
    if not 0 <= missing_rate <= 1:
        raise ValueError(f"missing_rate must be a probability in [0, 1]; got {missing_rate!r}.")
    ragged = isinstance(Y, (list, tuple))
    parts = [np.asarray(y) for y in Y] if ragged else None
    flat = np.concatenate(parts) if ragged else np.asarray(Y).ravel()
    if flat.dtype.kind not in "iu" or flat.size == 0 or flat.min() < 0 or flat.max() >= K:
        raise ValueError(f"Y must hold int labels 0..{K - 1}.")
    W = np.ones((K, K)) if confusion is None else np.array(confusion, dtype=np.float64)
    if W.shape != (K, K) or not np.all(np.isfinite(W)) or W.min() < 0:
        raise ValueError(f"confusion must be a ({K}, {K}) array of non-negative weights; got shape {W.shape}.")
    np.fill_diagonal(W, 0.0)
    W = W + 1e-12 * (1 - np.eye(K))            # every other label keeps a chance
    rng = check_random_state(random_state)
    M = np.zeros((flat.size, K), dtype=bool)
    M[np.arange(flat.size), flat] = True
    if n_distractors:
        # Gumbel-top-k: the k largest of log w + Gumbel noise are a draw without replacement
        with np.errstate(divide="ignore"):
            key = np.log(W[flat]) + rng.gumbel(size=(flat.size, K))
        key[np.arange(flat.size), flat] = -np.inf
        pick = np.argpartition(-key, n_distractors - 1, axis=1)[:, :n_distractors]
        np.put_along_axis(M, pick, True, axis=1)
    M[rng.random_sample(flat.size) < missing_rate] = True
    if ragged:
        return np.split(M, np.cumsum([p.size for p in parts])[:-1])
    return M.reshape(np.asarray(Y).shape + (K,))


def missing_labels(Y, rate, *, always=None, random_state=None):
    """Hide labels at random (MAR, (9) of Franc & Yermakov).

    Each label is dropped (set to -1) with probability ``rate``, independently; labels
    where ``always`` is True are always kept (Sudoku's given cells).

    Parameters
    ----------
    Y : ndarray of int, or a list of int arrays
        The labels.
    rate : float in [0, 1]
        Probability that a label is hidden.
    always : bool array of Y's shape (or a list of them), or None, default=None
        Labels never hidden.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    ndarray of int, or a list of them
        A new array in ``Y``'s form, -1 where a label is hidden.
    """
    Y = np.asarray(Y)
    if not 0 <= rate <= 1:
        raise ValueError(f"rate must be a probability in [0, 1]; got {rate!r}.")
    rng = check_random_state(random_state)
    out = np.array(Y, dtype=np.int64, copy=True)
    drop = rng.random_sample(Y.shape) < rate
    if always is not None:
        always = np.asarray(always, dtype=bool)
        if always.shape != Y.shape:
            raise ValueError(f"always must have Y's shape {Y.shape}; got {always.shape}.")
        drop &= ~always
    out[drop] = -1
    return out


_BASE = np.array([[(3 * (r % 3) + r // 3 + c) % 9 for c in range(9)] for r in range(9)], dtype=np.int64)


def _random_grid(rng):
    """A random valid solution: the base pattern under random digit, band, row-in-band,
    stack, column-in-stack permutations and an optional transpose.
    """
    rows = np.concatenate([3 * b + rng.permutation(3) for b in rng.permutation(3)])
    cols = np.concatenate([3 * s + rng.permutation(3) for s in rng.permutation(3)])
    g = _BASE[rows][:, cols]
    if rng.random_sample() < 0.5:
        g = g.T
    return rng.permutation(9)[g] + 1


def sudoku_puzzles(n, givens=(25, 77), random_state=None):
    """Generate Sudoku puzzles with a unique solution (independently of the Kaggle set).

    A random valid grid, then cells removed in random order while the solution stays
    unique, down to a number of givens drawn uniformly from ``givens`` (inclusive; a
    puzzle stops higher when no further cell can go).

    Parameters
    ----------
    n : int
        How many puzzles.
    givens : tuple of int, default=(25, 77)
        The range of the number of given cells.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    X : ndarray of int of shape (n, 81)
        The puzzles, 0 for a blank.
    Y : ndarray of int of shape (n, 81)
        Their solutions, digits 1..9.
    """
    from ._sudoku import count_solutions

    check_int_at_least(n, "n", 1)
    lo, hi = givens
    if not 17 <= lo <= hi <= 81:
        raise ValueError(f"givens must be a range within 17..81; got {givens}.")
    rng = check_random_state(random_state)
    X = np.empty((n, 81), dtype=np.int64)
    Y = np.empty((n, 81), dtype=np.int64)
    for k in range(n):
        sol = _random_grid(rng).ravel()
        target = int(rng.randint(lo, hi + 1))
        puz = sol.copy()
        for c in rng.permutation(81):
            if (puz > 0).sum() <= target:
                break
            keep = puz[c]
            puz[c] = 0
            if count_solutions(puz, 2) != 1:
                puz[c] = keep
        X[k], Y[k] = puz, sol
    return X, Y


def visual_sudoku(X, images, digits, random_state=None):
    """Visual Sudoku puzzles (Section 4.3): each given digit ``d`` of ``X`` is replaced by an
    image drawn at random from the ``images`` whose label in ``digits`` is ``d``, and each
    blank cell (0) by an all-black image.

    Parameters
    ----------
    X : int array (n, 81)
        Puzzles, 0 = blank, 1..9 = given digit.
    images : array (n_images, ...)
        The digit images to draw from (for example MNIST, (n_images, 28, 28) uint8).
    digits : int array (n_images,)
        The digit shown by each image.
    random_state : int, RandomState or None
        Seed of the image draws.

    Returns
    -------
    ndarray of shape (n, 81, ...)
        One image per cell, the shape and dtype of ``images``' entries.

    Examples
    --------
    >>> import numpy as np
    >>> imgs = np.arange(1, 10, dtype=np.uint8).reshape(9, 1) * np.ones((9, 4), np.uint8)
    >>> V = visual_sudoku(np.array([[0, 3] + [0] * 79]), imgs, np.arange(1, 10), random_state=0)
    >>> V.shape, V[0, 0].tolist(), V[0, 1].tolist()
    ((1, 81, 4), [0, 0, 0, 0], [3, 3, 3, 3])
    """
    X = np.asarray(X)
    images = np.asarray(images)
    digits = np.asarray(digits)
    if X.ndim != 2 or X.dtype.kind not in "iu":
        raise ValueError(f"X must be an int array (n_puzzles, n_cells); got dtype {X.dtype}, shape {X.shape}.")
    if digits.shape != (images.shape[0],):
        raise ValueError(f"digits must have one label per image, shape ({images.shape[0]},); got {digits.shape}.")
    rng = check_random_state(random_state)
    out = np.zeros(X.shape + images.shape[1:], dtype=images.dtype)
    for d in np.unique(X[X > 0]):
        pool = np.flatnonzero(digits == d)
        if pool.size == 0:
            raise ValueError(f"X holds digit {int(d)} but no image in images shows it.")
        where = np.argwhere(X == d)
        out[where[:, 0], where[:, 1]] = images[rng.choice(pool, len(where))]
    return out
