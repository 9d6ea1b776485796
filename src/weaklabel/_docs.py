"""The one docstring template of weaklabel's estimators.

A docstring holds placeholders ``{name}``, each on a line of its own; :func:`fill_doc`
replaces each by the numpydoc text registered under ``name`` in :data:`SNIPPETS` (or passed
to it), indented as the placeholder, until none is left.  A parameter documented the same
way by several estimators (``row_scale``, ``class_weight``, ``probability``, early
stopping, a family's shared block) is written once here or in its family's module.
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["SNIPPETS", "fill_doc", "with_doc"]

_PLACEHOLDER = re.compile(r"^([ \t]*)\{(\w+)\}[ \t]*$", re.M)

#: name -> numpydoc text (a parameter or attribute entry, written at a class docstring's
#: indentation: the name at 4 spaces, its description at 8)
SNIPPETS = {
    "candidate_fit_sections": """
    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The training rows.
    y : CandidateSets, bool mask (n_samples, n_classes), list of label lists, or 1-D labels
        Candidate label set of each sample (1-D labels are singleton sets).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each row; None gives every row weight 1.

    Returns
    -------
    self
        The fitted estimator.""",
    "structured_XY": """
    X : examples, in any form :meth:`fit` takes
        The examples.
    Y : labels or masks, in any form :meth:`fit` takes
        Each node's annotation: a label, -1 (missing), or a candidate mask.""",
    "predict_sections": """
    {rows_to_score}

    Returns
    -------
    ndarray of shape (n_samples,)
        Predicted labels.""",
    "digits_candidates": """
    >>> from sklearn.datasets import load_digits
    >>> from weaklabel.simulate import make_candidate_sets
    >>> X, y = load_digits(return_X_y=True)
    >>> S = make_candidate_sets(y, 3, random_state=0)""",
    "rows_to_score": """
    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The rows to score.""",
    "potentials": """
    unary : array-like of shape (n_nodes, K)
        Node scores.
    pairwise : array-like of shape (K, K) or (n_edges, K, K)
        Edge scores, ``pairwise[e][y_u, y_v]`` for ``e = (u, v)``: one table for every edge,
        or one per edge.
    edges : array-like of int of shape (n_edges, 2) or None, default=None
        The graph; ``None`` means the chain 0-1-...-(n_nodes - 1).""",
    "bandit_log": """
    actions : array-like of int, shape (n,)
        The logged (shown) action of each round.
    propensities : array-like of shape (n,)
        The logging policy's probability of that action, in (0, 1].
    rewards : array-like of shape (n,)
        The reward observed on each round.
    policy : array-like of shape (n, n_actions) probabilities, or (n,) int actions
        The target policy on each round's context.""",
    "online_attributes": """
    classes_ : ndarray of shape (n_classes,)
        The classes.
    coef_ : ndarray of shape (n_classes, n_features)
        The weights.
    intercept_ : ndarray of shape (n_classes,)
        The intercepts (zeros unless ``fit_intercept=True``).
    n_features_in_ : int
        Number of features seen in ``fit``.
    t_ : int
        The next round number (1 + rounds seen since the weights were zero).
    n_iter_ : int
        Passes made since the weights were zero.""",
    "row_scale": """
    row_scale : "auto" or float, default="auto"
        The learner acts as if ``X`` were divided by ``row_scale_``, so its defaults work
        whatever the features' common scale (pixels 0-16 or 0-1 give the same model).
        ``"auto"``: the root mean squared norm of the rows of the first fitted ``X``
        (``partial_fit``: its first chunk); a number: that scale; ``1.0`` takes ``X`` as
        it is (the papers' setting, for rows of about unit norm).  It rescales the
        regularisation, never the data, and does not make features of different scales
        alike: for that, put a ``StandardScaler`` before the learner.""",
    "class_weight": """
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying a row's weight (with its ``sample_weight``): a
        row of exact label ``k`` takes ``class_weight[k]``, a candidate set (or soft label)
        the mean weight of its classes.  ``"balanced"``: ``n / (K n_k)`` with ``n_k`` the
        rows of class ``k`` (a candidate set counts ``1/|S|`` for each of its candidates),
        computed on the rows of each call.  Classes absent from a dict weigh 1.""",
    "probability": """
    probability : bool, default=False
        Also fit a temperature ``temperature_`` so that ``predict_proba`` gives
        ``softmax(decision_function(X) / temperature_)``: after ``fit`` on every row, as
        scikit-learn's ``SVC(probability=True)`` does with Platt scaling, the temperature
        maximises the likelihood of the weak labels (the candidate set's mass, or the
        label's) of out-of-fold scores from 5 fits on four fifths of the rows each (so
        ``fit`` costs about 5 times more), rescaled by the ratio of the final model's score
        spread to theirs.  ``partial_fit``, where the learner has it, keeps the
        temperature of the last ``fit``.""",
    "probability_attr": """
    temperature_ : float
        The fitted temperature (``probability=True`` only).""",
    "early_stopping": """
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the rows in ``fit`` and stop the passes when the
        held-out score (the share of held-out predictions their weak labels accept) has not
        improved by ``tol`` for ``n_iter_no_change`` passes in a row.  The held-out rows are
        not learnt from; ``validation_scores_`` records the score after each pass.
        ``partial_fit`` makes one pass and ignores it.
    validation_fraction : float, default=0.1
        Share of the rows held out when ``early_stopping`` is on, in (0, 1).
    n_iter_no_change : int, default=5
        Passes without an improvement of at least ``tol`` before stopping.
    tol : float, default=1e-3
        The smallest gain of the held-out score that counts as an improvement (>= 0).
    verbose : int, default=0
        Print a line after each pass of ``fit`` (updates, and the held-out score).
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying a row's step (with its ``sample_weight``): a row
        of exact label ``k`` takes ``class_weight[k]``, a candidate set the mean weight of
        its candidates.  ``"balanced"``: ``n / (K n_k)`` with ``n_k`` the rows of class
        ``k`` (a candidate set counts ``1/|S|`` for each of its candidates), computed on the
        rows of each call.  Classes absent from a dict weigh 1.  Not for a log of bandit
        feedback (its rows' classes are unknown).""",
    "early_stopping_attr": """
    validation_scores_ : ndarray of shape (n_passes,)
        The held-out score after each pass of the last ``fit`` with ``early_stopping``.""",
}


def fill_doc(obj=None, **snippets):
    """Replace the placeholders of a docstring by their snippets.

    Usable bare (``@fill_doc``) or with snippets of its own (``@fill_doc(common=TEXT)``),
    which take precedence over :data:`SNIPPETS`.  A placeholder with no snippet is left as
    it is (a brace in a type, ``{"auto", ...}``, is not a placeholder: it is not alone on
    its line).

    Parameters
    ----------
    obj : class or function, default=None
        The object whose ``__doc__`` is filled.
    **snippets : dict
        Name -> text, for this object only.

    Returns
    -------
    object or callable
        ``obj``, filled; without ``obj``, a decorator that fills.
    """
    def fill(target):
        table = {**SNIPPETS, **snippets}

        def sub(m):
            if m.group(2) not in table:
                return m.group(0)
            return textwrap.indent(textwrap.dedent(table[m.group(2)]).strip("\n"), m.group(1))

        doc = target.__doc__ or ""
        for _ in range(5):                          # snippets may hold placeholders of their own
            new = _PLACEHOLDER.sub(sub, doc)
            if new == doc:
                break
            doc = new
        target.__doc__ = doc
        return target

    return fill if obj is None else fill(obj)


def with_doc(text, **snippets):
    """Return a class decorator that sets the docstring to ``text``, filled.

    Parameters
    ----------
    text : str
        The docstring, with placeholders.
    **snippets : dict
        Name -> text, as :func:`fill_doc` takes them.

    Returns
    -------
    callable
        The decorator.
    """
    def deco(cls):
        cls.__doc__ = text
        return fill_doc(cls, **snippets)

    return deco
