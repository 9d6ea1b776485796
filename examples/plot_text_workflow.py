"""
From raw texts to an end model: labeling functions on 20 Newsgroups
===================================================================

The whole workflow of programmatic weak supervision on raw texts, with no true label used
to train: write labeling functions (keywords, a regular expression, a plain function),
apply them to the posts, look at what each covers and how accurate the label model
believes it, turn the votes into probabilistic labels with a label model named in advance
(:class:`~weaklabel.sources.PrecisionVote` with its defaults), and train an end model on the
TF-IDF of the texts (a sparse matrix, never densified) that labels every post, the ones no
function votes on included. The true labels are used only to score, at the end.

It reads the staged 20 Newsgroups (``text/20news-bydate.tar.xz`` under ``WEAKLABEL_DATA``).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

from weaklabel.datasets import load_texts
from weaklabel.sources import (EndModel, MajorityVote, PrecisionVote, apply_lfs, keyword, labeling_function, regex,
                               source_summary)

groups = ["comp.graphics", "rec.autos", "sci.med", "talk.politics.guns"]
data = load_texts("20news").subset(groups)
GRAPHICS, AUTOS, MED, GUNS = range(4)


@labeling_function()
def asks_about_a_file_format(text):
    """Questions about image formats are graphics questions."""
    return GRAPHICS if any(ext in text.lower() for ext in (".gif", ".jpg", ".tiff", ".bmp")) else None


lfs = [keyword(["graphics", "polygon", "render", "3d"], GRAPHICS), keyword(["image", "images", "pixel"], GRAPHICS),
       asks_about_a_file_format,
       keyword(["car", "cars", "engine"], AUTOS), keyword(["toyota", "ford", "honda", "dealer"], AUTOS),
       keyword(["drive", "driving", "tires"], AUTOS),
       keyword(["doctor", "patients", "disease"], MED), keyword(["treatment", "symptoms", "medical"], MED),
       keyword(["pain", "drug", "diet"], MED),
       keyword(["gun", "guns", "firearms"], GUNS), regex(r"\b(nra|batf|2nd amendment|second amendment)\b", GUNS),
       keyword(["weapon", "weapons", "crime"], GUNS)]
L = {part: apply_lfs(lfs, data.texts[part]) for part in ("train", "test")}       # sparse votes, class + 1

# %%
# What each function covers and how accurate the label model believes it (no true label),
# beside its measured accuracy on the training posts (``y=``, here only to show the two):

model = PrecisionVote().fit(L["train"], n_classes=4)
summary = source_summary(L["train"], model=model, y=data.y["train"], warn=False)
summary.index = [lf.name for lf in lfs]
print(summary[["polarity", "coverage", "conflict", "accuracy_held_out", "accuracy_low", "accuracy_high",
               "accuracy_gold", "advice"]].round(3).to_string())

# %%
# The label model against majority vote on the covered test posts, and the end model
# (logistic regression on TF-IDF, trained from the label model's posteriors) on every test
# post:

covered = np.diff(L["test"].indptr) > 0
y_test = data.y["test"]
label_acc = {"majority vote": MajorityVote().fit(L["train"], n_classes=4).score(L["test"], y_test),
             "PrecisionVote": model.score(L["test"], y_test)}
vectorizer = TfidfVectorizer(min_df=2, sublinear_tf=True)
X_train = vectorizer.fit_transform(data.texts["train"])
X_test = vectorizer.transform(data.texts["test"])
end_acc = {}
for target in ("weighted", "label"):         # the posteriors as row weights (the default), or the hard labels
    end = EndModel(label_model=PrecisionVote(), estimator=LogisticRegression(C=10, max_iter=1000), target=target)
    end_acc[target] = end.fit(X_train, L["train"], n_classes=4).score(X_test, y_test)
print(f"{covered.mean():.0%} of the test posts have a vote")
for name, acc in label_acc.items():
    print(f"{name:14s} right on the covered test posts: {acc:.3f}")
for target, acc in end_acc.items():
    print(f"end model (target={target!r}) right on every test post: {acc:.3f}")

# %%
# The end model labels the posts no function votes on too, at about the label model's
# accuracy on the covered ones. Soft targets (the default) carry the label model's
# uncertainty and its class balance into the end model, and here train a better one than
# its hard labels; where a label model's class balance is off (classes whose functions
# rarely vote together lose their conflicts), hard labels can do better. Compare both on a
# few labelled posts before choosing.

fig, ax = plt.subplots(figsize=(7, 3.5))
names = ["majority vote\n(covered)", "PrecisionVote\n(covered)", "end model, soft\n(every post)",
         "end model, hard\n(every post)"]
values = [label_acc["majority vote"], label_acc["PrecisionVote"], end_acc["weighted"], end_acc["label"]]
ax.bar(names, values, color=["0.6", "C0", "C1", "C2"])
for k, v in enumerate(values):
    ax.text(k, v + 0.01, f"{v:.3f}", ha="center")
ax.set_ylim(0.5, 1.0)
ax.set_ylabel("accuracy on the test posts")
ax.set_title("Twelve labeling functions, no true label used to train")
fig.tight_layout()
plt.show()
