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
# # FSCPU: PU feature selection under the cluster assumption
#
# Uchikoshi & Akimoto (2025), *Feature selection based on cluster assumption in PU learning*. FSCPU scores a feature mask by clustering all rows on the selected features (Gaussian mixture, K = 10) and taking the best recall x precision of *labeled vs not* over unions of clusters (eq. 5, prefix rule of Prop. 4.1); masks are searched with an IGO / compact GA under a feature budget (Algorithms 2-3). In pujax the mixture EM is masked and `vmap`-ed over candidate masks and the whole search is one `lax.scan`, so a search of T = 3000 steps takes minutes on a CPU instead of the paper's hours.

# %%
# Colab: install pujax first
# # !pip install -q git+https://github.com/<owner>/pujax.git

# %%
import numpy as np
import matplotlib.pyplot as plt
from pujax.feature_selection import FSCPU, make_fscpu_synthetic, feature_selection_recall, TABLE1_CONDITIONS

# %% [markdown]
# ## The paper's artificial data (section 5.2.1)
# 25 relevant features (8 negative clusters, 1 positive cluster) and 25 irrelevant ones; 40 % of the positives labeled. Lower `N_ITER` for a quicker run (the paper uses 3000).

# %%
c = TABLE1_CONDITIONS[0]
X, y, s, relevant = make_fscpu_synthetic(c.cluster_assumption, c.labeled_rate, c.n_negative_clusters,
                                         c.n_positive_clusters, random_state=0)
print(X.shape, 'positives:', y.sum(), 'labeled:', s.sum())
N_ITER = 1000
sel = FSCPU(n_features_to_select=25, n_iter=N_ITER, random_state=0, verbose=True).fit(X, s)
print('FSR =', feature_selection_recall(sel.get_support(), relevant), '(paper, T = 3000:', c.paper_fscpu, ')')

# %% [markdown]
# ## Convergence of theta (the paper's Figure 1): relevant features red, irrelevant blue

# %%
rel = np.zeros(X.shape[1], bool); rel[relevant] = True
plt.figure(figsize=(7, 3.5))
plt.plot(sel.history_[:, ~rel], color='tab:blue', lw=0.6, alpha=0.6)
plt.plot(sel.history_[:, rel], color='tab:red', lw=0.6, alpha=0.6)
plt.xlabel('step'); plt.ylabel('theta'); plt.ylim(0, 1); plt.show()

# %% [markdown]
# ## Several searches at once, more candidates per step
# `n_searches` runs independent searches in one vmapped scan (`scores_` averages their final theta); `n_candidates > 2` uses the rank-based IGO update.

# %%
sel4 = FSCPU(25, n_iter=300, n_searches=4, n_candidates=4, random_state=1).fit(X, s)
print(sel4.thetas_.shape, 'FSR of the averaged theta:', feature_selection_recall(sel4.get_support(), relevant))

# %% [markdown]
# ## Use it in a scikit-learn pipeline
# `FSCPU` is a scikit-learn feature selector: `fit(X, s)` with PU labels, then `transform`.

# %%
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import roc_auc_score
Xs = sel.transform(X)
clf = HistGradientBoostingClassifier(max_iter=100).fit(Xs, s)
print('AUC (true labels, training rows):', roc_auc_score(y, clf.predict_proba(Xs)[:, 1]))
