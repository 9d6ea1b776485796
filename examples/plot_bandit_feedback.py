"""
Bandit feedback: learning from "right" or "wrong"
=================================================

Each round the learner proposes a label and is told only whether it was right. We stream
the digits once and plot each learner's running ratio of correct proposals, the metric of
the CSPA paper, then estimate offline how good the greedy policy of the learned model
would be, from the exploring learner's own log (inverse propensity scoring).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.preprocessing import normalize

from weaklabel.bandit import CSPA, Banditron, Confidit
from weaklabel.bandit.evaluation import ips

X, y = load_digits(return_X_y=True)
order = np.random.default_rng(0).permutation(y.size)
X, y = normalize(X)[order], y[order]                  # unit-norm rows in a random order

learners = {"CSPA": CSPA(beta=0.3), "Banditron": Banditron(gamma=0.1, random_state=0),
            "Confidit (diagonal)": Confidit()}
fig, ax = plt.subplots(figsize=(6, 4))
for name, clf in learners.items():
    clf.partial_fit(X, y, classes=np.arange(10))        # one pass in stream order; y only says right/wrong
    correct = np.asarray(clf.correct_, dtype=float)
    ax.plot(np.cumsum(correct) / np.arange(1, correct.size + 1), label=name)
ax.set_xlabel("round")
ax.set_ylabel("ratio of correct proposals so far")
ax.set_ylim(0, 1)
ax.set_title("One pass over the digits with bandit feedback")
ax.legend()
fig.tight_layout()
plt.show()

# %%
# Off-policy evaluation. An exploring learner records the probability of each label it
# showed (``propensities_``), so its log can evaluate another policy without deploying it.
# Here a Banditron exploring a third of the time logs a pass over the digits, and the log
# estimates the accuracy of the CSPA model trained above.
logger = Banditron(gamma=0.3, random_state=1).partial_fit(X, y, classes=np.arange(10))
shown = logger.proposals_
reward = (shown == y).astype(float)
target = learners["CSPA"].predict(X)
estimate = ips(shown, logger.propensities_, reward, target)
low, high = estimate.interval(0.95)
print(f"IPS estimate of CSPA's accuracy from the Banditron log: {estimate.value:.3f} "
      f"(95% interval {low:.3f} to {high:.3f}); measured with the true labels: {np.mean(target == y):.3f}")

# %%
# Banditron learns only from the rounds where its exploring draw was right, hence its slow
# start; CSPA and Confidit also learn from the rounds where the proposal was wrong.
