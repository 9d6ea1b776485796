"""
Candidate label sets when the classes are not linearly separable
================================================================

Four classes on two interleaved rings, each training point with a candidate set of two
labels (its true label and a distractor drawn at random). A linear learner
(:class:`~weaklabel.partial.PRODEN`) cannot draw ring-shaped boundaries; the two
non-linear learners can, and both choose their own hyper-parameters from the candidate
sets alone: :class:`~weaklabel.partial.KernelPRODEN` (RBF features, kernel width and
penalty by the held-out candidate likelihood) and :class:`~weaklabel.partial.MLPPRODEN`
(a network of ReLU units, penalty and number of passes the same way). Each panel shows
the learner's regions and its accuracy on the TRUE labels of fresh points.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap

from weaklabel.partial import PRODEN, KernelPRODEN, MLPPRODEN
from weaklabel.simulate import make_candidate_sets


def rings(n, rng):
    """Four classes: two rings, each split into a left and a right half."""
    radius = rng.choice([1.0, 2.0], size=n)
    angle = rng.uniform(0, 2 * np.pi, size=n)
    X = np.c_[radius * np.cos(angle), radius * np.sin(angle)] + 0.12 * rng.randn(n, 2)
    y = 2 * (radius > 1.5) + (np.cos(angle) > 0)
    return X, y


rng = np.random.RandomState(0)
X_train, y_train = rings(1200, rng)
X_test, y_test = rings(1000, rng)
S = make_candidate_sets(y_train, 2, random_state=0)

learners = {"PRODEN (linear)": PRODEN(),
            "KernelPRODEN()": KernelPRODEN(n_components=200, random_state=0),
            "MLPPRODEN()": MLPPRODEN(hidden_units=64, learning_rate=0.01, random_state=0)}
colors = ListedColormap(plt.cm.tab10.colors[:4])          # one colour per class, regions and points
grid = np.stack(np.meshgrid(np.linspace(-2.8, 2.8, 200), np.linspace(-2.8, 2.8, 200)), axis=-1).reshape(-1, 2)
fig, axes = plt.subplots(1, 3, figsize=(11, 3.8), sharey=True)
for ax, (name, clf) in zip(axes, learners.items()):
    clf.fit(X_train, S)                                  # candidate sets only
    regions = clf.predict(grid).reshape(200, 200)
    ax.contourf(grid[:, 0].reshape(200, 200), grid[:, 1].reshape(200, 200), regions, levels=np.arange(5) - 0.5,
                cmap=colors, alpha=0.3)
    ax.scatter(X_test[:300, 0], X_test[:300, 1], c=y_test[:300], cmap=colors, vmin=-0.5, vmax=3.5, s=6)
    ax.set_title(f"{name}\ntrue-label accuracy {clf.score(X_test, y_test):.2f}")
    ax.set_aspect("equal")
fig.tight_layout()
plt.show()

# %%
# The linear model can only cut the plane with straight lines, here four vertical strips:
# the inner ring and the sides of the outer ring come out right, the top and bottom of the
# outer ring wrong (about three points in four right).
# The two non-linear learners recover the rings (nearly every point right) from sets in
# which the right class is one of two candidates. Neither needed a true label to choose its settings: both hold
# out part of the training rows and keep the settings under which the held-out candidate
# sets are the most likely.
