"""UMA: Unconfused Ultraconservative Multiclass Algorithm (Louche & Ralaivola, 2015)."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import column_or_1d

from .._validation import read_only
from .._validation import StrOptions

from .._validation import (check_class_labels, class_weighted, keyword_only, 
    AT_LEAST_1,
    NON_NEGATIVE,
    _classes_array,
    _labels_to_index,
    check_confusion,
    check_X,
    transactional,
)
from .._persist import Scalar, register
from ..calibration import fit_out_of_fold_temperature
from ..linear import LinearMulticlass, with_intercept
from ._kernels import _uma_apply, _uma_changes, _uma_changes_moved, _uma_sparse_apply, _uma_sparse_changes

__all__ = ["UMA"]

# The dense path keeps Gamma up to date by moving only the rows whose memberships
# flipped; every _REBUILD_EVERY iterations it rebuilds Gamma from scratch, so rounding
# cannot drift.  The sparse path's sums are larger to clear (two (Q*Q, d) arrays), so
# it rebuilds less often.
_REBUILD_EVERY = 64
_SPARSE_REBUILD_EVERY = 512

SELECTIONS = ("error", "confusion", "random")


@register
class UMA(LinearMulticlass):
    """UMA: a multiclass linear classifier learned from labels corrupted by a known confusion.

    Labels are noisy with ``C[p, q] = P(noisy = p | true = q)`` (columns sum to 1).
    Starting from ``W = 0``, each iteration, for the current weights:

    1. ``A_p`` = the samples whose score for ``p`` beats every other class by at least
       ``alpha`` (with ``alpha = 0`` a tied sample belongs to every tied ``A_p``);
    2. ``gamma^p_k = (1/n) sum_i [y_i = k][x_i in A_p] x_i`` stacked into ``Gamma_p``;
       ``z_pq`` = row ``q`` of ``C^-1 Gamma_p``: an estimate of the mass of true class
       ``q`` predicted as ``p`` (all ``z_pq`` from one pass over the data);
    3. among the pairs ``p != q`` whose error set
       ``E(z_pq, q) = {r != q : w_r.z - w_q.z >= alpha}`` is non-empty, one is picked
       by ``selection``; pairs with an empty error set are skipped (read literally the
       paper's loop would repeat such a pair forever);
    4. the Perceptron step of the paper's experiments: ``r* = argmax_{r in E} w_r.z``,
       ``w_q += z``, ``w_r* -= z`` (so ``sum_q w_q`` stays 0).

    It stops when no pair is left, when ``max ||z_pq|| < tol``, or after ``max_iter``
    iterations (with a ``ConvergenceWarning``).

    Parameters
    ----------
    confusion : array-like of shape (n_classes, n_classes), or "identity"
        ``C[p, q] = P(noisy = p | true = q)``; column-stochastic and invertible.
        ``"identity"`` is ``C = I`` for whatever classes ``fit`` sees: UMA then trusts the
        labels (the paper's f_y / Perceptron baseline).
    alpha : float, default=0.0
        Margin of the sets ``A_p`` and of the error sets (>= 0).
    selection : {"error", "confusion", "random"}, default="error"
        Pair choice: max ``||z_pq||``; max ``||z_pq|| / pi_q`` with the estimated class
        proportions ``pi = C^-1 (noisy label counts) / n``; or uniform at random.
    max_iter : int, default=1000
        Maximum number of updates.
    tol : float, default=1e-6
        Stop when every ``||z_pq||`` is below this.
    random_state : int, RandomState instance or None, default=None
        Seed of the "random" selection.
    fit_intercept : bool, default=False
        Append a constant feature; its weights are ``intercept_``.
    classes : array-like of shape (n_classes,), default=None
        Labels of ``confusion``'s rows/columns; ``None`` takes the sorted labels of ``y``
        (which must then hold every class).
    warm_start : bool, default=False
        Continue from the current weights (and history) for up to ``max_iter`` more
        iterations instead of starting from ``W = 0``; e.g. to trace test error
        along the iterations.
    probability : bool, default=False
        Also fit a temperature ``temperature_`` so that ``predict_proba`` gives
        ``softmax(decision_function(X) / temperature_)``: after ``fit`` on every row, as
        scikit-learn's ``SVC(probability=True)`` does with Platt scaling, the temperature
        maximises the likelihood of the weak labels (the candidate set's mass, or the
        label's) of out-of-fold scores from 5 fits on four fifths of the rows each (so
        ``fit`` costs about 5 times more), rescaled by the ratio of the final model's score
        spread to theirs.  ``partial_fit``, where the learner has it, keeps the
        temperature of the last ``fit``.
        For UMA the likelihood of a noisy label ``p`` is ``sum_q C[p, q] p(q | x)``.
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying a row's weight (with its ``sample_weight``): a
        row of exact label ``k`` takes ``class_weight[k]``, a candidate set (or soft label)
        the mean weight of its classes.  ``"balanced"``: ``n / (K n_k)`` with ``n_k`` the
        rows of class ``k`` (a candidate set counts ``1/|S|`` for each of its candidates),
        computed on the rows of each call.  Classes absent from a dict weigh 1.
        For UMA, on the given (noisy) labels.

    Attributes
    ----------
    temperature_ : float
        The fitted temperature (``probability=True`` only).
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_classes, n_features)
    intercept_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    n_iter_ : int
        Updates made.
    converged_ : bool
        False when ``max_iter`` stopped the run.
    history_ : dict of ndarrays
        Per iteration: ``p``, ``q``, ``r`` (the pair and the demoted class), ``norm``
        (``||z_pq||``) and ``train_error`` (error on the noisy labels of the weights at
        the start of that iteration).
    class_prior_ : ndarray of shape (n_classes,)
        The estimated true class proportions ``C^-1 (noisy label counts) / n``.

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.noisy import UMA
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.9, 0.1], [0.1, 0.9], [-0.9, -0.1]])
    >>> y = np.array([0, 1, 2, 0, 1, 2])
    >>> UMA(confusion=np.eye(3)).fit(X, y).predict(X).tolist()
    [0, 1, 2, 0, 1, 2]
    """

    @keyword_only
    def __init__(self, *, confusion=None, alpha=0.0, selection="error", max_iter=1000, tol=1e-6,
                 random_state=None, fit_intercept=False, classes=None, warm_start=False, probability=False,
                 class_weight=None):
        self.confusion = confusion
        self.alpha = alpha
        self.selection = selection
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.classes = classes
        self.warm_start = warm_start
        self.probability = probability
        self.class_weight = class_weight

    _parameter_constraints = {"confusion": ["array-like", StrOptions({"identity"}), None], "alpha": [NON_NEGATIVE],
                              "selection": [StrOptions(set(SELECTIONS))], "max_iter": [AT_LEAST_1],
                              "tol": [NON_NEGATIVE], "random_state": ["random_state"], "fit_intercept": ["boolean"],
                              "classes": ["array-like", None], "warm_start": ["boolean"], "probability": ["boolean"],
                              "class_weight": [dict, StrOptions({"balanced"}), None]}

    def _check_params(self):
        self._validate_params()
        if self.confusion is None:
            raise ValueError("confusion is required: the (n_classes, n_classes) matrix "
                             "C[p, q] = P(noisy = p | true = q); pass np.eye(n_classes) or 'identity' for "
                             "clean labels.")

    @transactional
    def fit(self, X, y, sample_weight=None):
        """Learn W from ``X`` and the noisy labels ``y``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples.
        y : array-like of shape (n_samples,)
            Noisy labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample (>= 0): every sum over samples (``Gamma_p``, the class
            frequencies, ``n``) is weighted; integer weights equal repeated rows.

        Returns
        -------
        self : UMA
            The fitted estimator.
        """
        self._check_params()
        X_in = X
        X = check_X(self, X, reset=True)
        if y is None:
            raise ValueError("requires y to be passed, but the target y is None; pass the noisy labels.")
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)
        if y.dtype == object and len({isinstance(v, str) for v in y.ravel()}) > 1:
            raise ValueError("y mixes string and number labels; use one type for every label.")
        check_class_labels(y)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"y must be 1-D noisy labels of length {X.shape[0]}; got shape {y.shape}.")
        if y.dtype.kind == "f" and not np.all(y == np.round(y)):
            raise ValueError("Unknown label type: continuous. y must hold class labels.")
        classes = _classes_array(np.unique(y) if self.classes is None else self.classes)
        if classes.size < 2:
            raise ValueError(f"UMA needs at least 2 classes; got 1 class {classes.tolist()}.")
        C = (np.eye(classes.size) if isinstance(self.confusion, str)
             else check_confusion(self.confusion, classes.size))
        y_idx = _labels_to_index(y, classes, "y").astype(np.int64)
        sw = None
        if sample_weight is not None:
            from .._validation import check_sample_weight

            sw = check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        if self.class_weight is not None:                  # on the given noisy labels
            sw = class_weighted(sw, np.eye(classes.size)[y_idx], classes, self.class_weight)
        if self.fit_intercept:
            X = with_intercept(X)
        W0, hist0 = None, None
        if self.warm_start and getattr(self, "_W", None) is not None:
            if self._W.shape != (X.shape[1], classes.size) or not np.array_equal(self.classes_, classes):
                raise ValueError("warm_start=True needs the same features, intercept setting and classes as the "
                                 "previous fit.")
            W0, hist0 = self._W, self.history_
        else:
            self._rng = check_random_state(self.random_state)
        self.classes_ = classes
        self._W, history, self.converged_ = _fit_uma(
            X, y_idx, C, self.alpha, self.selection, self.max_iter, self.tol, self._rng, W0, sw)
        if hist0 is not None:
            history = {k: np.concatenate([hist0[k], history[k]]) for k in history}
        self.history_ = history
        self.n_iter_ = int(self.history_["q"].size)
        Cinv = np.linalg.inv(C)
        freq = np.bincount(y_idx, weights=sw, minlength=classes.size)
        self.class_prior_ = Cinv @ freq / freq.sum()
        if not self.converged_:
            warnings.warn(f"UMA reached max_iter={self.max_iter} with update vectors left; raise max_iter "
                          "or tol.", ConvergenceWarning, stacklevel=2)
        self.__dict__.pop("temperature_", None)
        if self.probability:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)      # the fold fits: the main fit warned
                fit_out_of_fold_temperature(self, X_in, y, sample_weight, targets=UMA._noisy_targets,
                                            fold_params={"warm_start": False, "classes": self.classes_})
        return self

    # ---- model files: the declared state (see weaklabel._persist.SavesModel) ----------------
    _saved_scalars = {**LinearMulticlass._saved_scalars, "n_iter": Scalar("n_iter_", "int"), "temperature": Scalar("temperature_", "positive", True)}

    # ---- probability=True: the likelihood of a noisy label is sum_q C[p, q] p(q | x) ----
    def _noisy_targets(self, y, n):
        classes = self.classes_
        S = np.zeros((n, classes.size), dtype=bool)
        S[np.arange(n), _labels_to_index(np.asarray(y), classes, "y")] = True
        C = np.eye(classes.size) if isinstance(self.confusion, str) else check_confusion(self.confusion, classes.size)
        return S, classes, C

    def _check_loaded_state(self):
        """The confusion matrix a loaded model holds must be one ``fit`` accepts."""
        if not isinstance(self.confusion, str):
            check_confusion(self.confusion, self.classes_.size)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _select(norms, V, pi, alpha, selection, tol, rng):
    """The pair (p, q) and the demoted class r of an iteration, or None to stop.

    norms[p, q] = ||z_pq||; V[p, q, r] = w_r . z_pq.
    """
    Q = norms.shape[0]
    offdiag = ~np.eye(Q, dtype=bool)
    if norms[offdiag].max() < tol:
        return None
    own = np.take_along_axis(V, np.arange(Q)[None, :, None].repeat(Q, axis=0), axis=2)
    E = V - own >= alpha
    E[:, np.arange(Q), np.arange(Q)] = False                            # r != q
    cand = offdiag & E.any(axis=2)
    if not cand.any():
        return None
    if selection == "error":
        key = np.where(cand, norms, -np.inf)
        p, q = np.unravel_index(np.argmax(key), key.shape)
    elif selection == "confusion":
        key = np.where(cand, norms / np.maximum(pi, 1e-12)[None, :], -np.inf)
        p, q = np.unravel_index(np.argmax(key), key.shape)
    else:
        flat = np.flatnonzero(cand)
        p, q = np.unravel_index(flat[rng.randint(flat.size)], cand.shape)
    r = int(np.argmax(np.where(E[p, q], V[p, q], -np.inf)))
    return int(p), int(q), r


def _select_lazy(norms, Z, W, pi, alpha, selection, tol):
    """As :func:`_select` for the "error" and "confusion" rules, computing ``w_r . z_pq``
    only for the pairs it looks at, best key first (ties: lowest flat index, as argmax).
    """
    Q = norms.shape[0]
    offdiag = ~np.eye(Q, dtype=bool)
    if norms[offdiag].max() < tol:
        return None
    key = norms / np.maximum(pi, 1e-12)[None, :] if selection == "confusion" else norms.copy()
    key[~offdiag] = -np.inf
    for idx in np.argsort(-key.ravel(), kind="stable"):
        p, q = divmod(int(idx), Q)
        if p == q:
            break                                                       # only the diagonal is left
        v = Z[p, q] @ W                                                 # v[r] = w_r . z_pq
        E = v - v[q] >= alpha
        E[q] = False
        if E.any():
            return p, q, int(np.argmax(np.where(E, v, -np.inf)))
    return None


def _fit_uma_sparse(X, y_idx, Cinv, pi, W, scores, alpha, selection, max_iter, tol, rng, sw=None, n_eff=None):
    """UMA on CSR input.

    The rows whose memberships flipped move into running sums kept in ``G`` (Q*Q, d),
    its Gram matrix ``K = G G^T`` and ``G W`` (see ``_uma_sparse_apply``), so an
    iteration never forms Gamma: every ``||z_pq||`` comes from blocks of K, every
    ``w_r . z_pq`` from ``G W``, and a step updates ``G W`` through K.  Only the chosen
    ``z`` is formed.  The sums are rebuilt from scratch every
    ``_SPARSE_REBUILD_EVERY`` iterations.
    """
    n, d = X.shape
    Q = Cinv.shape[0]
    X = X.tocsr()
    if not X.has_sorted_indices:
        X = X.sorted_indices()
    data, indices, indptr = X.data.astype(np.float64, copy=False), X.indices, X.indptr
    # the sums G (and so K, G W) are of the weighted rows w_i x_i; the scores, of x_i
    rw = np.empty(0) if sw is None else sw
    data_w = data if sw is None else data * np.repeat(sw, np.diff(indptr))
    G = np.zeros((Q * Q, d))
    Gt = np.zeros((d, Q * Q))
    K = np.zeros((Q * Q, Q * Q))
    GW = np.zeros((Q * Q, Q))
    counts = np.zeros(Q * Q, dtype=np.int64)                            # rows per cell
    member = np.zeros((n, Q), dtype=bool)
    ch_row = np.empty(n * Q, dtype=np.int64)
    ch_set = np.empty(n * Q, dtype=np.int64)
    ch_sign = np.empty(n * Q)
    changes = (ch_row, ch_set, ch_sign)                                 # the flips a pass records
    sums = (G, Gt, K, GW, counts)
    z = np.zeros(d)
    Cn = Cinv / (n if n_eff is None else n_eff)
    first_tied = alpha == 0.0 and not W.any()
    Wt = np.ascontiguousarray(W.T)                                      # class-major: a step adds two rows
    hist = {k: [] for k in ("p", "q", "r", "norm", "train_error")}
    q_prev = r_prev = -1
    converged = False
    for it in range(max_iter + 1):
        if it % _SPARSE_REBUILD_EVERY == 0:
            # fold the pending score update in, then rebuild the sums from every membership
            if q_prev >= 0:
                dz = X @ z
                scores[:, q_prev] += dz
                scores[:, r_prev] -= dz
                q_prev = r_prev = -1
            G.fill(0.0)
            Gt.fill(0.0)
            K.fill(0.0)
            GW.fill(0.0)
            counts.fill(0)
            member.fill(False)
        if it == 0 and first_tied:
            # W = 0: every row is in every A_p. Build the sums of p = 0 and copy them.
            ch_row[:n] = np.arange(n)
            ch_set[:n] = 0
            ch_sign[:n] = 1.0
            _uma_sparse_apply((data_w, indices, indptr), y_idx, changes, n, sums, scores, rw)
            G[:] = np.tile(G[:Q], (Q, 1))
            Gt[:] = np.tile(Gt[:, :Q], (1, Q))
            K[:] = np.tile(K[:Q, :Q], (Q, Q))
            GW[:] = np.tile(GW[:Q], (Q, 1))
            counts[:] = np.tile(counts[:Q], Q)
            member.fill(True)
            n_err = int(np.count_nonzero(y_idx != 0))                   # ties go to class 0
        else:
            n_err, m = _uma_sparse_changes((data, indices, indptr), y_idx, scores, (z, q_prev, r_prev), alpha,
                                           member, changes)
            _uma_sparse_apply((data_w, indices, indptr), y_idx, changes, m, sums, scores, rw)
        if len(hist["q"]) == max_iter:
            break
        Kd = np.einsum("pkpl->pkl", K.reshape(Q, Q, Q, Q))             # Gram of each Gamma_p (times n^2)
        norms = np.sqrt(np.maximum(np.einsum("qk,pkl,ql->pq", Cn, Kd, Cn), 0.0))
        V = np.matmul(Cn[None, :, :], GW.reshape(Q, Q, Q))              # V[p, q, r] = w_r . z_pq
        step = _select(norms, V, pi, alpha, selection, tol, rng)
        if step is None:
            converged = True
            break
        p, q, r = step
        cells = slice(p * Q, (p + 1) * Q)
        z = Cn[q] @ G[cells]                                            # z_pq = row q of C^-1 Gamma_p
        Wt[q] += z
        Wt[r] -= z
        Gz = K[:, cells] @ Cn[q]                                        # G z, through the Gram matrix
        GW[:, q] += Gz
        GW[:, r] -= Gz
        q_prev, r_prev = q, r
        for k, v in zip(("p", "q", "r", "norm", "train_error"), (p, q, r, float(norms[p, q]), n_err / n)):
            hist[k].append(v)
    history = {k: np.asarray(v, dtype=float if k in ("norm", "train_error") else np.int64) for k, v in hist.items()}
    return np.ascontiguousarray(Wt.T), history, converged


def _fit_uma(X, y_idx, C, alpha, selection, max_iter, tol, rng, W0=None, sw=None):
    """The UMA iterations. Returns (W feature-major (d, Q), history dict, converged).

    With sample weights ``sw`` every sum over rows is weighted: ``Gamma_p`` sums ``w_i x_i``,
    the class frequencies are weighted and ``n`` is ``sum_i w_i``; the error sets ``A_p``
    (which rows the model gets wrong) do not depend on the weights.
    """
    n, d = X.shape
    Q = C.shape[0]
    Cinv = np.linalg.inv(C)
    n_eff = float(n) if sw is None else float(sw.sum())
    pi = Cinv @ np.bincount(y_idx, weights=sw, minlength=Q) / n_eff
    if W0 is None:
        W = np.zeros((d, Q))
        scores = np.zeros((n, Q))
    else:
        W = W0.copy()
        scores = np.ascontiguousarray(np.asarray(X @ W, dtype=np.float64))
    if sp.issparse(X):
        return _fit_uma_sparse(X, y_idx, Cinv, pi, W, scores, alpha, selection, max_iter, tol, rng, sw,
                               None if sw is None else n_eff)
    X = np.ascontiguousarray(X)
    Xw = read_only(X if sw is None else np.ascontiguousarray(X * sw[:, None].astype(X.dtype)))   # what the sums add
    G = np.zeros((Q, Q, d))
    member = np.zeros((n, Q), dtype=np.bool_)
    ch_row = np.empty(n * Q, dtype=np.int64)
    ch_set = np.empty(n * Q, dtype=np.int64)
    ch_sign = np.empty(n * Q)
    changes = (ch_row, ch_set, ch_sign)                                 # the flips a pass records
    counts = np.zeros((Q, Q), dtype=np.int64)                           # rows per cell (p, k)
    top = np.zeros(n, dtype=np.int64)                                   # each row's argmax
    tied = np.ones(n, dtype=np.bool_)                                   # ... and whether it is tied
    z = np.zeros(d)
    n_err = 0

    hist = {k: [] for k in ("p", "q", "r", "norm", "train_error")}
    q_prev = r_prev = -1
    converged = False
    for it in range(max_iter + 1):
        if q_prev >= 0:
            # one BLAS pass over X (in X's dtype: no float64 copy of float32 rows)
            dz = X @ z.astype(X.dtype, copy=False)
            scores[:, q_prev] += dz
            scores[:, r_prev] -= dz
        rebuild = it % _REBUILD_EVERY == 0
        if rebuild:
            G.fill(0.0)
            member.fill(False)
            counts.fill(0)
        if it == 0 and W0 is None and alpha == 0.0:
            # W = 0: every score ties, so every row is in every A_p. Sum each class once
            # (rows in order, as the general pass would) and copy it to every p.
            ch_row[:n] = np.arange(n)
            ch_set[:n] = 0
            ch_sign[:n] = 1.0
            _uma_apply(Xw, y_idx, G, changes, n, counts)
            G[1:] = G[0]
            counts[1:] = counts[0]
            member.fill(True)
            top.fill(0)                                                 # ties go to class 0
            tied.fill(Q > 1)
            n_err = int(np.count_nonzero(y_idx != 0))
        elif alpha == 0.0 and not rebuild:                              # only columns q, r moved
            d_err, m = _uma_changes_moved(scores, y_idx, member, q_prev, r_prev, changes, (top, tied))
            n_err += d_err
            _uma_apply(Xw, y_idx, G, changes, m, counts)
        else:
            n_err, m = _uma_changes(scores, y_idx, alpha, member, changes, (top, tied))
            _uma_apply(Xw, y_idx, G, changes, m, counts)
        if len(hist["q"]) == max_iter:
            break
        Z = np.matmul(Cinv[None, :, :] / n_eff, G)                  # z_pq = row q of C^-1 Gamma_p
        norms = np.sqrt(np.einsum("pqd,pqd->pq", Z, Z))
        if selection == "random":
            step = _select(norms, np.matmul(Z, W), pi, alpha, selection, tol, rng)   # V[p, q, r] = w_r . z_pq
        else:
            step = _select_lazy(norms, Z, W, pi, alpha, selection, tol)
        if step is None:
            converged = True
            break
        p, q, r = step
        z = Z[p, q].copy()
        W[:, q] += z
        W[:, r] -= z
        q_prev, r_prev = int(q), r
        for k, v in zip(("p", "q", "r", "norm", "train_error"),
                        (int(p), int(q), r, float(norms[p, q]), n_err / n)):
            hist[k].append(v)
    history = {k: np.asarray(v, dtype=float if k in ("norm", "train_error") else np.int64) for k, v in hist.items()}
    return W, history, converged
