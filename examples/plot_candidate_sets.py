"""
Candidate label sets: accuracy as the sets grow
===============================================

Each training digit comes with a set of possible labels, the true one among them
(``make_candidate_sets`` adds distractors drawn at random). We train an online learner
(:class:`~weaklabel.partial.AvgPegasos`), the batch :class:`~weaklabel.partial.PRODEN`
and what a scikit-learn user would otherwise do, logistic regression on one copy of each
example per candidate weighted ``1/|S|``, and score them on the TRUE test labels.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression

from weaklabel.partial import PRODEN, AvgPegasos
from weaklabel.simulate import make_candidate_sets

X, y = load_digits(return_X_y=True)
X = X / 16.0
X_train, X_test, y_train, y_test = X[:1400], X[1400:], y[:1400], y[1400:]

sizes = [1, 2, 3, 4, 5, 6]
scores = {"AvgPegasos (online)": [], "PRODEN (batch)": [], "LogisticRegression, expanded 1/|S|": []}
for size in sizes:
    S = make_candidate_sets(y_train, size, random_state=0)
    scores["AvgPegasos (online)"].append(
        AvgPegasos(random_state=0).fit(X_train, S).score(X_test, y_test))
    scores["PRODEN (batch)"].append(PRODEN(alpha=1e-3).fit(X_train, S).score(X_test, y_test))
    rows, labels = np.nonzero(S.mask)                 # one copy per candidate label
    lr = LogisticRegression(max_iter=1000).fit(X_train[rows], S.classes_[labels],
                                               sample_weight=1.0 / S.sizes[rows])
    scores["LogisticRegression, expanded 1/|S|"].append(lr.score(X_test, y_test))

fig, ax = plt.subplots(figsize=(6, 4))
for name, values in scores.items():
    ax.plot(sizes, values, marker="o", label=name)
ax.set_xlabel("candidate set size (1 = the true label only)")
ax.set_ylabel("accuracy on the true test labels")
ax.set_title("Digits with candidate label sets")
ax.legend()
fig.tight_layout()
plt.show()

# %%
# PRODEN keeps its accuracy as the sets grow: it re-weights each example's candidates by
# its own posterior, so the distractors lose weight as training goes. The expanded
# logistic regression gives every candidate the same weight for good.
