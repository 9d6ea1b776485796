"""
Bags with candidate labelings: faces named from captions
========================================================

Instances come in bags (the faces of one photo) and each bag carries a few candidate
labelings, one of them right (the names in a caption, in some order). We simulate bags
of digits as the MMS paper does and compare :class:`~weaklabel.bags.MMS` with the
candidate-labeling SVM baseline as the bags get more ambiguous.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits

from weaklabel.bags import MMS, CandidateLabelSVM
from weaklabel.simulate import bags

X, y = load_digits(return_X_y=True)
X = X / 16.0
X_train, X_test, y_train, y_test = X[:1200], X[1200:], y[:1200], y[1200:]

n_labelings = [2, 5, 10]
results = {"MMS": [], "CL-SVM baseline": []}
for L in n_labelings:
    B = bags(y_train, bag_size=4, n_labelings=L, p_correlated=0.25, p_ambiguous=0.25, random_state=0)
    results["MMS"].append(MMS(random_state=0).fit(X_train, B).score(X_test, y_test))
    results["CL-SVM baseline"].append(CandidateLabelSVM(random_state=0).fit(X_train, B).score(X_test, y_test))

fig, ax = plt.subplots(figsize=(6, 4))
for name, values in results.items():
    ax.plot(n_labelings, values, marker="o", label=name)
ax.set_xlabel("candidate labelings per bag")
ax.set_ylabel("accuracy on the true test labels")
ax.set_title("Digits in bags of 4")
ax.legend()
fig.tight_layout()
plt.show()
