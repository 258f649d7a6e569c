"""Build notebooks/nnpu_vmap_seeds.ipynb and notebooks/grad_through_nnpu.ipynb with nbformat.

Run ``python notebooks/build_neural_notebooks.py`` (then optionally execute them with
``jupyter nbconvert --to notebook --execute --inplace notebooks/<name>.ipynb``).
"""
import pathlib

import nbformat as nbf

HERE = pathlib.Path(__file__).resolve().parent

INSTALL = """# In Colab (Runtime > Change runtime type > GPU), install pujax and the CUDA build of jax first:
# !pip install -q "jax[cuda12]" git+https://github.com/pujax/pujax.git
# (or `pip install pujax` once released). Locally: pip install -e .[bench]"""


def md(text):
    return nbf.v4.new_markdown_cell(text)


def code(text):
    return nbf.v4.new_code_cell(text)


def vmap_seeds():
    cells = [
        md("# nnPU vs uPU on MNIST: 8 seeds trained at once with `vmap`\n\n"
           "Reproduces the MNIST panel of Kiryo et al. (2017), Figure 2: mean ± sd test error per epoch of a "
           "d-300-300-300-300-1 MLP trained with the unbiased (uPU) and the non-negative (nnPU) risk. "
           "`NNPUClassifier(n_seeds=8)` trains the 8 seeds (different initialisations and minibatch orders) as "
           "**one** jit-compiled, `vmap`-ped program; the per-epoch test error is computed inside that program "
           "(`eval_set=`).\n\nSetup (as the paper): P = 1000 random even digits, U = all 60,000 training images, "
           "prior = fraction of even digits, pixels / 255, sigmoid loss, Adam lr 1e-3 with coupled weight decay "
           "5e-3, batch 30000, 100 epochs. On a Colab GPU this takes a few minutes; on a laptop CPU lower `EPOCHS`."),
        code(INSTALL),
        code("import os, time, urllib.request\nimport numpy as np\nimport jax, jax.numpy as jnp\n"
             "import matplotlib.pyplot as plt\nfrom pujax.neural import NNPUClassifier, fit_many\n"
             "from pujax.datasets import load\nprint(jax.devices())\n"
             "ON_GPU = jax.devices()[0].platform == 'gpu'\n"
             "EPOCHS = 100 if ON_GPU else 3      # 100 as the paper; a CPU needs ~10 s per seed and epoch\n"
             "N_SEEDS = 8 if ON_GPU else 2"),
        md("## Data\n`pujax.datasets.load('mnist')` reads `<data_dir>/mnist/mnist.npz` (positive = even digits). "
           "In Colab, download the file first."),
        code("DATA = os.environ.get('PUJAX_DATA', 'data')\n"
             "path = os.path.join(DATA, 'mnist', 'mnist.npz')\n"
             "if not os.path.exists(path):\n"
             "    os.makedirs(os.path.dirname(path), exist_ok=True)\n"
             "    urllib.request.urlretrieve('https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz', path)\n"
             "X, y = load('mnist', data_dir=DATA, split='train')\n"
             "X_test, y_test = load('mnist', data_dir=DATA, split='test')\n"
             "X, X_test = X / 255.0, X_test / 255.0\n"
             "rng = np.random.default_rng(0)\n"
             "pos = rng.choice(np.flatnonzero(y == 1), 1000, replace=False)\n"
             "X_pu = np.concatenate([X[pos], X])                     # P ∪ U (U contains copies of P, as the paper)\n"
             "s = np.r_[np.ones(1000, int), np.zeros(len(X), int)]   # 1 = labeled positive, 0 = unlabeled\n"
             "prior = float(y.mean())\nprint(X_pu.shape, 'prior', round(prior, 4))"),
        md("## Train 8 seeds of nnPU and of uPU (one compiled program each)\n"
           "With the CPU settings (3 epochs, 2 seeds) the unlabeled risk has not gone negative yet, so the "
           "non-negative correction never fires and uPU and nnPU give the same networks; the two curves part "
           "after a few tens of epochs (GPU settings: 100 epochs, 8 seeds)."),
        code("fits = {}\nfor risk in ('upu', 'nnpu'):\n"
             "    clf = NNPUClassifier(risk=risk, prior=prior, n_seeds=N_SEEDS, epochs=EPOCHS, random_state=0)\n"
             "    t0 = time.perf_counter()\n"
             "    clf.fit(X_pu, s, eval_set=(X_test, y_test))\n"
             "    fits[risk] = clf\n"
             "    acc = 100 * (1 - clf.history_['test_error'][:, -1])\n"
             "    print(f'{risk}: {time.perf_counter() - t0:.0f} s; per-seed test accuracy {np.round(acc, 2)}; '\n"
             "          f'mean-score ensemble {100 * clf.score(X_test, y_test):.2f}')"),
        md("## Figure 2 of Kiryo et al.: training risk and test error per epoch (mean ± sd over seeds)\n"
           "uPU's training risk goes negative and its test error rises (overfitting); nnPU stays non-negative."),
        code("fig, ax = plt.subplots(1, 2, figsize=(11, 4))\n"
             "for risk, clf in fits.items():\n"
             "    ep = np.arange(1, clf.n_iter_ + 1)\n"
             "    for a, key in zip(ax, ('risk', 'test_error')):\n"
             "        h = clf.history_[key]\n"
             "        m, sd = h.mean(0), h.std(0)\n"
             "        a.plot(ep, m, label=risk)\n"
             "        a.fill_between(ep, m - sd, m + sd, alpha=0.3)\n"
             "ax[0].set(title='training risk (surrogate loss)', xlabel='epoch')\n"
             "ax[1].set(title='test error (zero-one)', xlabel='epoch')\n"
             "for a in ax: a.legend()\nplt.tight_layout(); plt.show()"),
        md("## Each seed stays available\n`seed_variables(i)` returns the flax variables of seed i; "
           "`seed_decision_function` the scores of every seed."),
        code("clf = fits['nnpu']\nv0 = clf.seed_variables(0)\n"
             "g0 = clf.module_.apply(v0, jnp.asarray(X_test[:5]), train=False)\n"
             "print(np.asarray(g0), clf.seed_decision_function(X_test[:5])[0])"),
        md("## The functional core\n`fit_many(keys, X, s, prior, ...)` is `train` vmapped over PRNG keys; its "
           "outputs carry a leading seed axis."),
        code("keys = jax.random.split(jax.random.PRNGKey(1), N_SEEDS)\n"
             "variables, hist = fit_many(keys, X_pu, s, prior, epochs=1, X_eval=X_test, y_eval=y_test)\n"
             "print(jax.tree.map(jnp.shape, variables['params']['dense_0']), hist['test_error'].shape)"),
    ]
    nb = nbf.v4.new_notebook()
    nb["cells"] = cells
    nb["metadata"]["accelerator"] = "GPU"
    return nb


def grad_nnpu():
    cells = [
        md("# Using the nnPU objective in your own optax loop\n\n"
           "`pujax.risk` exposes the PU risks as plain differentiable JAX functions of a score vector "
           "(`upu_risk`, `nnpu_risk`, `pu_risk_parts`) and the nnPU *training rule* of Kiryo et al. (2017, "
           "Algorithm 1) as `nnpu_objective(scores, s, prior, loss, beta, gamma) -> (surrogate, risk)`: "
           "with r = R_u^- − π R_p^-,\n\n"
           "* if r ≥ −β: `surrogate = π R_p^+ + r` (ordinary descent on the risk),\n"
           "* else: `surrogate = −γ r` (the correction step that pushes r back up).\n\n"
           "`jax.grad(surrogate)` is the rule's step direction; `risk` is the nnPU risk value for logging. "
           "Note that `jax.grad(nnpu_risk)` alone is *not* the nnPU rule: when r < 0 the max(0, r) term has zero "
           "gradient and nothing pushes r back up."),
        code(INSTALL),
        code("import numpy as np\nimport jax, jax.numpy as jnp\nimport optax\nimport flax.linen as nn\n"
             "from sklearn.datasets import load_breast_cancer\nfrom sklearn.preprocessing import StandardScaler\n"
             "from pujax.risk import nnpu_objective, nnpu_risk, pu_risk_parts, upu_risk"),
        md("## PU data (case-control): 60 labeled positives, U = all rows"),
        code("X, y = load_breast_cancer(return_X_y=True)\nX = StandardScaler().fit_transform(X).astype(np.float32)\n"
             "rng = np.random.default_rng(0)\npos = rng.choice(np.flatnonzero(y == 1), 60, replace=False)\n"
             "X_pu = jnp.asarray(np.concatenate([X[pos], X]))\n"
             "s = jnp.asarray(np.r_[np.ones(60, int), np.zeros(len(X), int)])\nprior = float(y.mean())\n"
             "print(X_pu.shape, 'prior', round(prior, 3))"),
        md("## Any flax model, any optax optimiser"),
        code("class Net(nn.Module):\n    @nn.compact\n    def __call__(self, x):\n"
             "        h = nn.relu(nn.Dense(64)(x))\n        h = nn.relu(nn.Dense(64)(h))\n"
             "        return nn.Dense(1)(h)[:, 0]\n\nmodel = Net()\n"
             "params = model.init(jax.random.PRNGKey(0), X_pu[:1])['params']\n"
             "# Adam with coupled L2 weight decay, as Kiryo et al. (wd * param added to the gradient before Adam)\n"
             "opt = optax.chain(optax.add_decayed_weights(5e-3), optax.adam(1e-3))\nopt_state = opt.init(params)"),
        md("## The loss: `nnpu_objective` (includes the correction step)"),
        code("def loss_fn(params, xb, sb, beta=0.0, gamma=1.0):\n"
             "    scores = model.apply({'params': params}, xb)\n"
             "    surrogate, risk = nnpu_objective(scores, sb, prior, 'sigmoid', beta, gamma)\n"
             "    _, r_u, r_p = pu_risk_parts(scores, sb, prior, 'sigmoid')\n"
             "    return surrogate, {'risk': risk, 'r': r_u - r_p}\n\n"
             "@jax.jit\ndef step(params, opt_state, xb, sb):\n"
             "    (_, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, xb, sb)\n"
             "    updates, opt_state = opt.update(grads, opt_state, params)\n"
             "    return optax.apply_updates(params, updates), opt_state, aux\n\n"
             "key = jax.random.PRNGKey(1)\nn, batch = X_pu.shape[0], 64\ncorrections = 0\n"
             "for epoch in range(60):\n    key, sub = jax.random.split(key)\n"
             "    perm = jax.random.permutation(sub, n)\n"
             "    for i in range(n // batch):\n        idx = perm[i * batch:(i + 1) * batch]\n"
             "        params, opt_state, aux = step(params, opt_state, X_pu[idx], s[idx])\n"
             "        corrections += int(aux['r'] < 0)\n"
             "    if epoch % 10 == 9:\n        g = model.apply({'params': params}, jnp.asarray(X))\n"
             "        acc = float(jnp.mean((g > 0) == (y == 1)))\n"
             "        print(f'epoch {epoch + 1}: nnPU risk {float(aux[\"risk\"]):.4f}, accuracy on the true labels '\n"
             "              f'{acc:.3f}, correction steps so far {corrections}')"),
        md("## `jax.grad` through the nnPU risk, checked against finite differences\n"
           "The partial risks are smooth in the scores (sigmoid loss), so `jax.grad` matches central "
           "differences; in float64 the agreement is to ~1e-9."),
        code("with jax.enable_x64(True):\n"
             "    g = jnp.asarray(np.random.default_rng(2).normal(size=40))\n"
             "    ss = jnp.asarray(np.r_[np.ones(10, int), np.zeros(30, int)])\n"
             "    f = lambda g: nnpu_risk(g, ss, 0.4)\n"
             "    grad = jax.grad(f)(g)\n    eps = 1e-6\n"
             "    fd = jnp.array([(f(g.at[i].add(eps)) - f(g.at[i].add(-eps))) / (2 * eps) for i in range(g.size)])\n"
             "    print('max |grad - finite difference| =', float(jnp.max(jnp.abs(grad - fd))))"),
        md("## The correction step, explicitly\n"
           "When r < −β the gradient of the surrogate is −γ ∇r: the step *increases* r. Below, scores that make "
           "r negative (positives scored high, unlabeled scored low — typical overfitting of uPU):"),
        code("g = jnp.concatenate([jnp.full(10, 4.0), jnp.full(30, -4.0)])\n"
             "ss = jnp.asarray(np.r_[np.ones(10, int), np.zeros(30, int)])\n"
             "a, b, c = pu_risk_parts(g, ss, 0.4)\nr = b - c\nprint('r =', float(r))\n"
             "sur_grad = jax.grad(lambda g: nnpu_objective(g, ss, 0.4, beta=0.0, gamma=1.0)[0])(g)\n"
             "r_grad = jax.grad(lambda g: (lambda p: p[1] - p[2])(pu_risk_parts(g, ss, 0.4)))(g)\n"
             "print('grad(surrogate) == -gamma * grad(r):', bool(jnp.allclose(sur_grad, -r_grad)))\n"
             "# with beta large enough (beta >= -r) the ordinary step is taken; beta = inf is exactly uPU\n"
             "up_grad = jax.grad(lambda g: upu_risk(g, ss, 0.4))(g)\n"
             "inf_grad = jax.grad(lambda g: nnpu_objective(g, ss, 0.4, beta=jnp.inf)[0])(g)\n"
             "print('beta = inf gives the uPU gradient:', bool(jnp.allclose(up_grad, inf_grad)))"),
        md("## Or let pujax run the loop\n`pujax.neural.loss_and_grad` / `train_step` are the same rule on a "
           "flax model (with BatchNorm state); `pujax.neural.train` and `fit_many` compile whole runs, and "
           "`NNPUClassifier` wraps them for scikit-learn."),
        code("from pujax.neural import NNPUClassifier\n"
             "clf = NNPUClassifier(model='mlp', model_kwargs={'hidden_sizes': (64, 64)}, epochs=60, batch_size=64,\n"
             "                     prior=prior, n_seeds=4, random_state=0).fit(np.asarray(X_pu), np.asarray(s))\n"
             "print('accuracy of the 4-seed mean score on the true labels:', round(clf.score(X, y), 3))"),
    ]
    nb = nbf.v4.new_notebook()
    nb["cells"] = cells
    return nb


if __name__ == "__main__":
    for name, nb in (("nnpu_vmap_seeds.ipynb", vmap_seeds()), ("grad_through_nnpu.ipynb", grad_nnpu())):
        nb["metadata"]["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbf.write(nb, HERE / name)
        print("wrote", HERE / name)
