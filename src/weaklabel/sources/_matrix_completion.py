"""The matrix-completion label model of Ratner et al. (AAAI 2019), as Snorkel's LabelModel
fits it: source accuracies from the agreements between sources, without EM."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, linear_sum_assignment, minimize
from .._validation import Interval, StrOptions

from .._persist import Scalar, Sparse, register
from .._validation import transactional
from ._label_models import _LabelModel, _gold, _n_kept, _partitioned
from ._votes import check_gold

__all__ = ["MatrixCompletion"]

#: the most work a step of the fit may take, sources x classes^3 (the per-source K x K
#: products); 1,000 sources x 50 classes take 1.25e8
MAX_WORK = 1e9


@register
class MatrixCompletion(_LabelModel):
    """Matrix-completion label model (Ratner, Hancock, Dunnmon, Sala, Pandey & Ré, "Training
    Complex Models with Multi-Task Weak Supervision", AAAI 2019; Snorkel's ``LabelModel``).

    Each source ``j`` and class ``p`` give an indicator ``psi[j, p] = [j votes p]``. With
    ``mu[(j, p), q] = P(j votes p | true class q)`` and the class balance ``P = diag(pi)``,
    conditionally independent sources make the overlap matrix ``O = E[psi psi^T]`` equal to
    ``mu P mu^T`` outside the blocks of one source. The model fits ``mu`` to the observed
    ``O`` by least squares on those entries, plus the marginals ``mu pi = diag(O)`` and an
    optional pull towards the start (``l2``), by L-BFGS-B within [0, 1] (Snorkel uses SGD):
    no EM and no posterior per row, only ``O``, a sufficient statistic, so ``partial_fit``
    adds each chunk's overlaps exactly and refits. ``O`` is kept sparse (an entry per pair
    of indicators that ever voted on one row) and the objective is evaluated from ``O mu``
    and per-source ``K x K`` products, never as a dense ``(m K)^2`` array: 500 sources x 20
    classes fit in seconds. The class balance is given (uniform by
    default, as in Snorkel, or the shares of the known labels ``y`` when some are given),
    and the start is Snorkel's: each source believed right
    ``prec_init`` of the time. With a uniform balance the columns are then matched to the
    classes (the assignment that puts most believed right votes on the diagonal), since the
    objective cannot tell a permutation of the classes from the truth. A row's posterior is
    ``log pi_q + sum over its votes (j, p) of log mu[(j, p), q]``: the votes only, as
    Snorkel's ``predict_proba``.

    ``dependencies`` lists pairs of sources that are not conditionally independent (two
    functions reading the same keyword, say): their overlaps are left out of the fit, so
    their agreement is not mistaken for accuracy. The posterior still multiplies their votes
    as if independent; the paper's junction-tree model of the dependent pairs' joint votes
    is not implemented.

    Parameters
    ----------
    class_balance : array-like of shape (n_classes,), default=None
        The classes' prior; ``None`` means uniform.
    prec_init : float in (0, 1), default=0.7
        The start's belief in every source's accuracy.
    l2 : float, default=1.0
        Weight of ``||mu - mu_start||^2`` in the objective (>= 0). Snorkel's default is 0.
        1.0 is the choice of leave-one-set-out on the sixteen real vote matrices of
        ``weaklabel reproduce sources-corpus`` (the best worst-case gain over majority
        vote) for 15 of the 16 left-out matrices; 0.03, chosen before on the validation
        labels of WRENCH's three sets, fell 20 points below majority vote on a real crowd.
    max_iter : int, default=500
        Most L-BFGS-B iterations.
    dependencies : array-like of int of shape (n_pairs, 2), default=None
        Pairs of sources ``(j, k)`` known to depend on each other beyond the true class.
    on_collapse : {"majority", "warn"}, default="majority"
        What a fit does when its posteriors put almost every covered row (90 %) in one
        class while majority vote puts at most two thirds there: both warn
        (:class:`LabelModelWarning`); ``"majority"`` then predicts majority vote's shares
        instead (``collapsed_`` says so), ``"warn"`` keeps the collapsed posteriors.

    Attributes
    ----------
    n_classes_ : int
    n_sources_ : int
    mu_ : ndarray of shape (n_sources, n_classes, n_classes)
        ``mu_[j, p, q] = P(j votes p | q)``.
    class_balance_ : ndarray of shape (n_classes,)
    n_rows_ : int
        Rows whose overlaps ``O`` holds.
    loss_ : float
        The objective at the end of the fit.
    collapsed_ : bool
        Whether the fit collapsed onto one class (see ``on_collapse``).

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.sources import MajorityVote, MatrixCompletion
    >>> rng = np.random.RandomState(0)
    >>> y = rng.randint(0, 2, 3000)
    >>> L = np.column_stack([np.where(rng.rand(3000) < 0.6, np.where(rng.rand(3000) < a, y, 1 - y), -1)
    ...                      for a in (0.95, 0.85, 0.7, 0.6, 0.55)])
    >>> model = MatrixCompletion().fit(L)
    >>> acc = model.mu_[:, [0, 1], [0, 1]].sum(axis=1) / model.mu_[:, :, :].sum(axis=(1, 2))
    >>> np.round(acc, 2)          # from the overlaps alone; truly 0.95 ... 0.55: ranked, pulled to the start
    array([0.87, 0.87, 0.85, 0.83, 0.81])
    >>> bool(model.score(L, y) > MajorityVote().fit(L).score(L, y))
    True
    """

    _model_kind = "sources.MatrixCompletion"
    _parameter_constraints = {"class_balance": ["array-like", None],
                              "prec_init": [Interval(Real, 0, 1, closed="neither")],
                              "l2": [Interval(Real, 0, None, closed="left")],
                              "max_iter": [Interval(Integral, 1, None, closed="left")],
                              "dependencies": ["array-like", None],
                              "on_collapse": [StrOptions({"majority", "warn"})]}

    def __init__(self, *, class_balance=None, prec_init=0.7, l2=1.0, max_iter=500, dependencies=None,
                 on_collapse="majority"):
        self.class_balance = class_balance
        self.prec_init = prec_init
        self.l2 = l2
        self.max_iter = max_iter
        self.dependencies = dependencies
        self.on_collapse = on_collapse

    def _balance(self, K, gold_counts=None):
        if self.class_balance is None:
            if gold_counts is not None and gold_counts.sum() > 0:     # the known labels' shares, smoothed
                return (gold_counts + 1.0) / (gold_counts.sum() + K)
            return np.full(K, 1.0 / K)
        pi = np.asarray(self.class_balance, dtype=np.float64)
        if pi.shape != (K,) or not np.isfinite(pi).all() or (pi <= 0).any():
            raise ValueError(f"class_balance must be {K} positive numbers, one per class; got shape {pi.shape}.")
        return pi / pi.sum()

    @staticmethod
    def _overlaps(votes, K):
        """``sum_i psi_i psi_i^T`` over the rows, a sparse (m K, m K) CSR matrix."""
        if _partitioned(votes):                 # each partition's overlaps, summed
            O = votes.map_sum(lambda v, g: MatrixCompletion._overlaps(v, K)).tocsr()
            O.sort_indices()
            return O
        d = votes.n_sources * K
        rows = np.repeat(np.arange(votes.n_rows), np.diff(votes.indptr))
        Psi = sp.csr_matrix((np.ones(rows.size), (rows, votes.src * K + votes.cls)), shape=(votes.n_rows, d))
        O = (Psi.T @ Psi).tocsr()
        O.sort_indices()
        return O

    def _pairs(self, m):
        """The declared dependent pairs of sources, checked against ``m`` sources, each once."""
        if self.dependencies is None:
            return []
        pairs = np.asarray(self.dependencies)
        if pairs.size == 0:
            return []
        if pairs.ndim != 2 or pairs.shape[1] != 2 or pairs.dtype.kind not in "iu" or pairs.min() < 0 \
                or pairs.max() >= m or (pairs[:, 0] == pairs[:, 1]).any():
            raise ValueError(f"dependencies must be pairs (j, k) of distinct source indices in 0..{m - 1}; got "
                             f"{self.dependencies!r}.")
        return sorted({(int(min(j, k)), int(max(j, k))) for j, k in pairs})

    def _parameter_bytes(self, m, K):
        # mu (m K^2) and L-BFGS-B's history of about 25 copies of it, the overlaps' products
        return 8 * 30 * m * K * K

    def _check_size(self, m, K):
        if m * K ** 3 > MAX_WORK:
            raise ValueError(f"MatrixCompletion fits {m} sources x {K} classes: {m * K ** 3:.3g} operations a step "
                             f"(sources x classes^3); at most {MAX_WORK:.0e} are allowed. Use PrecisionVote or "
                             "DawidSkene for this many classes.")

    def _solve(self, O_sum, n, m, K, pi):
        """Fit ``mu`` to ``O = O_sum / n`` (see the class notes): the least squares over the
        entries of ``O`` between different sources (declared dependent pairs left out),
        written as ``||mask O||^2 - 2 <mask O, M> + ||mask M||^2`` with ``M = mu P mu^T``, so
        that only ``O mu`` and per-source ``K x K`` products are computed.
        """
        d = m * K
        O = O_sum / max(n, 1)
        diag = O.diagonal()
        pairs = self._pairs(m)
        block = lambda j: slice(j * K, (j + 1) * K)                      # noqa: E731
        dep = [(j, k, O[block(j), block(k)].toarray()) for j, k in pairs]
        # the entries between different sources: a source votes one class a row, so its own
        # block of O is diagonal
        const = float(O.multiply(O).sum() - diag @ diag - 2.0 * sum((B * B).sum() for _, _, B in dep))
        start = np.zeros((d, K))
        idx = np.arange(d)
        start[idx, idx % K] = np.minimum(diag * self.prec_init / pi[idx % K], 1.0)
        l2 = float(self.l2)

        def objective(flat):
            mu = flat.reshape(d, K)
            mu3 = mu.reshape(m, K, K)
            G = O @ mu - diag[:, None] * mu                   # (mask O) mu
            A = mu.T @ mu
            Aj = np.matmul(mu3.transpose(0, 2, 1), mu3)       # each source's mu_j^T mu_j
            H = (mu * pi) @ A - np.matmul(mu3 * pi, Aj).reshape(d, K)     # (mask M) mu
            PAP = pi[:, None] * A * pi[None, :]
            mm = float((PAP * A).sum() - (pi[None, :, None] * Aj * pi[None, None, :] * Aj).sum())   # ||mask M||^2
            for j, k, B in dep:                              # the declared pairs' blocks left out
                Mjk = (mu[block(j)] * pi) @ mu[block(k)].T
                G[block(j)] -= B @ mu[block(k)]
                G[block(k)] -= B.T @ mu[block(j)]
                H[block(j)] -= Mjk @ mu[block(k)]
                H[block(k)] -= Mjk.T @ mu[block(j)]
                mm -= 2.0 * float((Mjk * Mjk).sum())
            r = mu @ pi - diag
            f = const - 2.0 * float(((G * mu) @ pi).sum()) + mm + float(r @ r) + l2 * float(((mu - start) ** 2).sum())
            g = -4.0 * (G - H) * pi + 2.0 * np.outer(r, pi) + 2.0 * l2 * (mu - start)
            return f, g.ravel()

        res = minimize(objective, start.ravel(), jac=True, method="L-BFGS-B", bounds=Bounds(0.0, 1.0),
                       options={"maxiter": int(self.max_iter)})
        mu = res.x.reshape(m, K, K)
        # the objective is blind to a permutation of the classes: take the one that puts the
        # most believed right votes on the diagonal
        if np.allclose(pi, pi[0]):              # a given, uneven balance already names the columns
            _, perm = linear_sum_assignment(-np.einsum("jpq->pq", mu))
            mu = mu[:, :, perm]
        return mu, float(res.fun)

    def _publish(self, K, m):
        pi = self._balance(K, self._gold_counts)
        self._check_size(m, K)
        self.mu_, self.loss_ = self._solve(self._O_sum, self.n_rows_, m, K, pi)
        self.class_balance_ = pi

    @transactional
    def fit(self, L, y=None, *, n_classes=None):
        """Fit ``mu`` to the overlaps of the votes.

        Parameters
        ----------
        L : array-like of int of shape (n_rows, n_sources), or sparse matrix
            Votes: class indices and -1 for an abstain, or a sparse matrix of ``class + 1``.
        y : array-like of int of shape (n_rows,), default=None
            Known true classes, -1 where unknown: without ``class_balance``, their shares
            (smoothed by one per class) are the class balance.
        n_classes : int, default=None
            The number of classes; ``None`` means one more than the largest class voted.

        Returns
        -------
        self
            The fitted estimator.
        """
        self._validate_params()
        L, y, n_classes = self._from_long(L, y, n_classes, reset=True)
        votes, K = self._check(L, reset=True, n_classes=n_classes)
        gold = _gold(y, votes, K)
        self._check_size(votes.n_sources, K)
        self._pairs(votes.n_sources)
        self._balance(K)
        if not _n_kept(votes, None if gold is None else np.full(votes.n_rows, -1)):      # rows with a vote
            raise ValueError("L has no vote on any row: nothing to fit.")
        self._O_sum, self.n_rows_ = self._overlaps(votes, K), int(votes.n_rows)
        self._gold_counts = (np.zeros(K) if gold is None else
                             np.bincount(gold[gold >= 0], minlength=K).astype(np.float64))
        self.n_classes_, self.n_sources_ = K, votes.n_sources
        self._publish(K, votes.n_sources)
        self.start_ = "prior"
        self._guard(votes, K)
        return self

    @transactional
    def partial_fit(self, L, y=None, *, n_classes=None):
        """Add a chunk's overlaps to ``O`` (exactly) and refit ``mu`` from the last one.

        Parameters
        ----------
        L : array-like of int of shape (n_rows, n_sources), or sparse matrix
            A chunk of votes (the first call fixes the number of sources and classes).
        y : array-like of int of shape (n_rows,), default=None
            Known classes of the chunk's rows, -1 where unknown (see :meth:`fit`).
        n_classes : int, default=None
            Needed on the first call when the first chunk does not vote every class.

        Returns
        -------
        self
            The estimator, updated by this batch.
        """
        self._validate_params()
        L, y, n_classes = self._from_long(L, y, n_classes, reset=not hasattr(self, "n_classes_"))
        votes, K, first = self._chunk(L, n_classes)
        gold = check_gold(y, votes.n_rows, K)
        if first:
            self._check_size(votes.n_sources, K)
            self._balance(K)
            self._O_sum, self.n_rows_ = sp.csr_matrix((votes.n_sources * K,) * 2), 0
            self._gold_counts = np.zeros(K)
            self.n_classes_, self.n_sources_ = K, votes.n_sources
            self.collapsed_, self._majority_balance, self.start_ = False, np.full(K, 1.0 / K), "prior"
        self._O_sum = (self._O_sum + self._overlaps(votes, K)).tocsr()
        self._O_sum.sort_indices()
        self._gold_counts = self._gold_counts + np.bincount(gold[gold >= 0], minlength=K)
        self.n_rows_ += int(votes.n_rows)
        if self._O_sum.nnz:
            self._publish(K, votes.n_sources)
        else:
            self.mu_, self.loss_ = np.full((votes.n_sources, K, K), 1.0 / K), 0.0
            self.class_balance_ = self._balance(K, self._gold_counts)
        if votes.covered.any():
            self._guard(votes, K)
        return self

    def _model_proba(self, votes, K):
        rows = np.repeat(np.arange(votes.n_rows), np.diff(votes.indptr))
        log_mu = np.log(np.clip(self.mu_, 1e-6, 1.0))
        S = np.tile(np.log(self.class_balance_), (votes.n_rows, 1))
        np.add.at(S, rows, log_mu[votes.src, votes.cls])
        S -= S.max(axis=1, keepdims=True)
        P = np.exp(S)
        return P / P.sum(axis=1, keepdims=True)

    # ---- model files: the declared state (see weaklabel._persist.SavesModel) ----------------
    _saved_arrays = {"O": Sparse("_O_sum", lambda est: est.n_sources_ * est.n_classes_), "mu": "mu_",
                     "class_balance": "class_balance_", "gold_counts": "_gold_counts", **_LabelModel._GUARD_ARRAYS}
    _saved_scalars = {"n_classes": Scalar("n_classes_", "int"), "n_sources": Scalar("n_sources_", "int"),
                      "n_rows": Scalar("n_rows_", "int"), "loss": Scalar("loss_", "float"),
                      **_LabelModel._GUARD_SCALARS}

    @classmethod
    def _declared_state(cls, params, state, shapes):
        from .._persist import count

        K, m = count(state, "n_classes"), count(state, "n_sources")
        return {"O_data": ("f", (None,), True), "O_indices": ("iu", (None,), True),
                "O_indptr": ("iu", (m * K + 1,), True), "mu": ("f", (m, K, K), True),
                "class_balance": ("f", (K,), True), "gold_counts": ("f", (K,), True),
                "majority_balance": ("f", (K,), False)}

    def _restored(self, loaded):
        K, m, mu, pi = self.n_classes_, self.n_sources_, self.mu_, self.class_balance_
        if K < 2 or m < 1:
            raise ValueError(f"mu {mu.shape} and balance {pi.shape} do not fit {m} sources and {K} classes")
        if (self._gold_counts < 0).any():
            raise ValueError(f"gold counts {self._gold_counts.shape} must be {K} non-negative counts")
        if (self._O_sum.data < 0).any() or (mu < 0).any() or (mu > 1).any() or (pi <= 0).any():
            raise ValueError("overlaps must be counts, mu probabilities and the balance positive")
        if not np.isclose(pi.sum(), 1.0, atol=1e-6):
            raise ValueError(f"the class balance must sum to 1, as a fit leaves it; it sums to {pi.sum():.6g}")
        if self._O_sum.nnz and not mu.any():
            raise ValueError("mu is all zero while the overlaps hold votes, which no fit leaves")
        O = self._O_sum
        if abs(O - O.T).sum() > 1e-9 * max(float(np.abs(O.data).sum()), 1.0):
            raise ValueError("the overlaps must be symmetric, as counted from the votes")
        self._restore_guard(K)
