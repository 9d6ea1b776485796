"""
Noisy labels with a known confusion matrix
==========================================

Labels are flipped by a class-conditional noise ``C[p, q] = P(noisy = p | true = q)``.
:class:`~weaklabel.noisy.CorrectedLogistic` corrects the log loss with ``C`` (forward
correction, Patrini et al. 2017); a plain logistic regression trusts the noisy labels.
We raise the noise and score both on the true test labels.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression

from weaklabel.noisy import CorrectedLogistic
from weaklabel.simulate import confusion_family, noisy_labels

X, y = load_digits(return_X_y=True)
X = X / 16.0
X_train, X_test, y_train, y_test = X[:1400], X[1400:], y[:1400], y[1400:]

levels = [0, 2, 4, 6, 8]
plain, corrected, rates = [], [], []
for i in levels:
    C = confusion_family(10, i, random_state=0)            # i = 0: no noise
    y_noisy = noisy_labels(y_train, C, random_state=1)
    rates.append(np.mean(y_noisy != y_train))
    plain.append(LogisticRegression(max_iter=1000).fit(X_train, y_noisy).score(X_test, y_test))
    corrected.append(CorrectedLogistic(confusion=C, alpha=1e-3).fit(X_train, y_noisy).score(X_test, y_test))

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(rates, corrected, marker="o", label="CorrectedLogistic (forward, known C)")
ax.plot(rates, plain, marker="o", label="LogisticRegression on noisy labels")
ax.set_xlabel("share of training labels flipped")
ax.set_ylabel("accuracy on the true test labels")
ax.set_title("Digits with class-conditional label noise")
ax.legend()
fig.tight_layout()
plt.show()
