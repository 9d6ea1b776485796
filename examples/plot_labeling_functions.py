"""
Labeling functions, a label model and an end model
==================================================

No true label is used to train here. Thirty one-sided labeling functions vote on
scikit-learn's digits: each votes one digit when an image is close to the mean of five
labelled images of that digit (so it is often wrong) and abstains otherwise. Three label
models turn the votes into probabilities, :class:`~weaklabel.sources.EndModel` trains a
logistic regression on the pixels from each (it labels every image, the ones no function
covers included), and :func:`~weaklabel.sources.source_summary` compares what
:class:`~weaklabel.sources.PrecisionVote` believes of each function with its measured
accuracy. On these functions, which mostly conflict rather than agree, majority vote is as
good a label model as any: a label model is only as good as the evidence the overlaps give
it.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

from weaklabel.sources import (DawidSkene, EndModel, LabelingFunction, MajorityVote, PrecisionVote, apply_lfs,
                               source_summary)

X, y = load_digits(return_X_y=True)
X = X / 16.0
rng = np.random.RandomState(0)
train, test = np.arange(1200), np.arange(1200, len(y))

# three labeling functions per digit, each "votes d when the image is close to the mean of
# five labelled images of d" (its own five; a threshold on the distance, so it abstains on
# most images)
lfs = []
for d in range(10):
    for k in range(3):
        few = rng.choice(np.flatnonzero(y[train] == d), 5, replace=False)
        centre = X[train][few].mean(axis=0)
        radius = np.quantile(np.linalg.norm(X[train] - centre, axis=1), 0.1)
        lfs.append(LabelingFunction(lambda x, c=centre, r=radius, d=d: d if np.linalg.norm(x - c) < r else None,
                                    name=f"near_{d}_{k}"))
L = apply_lfs(lfs, X)                     # sparse votes: class + 1, zero = abstain

covered = np.diff(L[test].indptr) > 0
models = {"majority vote": MajorityVote, "Dawid-Skene": DawidSkene, "PrecisionVote": PrecisionVote}
label_acc, end_acc = {}, {}
for name, make in models.items():
    model = make().fit(L[train], n_classes=10)
    label_acc[name] = np.mean(model.predict(L[test])[covered] == y[test][covered])
    end = EndModel(label_model=make()).fit(X[train], L[train], n_classes=10)
    end_acc[name] = np.mean(end.predict(X[test]) == y[test])
    print(f"{name:14s} labels right on the covered test images: {label_acc[name]:.3f}; "
          f"end model right on every test image: {end_acc[name]:.3f}")
print(f"{covered.mean():.0%} of the test images have a vote")

summary = source_summary(L[train], model=PrecisionVote().fit(L[train], n_classes=10), y=y[train], warn=False)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 4))
names = list(models)
k = np.arange(len(names))
ax1.bar(k - 0.2, [label_acc[n] for n in names], width=0.4, label="label model (covered images)")
ax1.bar(k + 0.2, [end_acc[n] for n in names], width=0.4, label="end model (every image)")
ax1.set_xticks(k, names)
ax1.set_ylim(0.5, 1.1)
ax1.set_ylabel("accuracy on the test images")
ax1.set_title("No true label used")
ax1.legend(loc="upper center", ncol=1, fontsize="small")
ax2.scatter(summary["accuracy_gold"], summary["accuracy_held_out"])
ax2.plot([0.4, 1], [0.4, 1], color="grey", linewidth=1, label="believed = measured")
ax2.set_xlabel("measured accuracy of a function (true labels)")
ax2.set_ylabel("believed from the other votes (no labels)")
ax2.set_title("The 30 labeling functions")
ax2.legend(loc="lower right")
fig.tight_layout()
plt.show()
