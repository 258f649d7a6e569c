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
# # Ada-PU: boosting from positive and unlabeled data with pujax
#
# Zhao et al., *A Boosting Algorithm for Positive-Unlabeled Learning*. Ada-PU is AdaBoost with decision stumps where each labeled positive is kept twice, as a positive (weight π/n_p) and as a negative (weight −π/n_p), next to the unlabeled rows taken as negatives (1/n_u) (eq. 7). Every round scores all features × random thresholds × both directions by the PU error of eq. (8), skips stumps with ε ≥ ½ or a negative negative-class part, weights the chosen stump by α = β·½ ln((1−ε)/ε) (eq. 9) and updates the three weight sets (eq. 12).
#
# In pujax the whole boosting loop is one `lax.scan` and the stump scoring is one vectorised computation, so 100 rounds on 66k rows × 190 features take seconds, and `adapu_fit_many` fits several seeds in one vmapped call. This notebook draws accuracy-vs-rounds curves in the style of the paper's Figures 1-2 and 5.

# %%
# Colab: install pujax first
# # !pip install -q git+https://github.com/<owner>/pujax.git

# %%
import os
import numpy as np
import matplotlib.pyplot as plt
import jax
from sklearn.ensemble import AdaBoostClassifier, GradientBoostingClassifier
from sklearn.tree import DecisionTreeClassifier
from pujax.datasets import load
from pujax.boosting import AdaPUClassifier, adapu_fit_many, adapu_staged_decision_function

# %% [markdown]
# ## Breast cancer, the reference protocol
# scikit-learn's copy (no download): positive = benign, train = the first 455 rows, test = the last 114. P = 10 random benign training rows, U = all 455 training rows, π = benign fraction of the training rows (0.59, the paper's value).

# %%
Xtr, ytr = load('breast_cancer', split='train'); Xte, yte = load('breast_cancer', split='test')
prior = ytr.mean()
def pu_set(seed, n_p=10):
    rng = np.random.default_rng(seed)
    P = Xtr[rng.choice(np.flatnonzero(ytr == 1), n_p, replace=False)]
    return np.concatenate([P, Xtr]), np.r_[np.ones(n_p), np.zeros(len(Xtr))]
print(Xtr.shape, Xte.shape, f'prior {prior:.3f}, test positives {yte.mean():.3f}')


# %% [markdown]
# ### Accuracy vs number of stumps for several learning rates β (cf. Figures 1 and 5)
# `staged_decision_function` gives Σ_{s≤t} α_s h_s(x) after every round. Five seeds per β (P sample and thresholds).

# %%
def staged_acc(clf, X, y, T=100):
    acc = [np.mean((F > 0) == y) for F in clf.staged_decision_function(X)]
    return np.array(acc + [acc[-1]] * (T - len(acc)))  # a run stopped early keeps its last model
curves = {}
for beta in [0.01, 0.1, 1.0]:
    runs = []
    for seed in range(5):
        X, s = pu_set(seed)
        clf = AdaPUClassifier(n_estimators=100, learning_rate=beta, prior=prior, random_state=seed).fit(X, s)
        runs.append(staged_acc(clf, Xte, yte))
    curves[f'Ada-PU β={beta}'] = np.array(runs)
    print(f'β={beta}: final accuracy {100 * np.mean(runs, 0)[-1]:.2f} %')

# %% [markdown]
# ### PN boosting baselines (§5.2.2)
# The paper trains scikit-learn AdaBoost and gradient boosting with 100 stumps on the same 10 positives plus n_n = (π_n / 2π_p)² n_p negatives — a single negative here.

# %%
n_n = max(1, int(((1 - prior) / (2 * prior)) ** 2 * 10))
for name, make in [('AdaBoost (PN)', lambda s: AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=100, random_state=s)),
                   ('GBDT (PN)', lambda s: GradientBoostingClassifier(n_estimators=100, max_depth=1, random_state=s))]:
    runs = []
    for seed in range(5):
        rng = np.random.default_rng(1000 + seed)
        idx = np.r_[rng.choice(np.flatnonzero(ytr == 1), 10, replace=False), rng.choice(np.flatnonzero(ytr == 0), n_n, replace=False)]
        m = make(seed).fit(Xtr[idx], ytr[idx])
        acc = [np.mean(p == yte) for p in m.staged_predict(Xte)]
        runs.append(acc + [acc[-1]] * (100 - len(acc)))
    curves[name] = np.array(runs)
    print(f'{name}: final accuracy {100 * np.mean(runs, 0)[-1]:.2f} %')

# %%
fig, ax = plt.subplots(figsize=(7, 4.5))
t = np.arange(1, 101)
for name, c in curves.items():
    m, sd = 100 * c.mean(0), 100 * c.std(0)
    ax.plot(t, m, label=name); ax.fill_between(t, m - sd, m + sd, alpha=0.2)
ax.axhline(100 * yte.mean(), color='gray', ls=':', label='all positive')
ax.set(xlabel='number of weak classifiers', ylabel='test accuracy (%)', title='BreastCancer (mean ± std, 5 runs)')
ax.legend(); plt.show()

# %% [markdown]
# Small β (shrinkage) matters: with β = 1 the PU estimate of the negative-class weight mass collapses within a few rounds (the estimated error is a difference of nearly equal masses) and the ensemble drifts to predicting everything positive, while β = 0.01 keeps improving. The paper tunes β per data set (§5.6.2).

# %% [markdown]
# ## Many seeds in one call: the functional core under `vmap`
# `adapu_fit_many(keys, X, s, prior, β)` runs the whole boosting scan for a batch of PRNG keys at once (here: random thresholds differ per key, the data are shared).

# %%
X, s = pu_set(0)
keys = jax.random.split(jax.random.PRNGKey(0), 8)
models = adapu_fit_many(keys, X, s, prior, 0.01, n_estimators=100)
F = jax.vmap(adapu_staged_decision_function, in_axes=(0, None))(models, Xte)  # (8 seeds, 100 rounds, n_test)
acc = np.mean((np.asarray(F) > 0) == yte, axis=-1)
plt.plot(np.arange(1, 101), 100 * acc.T, color='C0', alpha=0.4)
plt.xlabel('round'); plt.ylabel('test accuracy (%)'); plt.title('8 seeds fitted in one vmapped call'); plt.show()
print('final accuracy per seed:', np.round(100 * acc[:, -1], 1))

# %% [markdown]
# ## Which features do the stumps use?
# `feature_importances_` = Σ α_t over the rounds that split on a feature, normalised.

# %%
from sklearn.datasets import load_breast_cancer
names = load_breast_cancer().feature_names
X, s = pu_set(0)
clf = AdaPUClassifier(n_estimators=100, learning_rate=0.01, prior=prior, random_state=0).fit(X, s)
imp = clf.feature_importances_; top = np.argsort(imp)[::-1][:10]
plt.barh([names[i] for i in top][::-1], imp[top][::-1]); plt.xlabel('importance'); plt.show()

# %% [markdown]
# ## UNSW-NB15 (intrusion detection)
# The 82,332-row file (set `PUJAX_DATA` to the folder holding `unsw_nb15/UNSW_NB15_training-set.zip`), one-hot categorical columns (190 features), positive = attack; 80/20 split, P = 1,000 training attacks, U = all 65,865 training rows. Skipped when the file is missing.

# %%
import time
try:
    Xu, yu = load('unsw_nb15', data_dir=os.environ.get('PUJAX_DATA', '../../shared/data'))
except FileNotFoundError as e:
    Xu = None; print(e)
if Xu is not None:
    rng = np.random.default_rng(0); perm = rng.permutation(len(yu)); n_tr = int(0.8 * len(yu))
    Xa, ya, Xb, yb = Xu[perm[:n_tr]], yu[perm[:n_tr]], Xu[perm[n_tr:]], yu[perm[n_tr:]]
    P = Xa[rng.choice(np.flatnonzero(ya == 1), 1000, replace=False)]
    X, s = np.concatenate([P, Xa]), np.r_[np.ones(1000), np.zeros(len(Xa))]
    for beta in [0.1, 1.0]:
        t0 = time.perf_counter()
        clf = AdaPUClassifier(n_estimators=100, learning_rate=beta, prior=ya.mean(), random_state=0).fit(X, s)
        acc = staged_acc(clf, Xb, yb)
        print(f'β={beta}: {clf.n_estimators_} rounds in {time.perf_counter() - t0:.1f}s (incl. compile), final accuracy {100 * acc[-1]:.2f} %')
        plt.plot(np.arange(1, 101), 100 * acc, label=f'Ada-PU β={beta}')
    plt.axhline(100 * yb.mean(), color='gray', ls=':', label='all positive')
    plt.xlabel('number of weak classifiers'); plt.ylabel('test accuracy (%)'); plt.title('UNSW-NB15'); plt.legend(); plt.show()
