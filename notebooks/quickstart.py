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
# # pujax quickstart: learning from positive and unlabeled data
#
# A few confirmed positives, a large unlabeled pool: this notebook builds the papers' case-control PU split of a
# real data set, fits several pujax estimators, estimates the class prior, and differentiates through the nnPU
# risk. Runs on CPU or a Colab GPU runtime.

# %%
# In Colab: install pujax (uncomment). For a GPU runtime add the cuda extra: pip install 'pujax[cuda] @ ...'
# # !pip install -q 'pujax @ git+https://github.com/<org>/pujax'
import time
import jax
import jax.numpy as jnp
import pujax
from pujax import metrics
print(jax.devices())

# %% [markdown]
# ## Data: mushroom (bundled), case-control PU split
# `make_case_control` draws P = `n_labeled` random positives and uses *all* training rows as U, as the papers do.
# `prior` is the positive fraction of the population U comes from.

# %%
from sklearn.model_selection import train_test_split
X, y = pujax.datasets.load('mushroom')
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)
X_pu, s, prior = pujax.make_case_control(jax.random.PRNGKey(0), X_tr, y_tr, n_labeled=300)
print(X_pu.shape, 'labeled:', s.sum(), 'prior:', round(prior, 3))

# %% [markdown]
# ## Fit PU estimators and compare on the test rows

# %%
models = {
    'PU Extra Trees (nnPU, quadratic)': pujax.PUExtraTreesClassifier(n_estimators=100, prior=prior, random_state=0),
    'Ada-PU': pujax.AdaPUClassifier(n_estimators=100, prior=prior, random_state=0),
    'nnPU linear': pujax.NNPUClassifier(model='linear', prior=prior, epochs=100, random_state=0),
}
for name, m in models.items():
    t0 = time.perf_counter(); m.fit(X_pu, s); t = time.perf_counter() - t0
    pred = m.predict(X_te)
    print(f'{name:34s} acc {float(metrics.accuracy(y_te, pred)):.4f}  '
          f'F1 {float(metrics.f1_score(y_te, pred)):.4f}  AUC {float(metrics.roc_auc(y_te, m.decision_function(X_te))):.4f}  fit {t:.1f}s')

# %% [markdown]
# ## Unknown prior? Estimate it (BBE, Garg et al. 2021)

# %%
est = pujax.estimate_prior(X_pu, s, method='bbe', random_state=0)
print(est.prior, est.interval, 'true:', prior)
auto = pujax.PUExtraTreesClassifier(n_estimators=100, prior='auto', random_state=0).fit(X_pu, s)
print('prior_ =', auto.prior_, ' accuracy =', float(metrics.accuracy(y_te, auto.predict(X_te))))

# %% [markdown]
# ## Differentiable PU risks
# `pujax.risk` gives the uPU / nnPU risks as pure JAX functions; `nnpu_objective` is
# Kiryo et al.'s training rule (ordinary step when r >= -beta, otherwise the correction step on -gamma r).

# %%
from pujax.risk import nnpu_risk, upu_risk, nnpu_objective
w = jnp.zeros(X_pu.shape[1]); Xj = jnp.asarray(X_pu); sj = jnp.asarray(s)
loss = lambda w: nnpu_objective(Xj @ w, sj, prior, 'sigmoid')[0]
g = jax.grad(loss)(w)
print('nnPU risk at w=0:', float(nnpu_risk(Xj @ w, sj, prior)), ' |grad| =', float(jnp.linalg.norm(g)))
# vmap over several priors at once
print(jax.vmap(lambda p: upu_risk(Xj @ (w + 0.1), sj, p, 'sigmoid'))(jnp.array([0.3, 0.5, 0.7])))
