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
# # Using the nnPU objective in your own optax loop
#
# `pujax.risk` exposes the PU risks as plain differentiable JAX functions of a score vector (`upu_risk`, `nnpu_risk`, `pu_risk_parts`) and the nnPU *training rule* of Kiryo et al. (2017, Algorithm 1) as `nnpu_objective(scores, s, prior, loss, beta, gamma) -> (surrogate, risk)`: with r = R_u^- − π R_p^-,
#
# * if r ≥ −β: `surrogate = π R_p^+ + r` (ordinary descent on the risk),
# * else: `surrogate = −γ r` (the correction step that pushes r back up).
#
# `jax.grad(surrogate)` is the rule's step direction; `risk` is the nnPU risk value for logging. Note that `jax.grad(nnpu_risk)` alone is *not* the nnPU rule: when r < 0 the max(0, r) term has zero gradient and nothing pushes r back up.

# %%
# In Colab (Runtime > Change runtime type > GPU), install pujax and the CUDA build of jax first:
# # !pip install -q "jax[cuda12]" git+https://github.com/pujax/pujax.git
# (or `pip install pujax` once released). Locally: pip install -e .[bench]

# %%
import numpy as np
import jax
import jax.numpy as jnp
import optax
import flax.linen as nn
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler
from pujax.risk import nnpu_objective, nnpu_risk, pu_risk_parts, upu_risk

# %% [markdown]
# ## PU data (case-control): 60 labeled positives, U = all rows

# %%
X, y = load_breast_cancer(return_X_y=True)
X = StandardScaler().fit_transform(X).astype(np.float32)
rng = np.random.default_rng(0)
pos = rng.choice(np.flatnonzero(y == 1), 60, replace=False)
X_pu = jnp.asarray(np.concatenate([X[pos], X]))
s = jnp.asarray(np.r_[np.ones(60, int), np.zeros(len(X), int)])
prior = float(y.mean())
print(X_pu.shape, 'prior', round(prior, 3))


# %% [markdown]
# ## Any flax model, any optax optimiser

# %%
class Net(nn.Module):
    @nn.compact
    def __call__(self, x):
        h = nn.relu(nn.Dense(64)(x))
        h = nn.relu(nn.Dense(64)(h))
        return nn.Dense(1)(h)[:, 0]

model = Net()
params = model.init(jax.random.PRNGKey(0), X_pu[:1])['params']
# Adam with coupled L2 weight decay, as Kiryo et al. (wd * param added to the gradient before Adam)
opt = optax.chain(optax.add_decayed_weights(5e-3), optax.adam(1e-3))
opt_state = opt.init(params)


# %% [markdown]
# ## The loss: `nnpu_objective` (includes the correction step)

# %%
def loss_fn(params, xb, sb, beta=0.0, gamma=1.0):
    scores = model.apply({'params': params}, xb)
    surrogate, risk = nnpu_objective(scores, sb, prior, 'sigmoid', beta, gamma)
    _, r_u, r_p = pu_risk_parts(scores, sb, prior, 'sigmoid')
    return surrogate, {'risk': risk, 'r': r_u - r_p}

@jax.jit
def step(params, opt_state, xb, sb):
    (_, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, xb, sb)
    updates, opt_state = opt.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, aux

key = jax.random.PRNGKey(1)
n, batch = X_pu.shape[0], 64
corrections = 0
for epoch in range(60):
    key, sub = jax.random.split(key)
    perm = jax.random.permutation(sub, n)
    for i in range(n // batch):
        idx = perm[i * batch:(i + 1) * batch]
        params, opt_state, aux = step(params, opt_state, X_pu[idx], s[idx])
        corrections += int(aux['r'] < 0)
    if epoch % 10 == 9:
        g = model.apply({'params': params}, jnp.asarray(X))
        acc = float(jnp.mean((g > 0) == (y == 1)))
        print(f'epoch {epoch + 1}: nnPU risk {float(aux["risk"]):.4f}, accuracy on the true labels '
              f'{acc:.3f}, correction steps so far {corrections}')

# %% [markdown]
# ## `jax.grad` through the nnPU risk, checked against finite differences
# The partial risks are smooth in the scores (sigmoid loss), so `jax.grad` matches central differences; in float64 the agreement is to ~1e-9.

# %%
with jax.enable_x64(True):
    g = jnp.asarray(np.random.default_rng(2).normal(size=40))
    ss = jnp.asarray(np.r_[np.ones(10, int), np.zeros(30, int)])
    f = lambda g: nnpu_risk(g, ss, 0.4)
    grad = jax.grad(f)(g)
    eps = 1e-6
    fd = jnp.array([(f(g.at[i].add(eps)) - f(g.at[i].add(-eps))) / (2 * eps) for i in range(g.size)])
    print('max |grad - finite difference| =', float(jnp.max(jnp.abs(grad - fd))))

# %% [markdown]
# ## The correction step, explicitly
# When r < −β the gradient of the surrogate is −γ ∇r: the step *increases* r. Below, scores that make r negative (positives scored high, unlabeled scored low — typical overfitting of uPU):

# %%
g = jnp.concatenate([jnp.full(10, 4.0), jnp.full(30, -4.0)])
ss = jnp.asarray(np.r_[np.ones(10, int), np.zeros(30, int)])
a, b, c = pu_risk_parts(g, ss, 0.4)
r = b - c
print('r =', float(r))
sur_grad = jax.grad(lambda g: nnpu_objective(g, ss, 0.4, beta=0.0, gamma=1.0)[0])(g)
r_grad = jax.grad(lambda g: (lambda p: p[1] - p[2])(pu_risk_parts(g, ss, 0.4)))(g)
print('grad(surrogate) == -gamma * grad(r):', bool(jnp.allclose(sur_grad, -r_grad)))
# with beta large enough (beta >= -r) the ordinary step is taken; beta = inf is exactly uPU
up_grad = jax.grad(lambda g: upu_risk(g, ss, 0.4))(g)
inf_grad = jax.grad(lambda g: nnpu_objective(g, ss, 0.4, beta=jnp.inf)[0])(g)
print('beta = inf gives the uPU gradient:', bool(jnp.allclose(up_grad, inf_grad)))

# %% [markdown]
# ## Or let pujax run the loop
# `pujax.neural.loss_and_grad` / `train_step` are the same rule on a flax model (with BatchNorm state); `pujax.neural.train` and `fit_many` compile whole runs, and `NNPUClassifier` wraps them for scikit-learn.

# %%
from pujax.neural import NNPUClassifier
clf = NNPUClassifier(model='mlp', model_kwargs={'hidden_sizes': (64, 64)}, epochs=60, batch_size=64,
                     prior=prior, n_seeds=4, random_state=0).fit(np.asarray(X_pu), np.asarray(s))
print('accuracy of the 4-seed mean score on the true labels:', round(clf.score(X, y), 3))
