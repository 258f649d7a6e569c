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
#     name: python3
# ---

# %% [markdown]
# # PU Extra Trees with pujax
#
# Wilton et al., *Positive-Unlabeled Learning using Random Forests via Recursive Greedy Risk Minimization* (NeurIPS 2022). A PU decision tree picks, at every node, the split with the largest reduction of a PU risk estimate; the minimal risk of a constant prediction on a node has a closed form in the node weights W_p = |P'| π/n_p and W_n = |U'|/n_u − W_p (Prop. 1-2), so the splitting criterion is as cheap as Gini. PU Extra Trees grows 100 such trees with random features (⌈√d⌉) and one random threshold each.
#
# pujax grows all trees of a forest level by level together on uint8-binned features, with one jit-compiled histogram kernel per level. This notebook fits PU ET on MNIST (even vs odd digits, 1000 labeled even digits) and draws the risk-reduction importance maps of the paper's Figure 2 for PU ET (nnPU, quadratic loss) and for supervised ET (PN, Gini).

# %%
# Colab: install pujax first
# # !pip install -q git+https://github.com/<owner>/pujax.git

# %%
import os
import time
import numpy as np
import matplotlib.pyplot as plt
from pujax.datasets import load
from pujax.trees import PUExtraTreesClassifier, SupervisedET, NaivePUET
DATA = os.environ.get('PUJAX_DATA', '../../shared/data')  # folder with mnist/mnist.npz

# %% [markdown]
# ## Data: the case-control protocol of the paper
# P = 1000 random even digits of the training set, U = all 60,000 training images, π = fraction of even digits in the training set. Pixels stay raw (0..255): trees do not need scaling.

# %%
Xtr, ytr = load('mnist', data_dir=DATA, split='train')
Xte, yte = load('mnist', data_dir=DATA, split='test')
rng = np.random.default_rng(0)
P = Xtr[rng.choice(np.flatnonzero(ytr == 1), 1000, replace=False)]
X_pu = np.concatenate([P, Xtr]); s = np.r_[np.ones(1000), np.zeros(len(Xtr))]
prior = ytr.mean()
print(X_pu.shape, f'prior {prior:.3f}')

# %% [markdown]
# ## PU ET (nnPU, quadratic loss) vs supervised ET and the naive baseline

# %%
t0 = time.perf_counter()
puet = PUExtraTreesClassifier(n_estimators=100, prior=prior, random_state=0).fit(X_pu, s)
print(f'PU ET: fit {time.perf_counter() - t0:.1f} s, test accuracy {puet.score(Xte, yte):.4f} '
      f'(paper 0.9360), {puet.get_n_leaves().mean():.0f} leaves per tree')
pnet = SupervisedET(n_estimators=100, random_state=0).fit(Xtr, ytr)
print(f'Supervised ET (all 60k labels): {pnet.score(Xte, yte):.4f} (paper 0.9811)')
naive = NaivePUET(n_estimators=20, random_state=0).fit(X_pu, s)
print(f'Naive PU ET (U as negative): {naive.score(Xte, yte):.4f} (paper 0.5074)')

# %% [markdown]
# ## Risk-reduction importance maps (paper Figure 2)
# `risk_reduction_importances_` sums, per feature, the risk reductions of every split on it and averages over trees (§4). Lighter pixels reduce the risk more. Like the paper, PU ET and PN ET importances look alike: the PU model focuses on the same strokes as the supervised one. The normalised variant divides each reduction by its node's weight, which spreads importance over many more pixels.

# %%
maps = {'PU ET (nnPU, quadratic)': puet.risk_reduction_importances_,
        'PN ET (Gini)': pnet.risk_reduction_importances_,
        'PU ET, normalised by node weight': puet.normalized_risk_reduction_importances_}
fig, axes = plt.subplots(1, 3, figsize=(12, 4))
for ax, (title, imp) in zip(axes, maps.items()):
    ax.imshow(imp.reshape(28, 28), cmap='gray'); ax.set_title(title, fontsize=10); ax.axis('off')
plt.tight_layout(); plt.show()
a, b = puet.feature_importances_, pnet.feature_importances_
print('correlation of PU and PN importance maps:', np.corrcoef(a, b)[0, 1].round(3))

# %% [markdown]
# ## Per digit
# The paper's Figure 2 shows one map per digit: here a PU ET per digit d, with P = 1000 images of d and U = all training images (π = fraction of d), next to a supervised ET of d vs rest.

# %%
digits = np.load(os.path.join(DATA, 'mnist', 'mnist.npz'))['y_train']
fig, axes = plt.subplots(2, 10, figsize=(16, 3.6))
for digit in range(10):
    y_d = (digits == digit).astype(int)
    idx = rng.choice(np.flatnonzero(y_d == 1), 1000, replace=False)
    Xd = np.concatenate([Xtr[idx], Xtr]); sd = np.r_[np.ones(1000), np.zeros(len(Xtr))]
    pu_d = PUExtraTreesClassifier(n_estimators=20, prior=y_d.mean(), random_state=digit).fit(Xd, sd)
    pn_d = SupervisedET(n_estimators=20, random_state=digit).fit(Xtr, y_d)
    for row, model in enumerate((pu_d, pn_d)):
        axes[row, digit].imshow(model.risk_reduction_importances_.reshape(28, 28), cmap='gray')
        axes[row, digit].axis('off')
    axes[0, digit].set_title(str(digit))
axes[0, 0].text(-12, 14, 'PU ET', rotation=90, va='center'); axes[1, 0].text(-12, 14, 'PN ET', rotation=90, va='center')
plt.tight_layout(); plt.show()

# %% [markdown]
# ## Risk estimator and loss (paper Table 2)
# uPU can drive node risks to −∞ (quadratic loss: a node without unlabeled rows), so uPU trees overfit; nnPU clips the negative part at 0 and works with either loss.

# %%
for risk in ('upu', 'nnpu'):
    for loss in ('quadratic', 'logistic'):
        m = PUExtraTreesClassifier(n_estimators=20, risk=risk, loss=loss, prior=prior, random_state=0)
        print(f'{risk:5s} {loss:9s} accuracy {m.fit(X_pu, s).score(Xte, yte):.4f}')
