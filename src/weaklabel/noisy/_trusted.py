"""Cross-validation over the trusted rows of a noisy-label training set."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold
from .._validation import Interval, validate_params

from ._corrected import _check_trusted


class TrustedKFold:
    """K folds of the trusted rows; every other row always trains.

    With a few rows whose labels are known to be clean among many noisy ones, a
    hyper-parameter (e.g. :class:`CorrectedLogistic`'s ``trusted_weight`` or ``alpha``)
    is best judged on clean labels alone: each split holds out one fold of the trusted
    rows as the test set and trains on the rest of the data, noisy rows included.  Pass
    it as ``cv`` to scikit-learn's :class:`~sklearn.model_selection.GridSearchCV`, with
    the same ``trusted`` passed to ``fit`` (the search slices it per split).

    Parameters
    ----------
    trusted : array-like of bool of shape (n_samples,), or of row indices
        The trusted rows; with indices, the number of rows is taken from ``X`` in
        :meth:`split`.
    n_splits : int, default=5
        Folds (at least 2, at most the number of trusted rows).
    shuffle : bool, default=True
        Shuffle the trusted rows before cutting the folds.
    random_state : int, RandomState instance or None, default=None
        Used when ``shuffle`` is True.

    Notes
    -----
    The folds are stratified by ``y`` (the trusted rows' labels) when ``y`` is passed
    and every class among the trusted rows has at least ``n_splits`` of them; otherwise
    plain K folds.

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.noisy import TrustedKFold
    >>> cv = TrustedKFold(np.array([0, 2, 4, 6]), n_splits=2, random_state=0)
    >>> [test.tolist() for _, test in cv.split(np.zeros((8, 1)))]
    [[4, 6], [0, 2]]
    """

    @validate_params({"n_splits": [Interval(Integral, 2, None, closed="left")], "shuffle": ["boolean"],
                      "random_state": ["random_state"]}, prefer_skip_nested_validation=True)
    def __init__(self, trusted, n_splits=5, *, shuffle=True, random_state=None):
        self.trusted = trusted
        self.n_splits = n_splits
        self.shuffle = shuffle
        self.random_state = random_state

    def get_n_splits(self, X=None, y=None, groups=None):
        """Return the number of splits, ``n_splits``.

        Parameters
        ----------
        X, y, groups : ignored
            Not used; present for the scikit-learn API.

        Returns
        -------
        int
            ``n_splits``.
        """
        return self.n_splits

    def split(self, X, y=None, groups=None):
        """Yield ``(train, test)`` row indices: ``test`` a fold of the trusted rows,
        ``train`` every other row.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Only its number of rows is used.
        y : array-like of shape (n_samples,), default=None
            Labels, to stratify the folds.
        groups : ignored
            Not used; present for the scikit-learn API.

        Yields
        ------
        train : ndarray of int
            Every row not in the test fold.
        test : ndarray of int
            One fold of the trusted rows.
        """
        n = X.shape[0] if hasattr(X, "shape") else len(X)
        t = np.asarray(self.trusted)
        if t.dtype == bool and t.shape != (n,):
            raise ValueError(f"TrustedKFold's trusted mask has shape {t.shape} but X has {n} rows; they must match.")
        rows = np.flatnonzero(_check_trusted(self.trusted, n))
        if rows.size < self.n_splits:
            raise ValueError(f"TrustedKFold needs at least n_splits={self.n_splits} trusted rows; got {rows.size}.")
        rs = self.random_state if self.shuffle else None
        folds = KFold(self.n_splits, shuffle=self.shuffle, random_state=rs).split(rows)
        if y is not None:
            yt = np.asarray(y)[rows]
            if yt.ndim == 1 and np.unique(yt, return_counts=True)[1].min() >= self.n_splits:
                folds = StratifiedKFold(self.n_splits, shuffle=self.shuffle, random_state=rs).split(rows, yt)
        for _, test_idx in folds:
            test = rows[test_idx]
            train = np.setdiff1d(np.arange(n), test)
            yield train, test

    def __repr__(self):
        return (f"TrustedKFold(<{np.asarray(self.trusted).shape} trusted>, n_splits={self.n_splits}, "
                f"shuffle={self.shuffle}, random_state={self.random_state!r})")
