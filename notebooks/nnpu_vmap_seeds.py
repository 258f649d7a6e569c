# ---
# jupyter:
#   accelerator: GPU
#   jupytext:
#     formats: ipynb,py:percent
#     notebook_metadata_filter: accelerator
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
# # nnPU vs uPU on MNIST: 8 seeds trained at once with `vmap`
#
# Reproduces the MNIST panel of Kiryo et al. (2017), Figure 2: mean ± sd test error per epoch of a d-300-300-300-300-1 MLP trained with the unbiased (uPU) and the non-negative (nnPU) risk. `NNPUClassifier(n_seeds=8)` trains the 8 seeds (different initialisations and minibatch orders) as **one** jit-compiled, `vmap`-ped program; the per-epoch test error is computed inside that program (`eval_set=`).
#
# Setup (as the paper): P = 1000 random even digits, U = all 60,000 training images, prior = fraction of even digits, pixels / 255, sigmoid loss, Adam lr 1e-3 with coupled weight decay 5e-3, batch 30000, 100 epochs. On a Colab GPU this takes a few minutes; on a laptop CPU lower `EPOCHS`.

# %%
# In Colab (Runtime > Change runtime type > GPU), install pujax and the CUDA build of jax first:
# # !pip install -q "jax[cuda12]" git+https://github.com/pujax/pujax.git
# (or `pip install pujax` once released). Locally: pip install -e .[bench]

# %%
import os
import time
import urllib.request
import numpy as np
import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
from pujax.neural import NNPUClassifier, fit_many
from pujax.datasets import load
print(jax.devices())
ON_GPU = jax.devices()[0].platform == 'gpu'
EPOCHS = 100 if ON_GPU else 3      # 100 as the paper; a CPU needs ~10 s per seed and epoch
N_SEEDS = 8 if ON_GPU else 2

# %% [markdown]
# ## Data
# `pujax.datasets.load('mnist')` reads `<data_dir>/mnist/mnist.npz` (positive = even digits). In Colab, download the file first.

# %%
DATA = os.environ.get('PUJAX_DATA', 'data')
path = os.path.join(DATA, 'mnist', 'mnist.npz')
if not os.path.exists(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    urllib.request.urlretrieve('https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz', path)
X, y = load('mnist', data_dir=DATA, split='train')
X_test, y_test = load('mnist', data_dir=DATA, split='test')
X, X_test = X / 255.0, X_test / 255.0
rng = np.random.default_rng(0)
pos = rng.choice(np.flatnonzero(y == 1), 1000, replace=False)
X_pu = np.concatenate([X[pos], X])                     # P ∪ U (U contains copies of P, as the paper)
s = np.r_[np.ones(1000, int), np.zeros(len(X), int)]   # 1 = labeled positive, 0 = unlabeled
prior = float(y.mean())
print(X_pu.shape, 'prior', round(prior, 4))

# %% [markdown]
# ## Train 8 seeds of nnPU and of uPU (one compiled program each)
# With the CPU settings (3 epochs, 2 seeds) the unlabeled risk has not gone negative yet, so the non-negative correction never fires and uPU and nnPU give the same networks; the two curves part after a few tens of epochs (GPU settings: 100 epochs, 8 seeds).

# %%
fits = {}
for risk in ('upu', 'nnpu'):
    clf = NNPUClassifier(risk=risk, prior=prior, n_seeds=N_SEEDS, epochs=EPOCHS, random_state=0)
    t0 = time.perf_counter()
    clf.fit(X_pu, s, eval_set=(X_test, y_test))
    fits[risk] = clf
    acc = 100 * (1 - clf.history_['test_error'][:, -1])
    print(f'{risk}: {time.perf_counter() - t0:.0f} s; per-seed test accuracy {np.round(acc, 2)}; '
          f'mean-score ensemble {100 * clf.score(X_test, y_test):.2f}')

# %% [markdown]
# ## Figure 2 of Kiryo et al.: training risk and test error per epoch (mean ± sd over seeds)
# uPU's training risk goes negative and its test error rises (overfitting); nnPU stays non-negative.

# %%
fig, ax = plt.subplots(1, 2, figsize=(11, 4))
for risk, clf in fits.items():
    ep = np.arange(1, clf.n_iter_ + 1)
    for a, key in zip(ax, ('risk', 'test_error')):
        h = clf.history_[key]
        m, sd = h.mean(0), h.std(0)
        a.plot(ep, m, label=risk)
        a.fill_between(ep, m - sd, m + sd, alpha=0.3)
ax[0].set(title='training risk (surrogate loss)', xlabel='epoch')
ax[1].set(title='test error (zero-one)', xlabel='epoch')
for a in ax: a.legend()
plt.tight_layout(); plt.show()

# %% [markdown]
# ## Each seed stays available
# `seed_variables(i)` returns the flax variables of seed i; `seed_decision_function` the scores of every seed.

# %%
clf = fits['nnpu']
v0 = clf.seed_variables(0)
g0 = clf.module_.apply(v0, jnp.asarray(X_test[:5]), train=False)
print(np.asarray(g0), clf.seed_decision_function(X_test[:5])[0])

# %% [markdown]
# ## The functional core
# `fit_many(keys, X, s, prior, ...)` is `train` vmapped over PRNG keys; its outputs carry a leading seed axis.

# %%
keys = jax.random.split(jax.random.PRNGKey(1), N_SEEDS)
variables, hist = fit_many(keys, X_pu, s, prior, epochs=1, X_eval=X_test, y_eval=y_test)
print(jax.tree.map(jnp.shape, variables['params']['dense_0']), hist['test_error'].shape)
