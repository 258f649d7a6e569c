# ---
# jupyter:
#   colab:
#     provenance: []
#   jupytext:
#     formats: ipynb,py:percent
#     notebook_metadata_filter: colab
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     name: python3
# ---

# %% [markdown]
# # PU learning on text: from raw documents to a ranked list of likely positives
#
# The setting PU learning began with (Liu et al. 2002): you know a few documents that are relevant -- here 60 posts
# of the newsgroup `sci.med` -- and you have a large pool of unlabeled documents, some relevant, most not. This
# notebook turns the raw documents into a sparse TF-IDF matrix, fits pujax's PU classifiers on it *as a sparse
# matrix* (nothing is densified), ranks the unlabeled pool by the score of each model and plots the precision of
# the top k documents, against a logistic model that treats every unlabeled document as irrelevant.
#
# Data: the 20 Newsgroups "bydate" archive (`20news-bydate.tar.gz`, read by `pujax.datasets.text`; set `PUJAX_DATA`
# to the folder holding `20newsgroups/20news-bydate.tar.gz`). Four groups keep the notebook quick.

# %%
# In Colab: install pujax (uncomment).
# # !pip install -q 'pujax @ git+https://github.com/<org>/pujax'
import time

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

import pujax
from pujax.datasets.text import load_news20_texts

# %% [markdown]
# ## Raw documents: a few known positives and an unlabeled pool
# The training documents of four groups form the pool; 60 `sci.med` posts drawn at random (a tenth of them) are the
# known positives.
# The true group of the pooled documents is used only to score the rankings at the end.

# %%
GROUPS = ("sci.med", "sci.space", "rec.autos", "comp.graphics")
texts, groups = load_news20_texts(split="train")
keep = np.isin(groups, GROUPS)
pool = [t for t, k in zip(texts, keep) if k]
relevant = groups[keep] == "sci.med"  # the truth, hidden from the learners
rng = np.random.default_rng(0)
known = rng.choice(np.flatnonzero(relevant), size=60, replace=False)
print(f"{len(pool)} documents in the pool, {relevant.sum()} of them relevant; {known.size} known positives")

# %% [markdown]
# ## Sparse TF-IDF features
# `TfidfVectorizer` gives a scipy CSR matrix with rows of unit norm. pujax's estimators that take sparse input read
# it as given (no centring, which would fill in every zero, and no per-term scaling, which would undo the IDF
# weights). The PU training set follows the papers' case-control protocol: the known positives (labeled, `s = 1`)
# followed by the whole pool (unlabeled, `s = 0`).

# %%
vec = TfidfVectorizer(sublinear_tf=True, stop_words="english", min_df=2)
X_pool = vec.fit_transform(pool)
X = sp.vstack([X_pool[known], X_pool], format="csr")
s = np.r_[np.ones(known.size, int), np.zeros(X_pool.shape[0], int)]
print(f"X: {X.shape[0]} x {X.shape[1]} terms, {X.nnz / np.prod(X.shape):.2%} non-zero, "
      f"{(X.data.nbytes + X.indices.nbytes) / 2**20:.1f} MB sparse vs {np.prod(X.shape) * 4 / 2**20:.0f} MB dense")

# %% [markdown]
# ## PU classifiers on the sparse matrix
# * the two-step **spy** method of Liu et al. (2002): some known positives hide among the unlabeled documents, the
#   documents scored below most of these "spies" are reliable negatives, then a classifier of the known positives
#   against them (for sparse input the default logistic steps balance the two classes);
# * the two-step **Rocchio** method (Liu et al. 2003): reliable negatives are the documents closer (cosine) to the
#   unlabeled centroid than to the positive one;
# * **bagging PU** (Mordelet & Vert 2014): logistic models of the known positives against random unlabeled subsets;
# * **nnPU** with a linear model (Kiryo et al. 2017), the class prior estimated from the data;
# * the **naive** reference: a logistic model of the known positives against the whole pool, as if no pooled
#   document were relevant.

# %%
models = {
    "spy (two-step)": pujax.TwoStepClassifier(negatives="spy", random_state=0),
    "Rocchio (two-step)": pujax.TwoStepClassifier(negatives="rocchio"),
    "bagging PU": pujax.PUBaggingClassifier(n_estimators=20, random_state=0),
    "nnPU linear": pujax.NNPULinearClassifier(random_state=0),
    "naive logistic": LogisticRegression(max_iter=1000),
}
scores = {}
for name, model in models.items():
    t0 = time.perf_counter()
    model.fit(X, s)
    pool_rows = X[known.size:]  # score the pool itself: the documents to rank
    score = model.decision_function(pool_rows)
    scores[name] = np.asarray(score, float)
    print(f"{name:20s} fitted in {time.perf_counter() - t0:5.1f} s")
print("estimated prior of the pool (nnPU):", round(models["nnPU linear"].prior_, 3),
      " true:", round(relevant.mean(), 3))

# %% [markdown]
# ## Ranked list of likely positives
# Rank the pool by score, leave out the 60 documents already known, and read the subject lines at the top.

# %%
unknown = np.setdiff1d(np.arange(len(pool)), known)
order = unknown[np.argsort(-scores["spy (two-step)"][unknown], kind="stable")]
for i in order[:8]:
    subject = next((line for line in pool[i].splitlines() if line.startswith("Subject:")), "Subject: ?")
    print(f"{'relevant' if relevant[i] else '--------'}  {subject[:90]}")

# %% [markdown]
# ## Precision of the top k
# The share of truly relevant documents among the k highest-scored unknown documents, for every k up to twice the
# number of relevant ones. A method that ranks well stays near 1 until k reaches the number of relevant documents.
# Under SCAR labeling the naive model's score is a monotone function of the probability of being relevant (Elkan &
# Noto 2008), so it ranks about as well: what the PU methods add is the threshold, below.

# %%
n_rel = int(relevant[unknown].sum())
ks = np.arange(1, 2 * n_rel + 1)
fig, ax = plt.subplots(figsize=(7, 4))
for name, score in scores.items():
    ranked = unknown[np.argsort(-score[unknown], kind="stable")]
    precision = np.cumsum(relevant[ranked][: ks[-1]]) / ks
    ax.plot(ks, precision, label=name, lw=2 if "naive" not in name else 1, ls="-" if "naive" not in name else "--")
    print(f"{name:20s} precision@{n_rel // 2}: {precision[n_rel // 2 - 1]:.3f}  precision@{n_rel}: "
          f"{precision[n_rel - 1]:.3f}")
ax.axvline(n_rel, color="grey", lw=0.8)
ax.set_xlabel("k (top-ranked unknown documents)")
ax.set_ylabel("precision of the top k")
ax.set_ylim(0, 1.02)
ax.legend()
ax.set_title("sci.med among 4 groups, 60 known positives")
plt.show()

# %% [markdown]
# ## Classifying new documents
# The fitted models also label unseen documents: the held-out test posts of the same four groups, with the same
# vectorizer. The naive model, trained to call the pool irrelevant, labels almost every document irrelevant; the PU
# methods place the threshold from the labeled positives (two-step), balanced bags (bagging) or the class prior
# (nnPU).

# %%
test_texts, test_groups = load_news20_texts(split="test")
t_keep = np.isin(test_groups, GROUPS)
X_test = vec.transform([t for t, k in zip(test_texts, t_keep) if k])
y_test = (test_groups[t_keep] == "sci.med").astype(int)
for name, model in models.items():
    pred = np.asarray(model.predict(X_test))
    tp = int(np.sum((pred == 1) & (y_test == 1)))
    print(f"{name:20s} accuracy {np.mean(pred == y_test):.3f}  F1 {2 * tp / (pred.sum() + y_test.sum()):.3f}")
