# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 2-HNC on 2-D toy data: nested partitions and the SelectNeg ranking
#
# Hochbaum & Nitayanont's 2-HNC solves two parametric minimum-cut problems on a kNN similarity graph. Stage 1 (HNC-) keeps the labeled positives on the source side; as the tradeoff lambda grows, the sink (negative) side grows, and the sets are **nested** (Lemma 3.1). The order in which unlabeled points join the sink side ranks them by how likely they are negative (SelectNeg). `pujax.graph` computes all 501 nested cuts exactly with a synchronous push-relabel in JAX, by parallel bisection over the lambda grid (9 warm-started solves instead of one per lambda).

# %%
# In Colab: !pip install -q git+https://github.com/<org>/pujax  (or `pip install pujax`)
import numpy as np
import matplotlib.pyplot as plt
from sklearn.datasets import make_moons
from pujax.graph.hnc import TwoHNC, default_lambdas

# %%
X, y = make_moons(n_samples=400, noise=0.08, random_state=0)
rng = np.random.default_rng(0)
pos = np.flatnonzero(y == 1)
s = np.zeros(len(y), int); s[rng.choice(pos, 60, replace=False)] = 1   # 60 labeled positives
prior = y.mean()
model = TwoHNC(prior=prior, n_neighbors=10, feature_weights=None, random_state=0).fit(X, s)
print('selected: k =', model.n_neighbors_, 'stage', model.stage_, 'lambda', model.lambda_,
      'positive fraction', round(model.positive_fraction_, 3))
U = s == 0
print('accuracy on U:', (model.transductive_labels_[U] == y[U]).mean())

# %% [markdown]
# ## Nested partitions of stage 1
#
# A point is on the sink (negative) side at lambda_q exactly when its first-sink index is <= q, so `first_sink_index_` encodes the whole nested sequence.

# %%
lams = default_lambdas()
fs = model.first_sink_index_
fig, axes = plt.subplots(1, 4, figsize=(16, 4), sharey=True)
for ax, q in zip(axes, [5, 20, 60, 200]):
    sink = fs <= q
    ax.scatter(*X[~sink].T, s=8, c='tab:blue', label='source side (positive)')
    ax.scatter(*X[sink].T, s=8, c='gold', label='sink side (negative)')
    ax.scatter(*X[s == 1].T, s=14, c='k', marker='x', label='labeled positive')
    ax.set_title(f'lambda = {lams[q]:.3f}: |sink| = {sink.sum()}')
axes[0].legend(loc='lower left', fontsize=7)
plt.show()

# %% [markdown]
# ## Positive fraction along the two parametric paths
#
# `path_fractions_` holds |S| / |V| for every lambda of stage 1 (HNC-, the positive side shrinks as lambda grows) and stage 2 (HNC+ seeded with L+ and the likely negatives LN, the positive side grows). 2-HNC returns the partition, over both paths, whose positive fraction is closest to the prior pi (§4.1.3).

# %%
fr = model.path_fractions_
plt.figure(figsize=(7, 3.5))
plt.plot(lams, fr[0], label='stage 1 (HNC-)')
plt.plot(lams, fr[1], label='stage 2 (HNC+)')
plt.axhline(prior, color='k', ls='--', lw=1, label='prior pi')
plt.scatter([model.lambda_], [model.positive_fraction_], c='r', zorder=3, label=f'selected (stage {model.stage_})')
plt.xlabel('lambda'); plt.ylabel('|S| / |V|'); plt.legend(); plt.show()

# %% [markdown]
# ## SelectNeg ranking
#
# `ranking_` lists the unlabeled rows from most to least likely negative; the first (1 - pi)/pi |L+| of them are the likely negatives LN that seed stage 2 (HNC+).

# %%
rank = np.empty(len(y)); rank[:] = np.nan
rank[model.ranking_] = np.arange(model.ranking_.size)
fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.5))
sc = a1.scatter(*X[U].T, c=rank[U], cmap='viridis_r', s=12)
a1.scatter(*X[s == 1].T, s=14, c='k', marker='x')
a1.scatter(*X[model.likely_negatives_].T, s=40, facecolors='none', edgecolors='r', label='LN')
a1.legend(); a1.set_title('SelectNeg rank (dark = most likely negative)'); plt.colorbar(sc, ax=a1)
a2.scatter(*X.T, c=model.transductive_labels_, cmap='coolwarm', s=10)
a2.set_title('final 2-HNC partition (red = positive)')
plt.show()
print('precision of LN (true negatives among LN):', (y[model.likely_negatives_] == 0).mean())

# %% [markdown]
# ## Inductive prediction
#
# Unseen points take the side that changes the selected cut objective least.

# %%
xx, yy = np.meshgrid(np.linspace(-1.5, 2.5, 120), np.linspace(-1, 1.5, 90))
grid = np.c_[xx.ravel(), yy.ravel()].astype(np.float32)
p = model.predict_proba(grid)[:, 1].reshape(xx.shape)
plt.contourf(xx, yy, p, levels=20, cmap='coolwarm', alpha=0.6)
plt.scatter(*X.T, c=y, cmap='coolwarm', s=6, edgecolors='k', linewidths=0.2)
plt.title('predict_proba of unseen points'); plt.show()
