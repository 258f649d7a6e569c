"""Build notebooks/quickstart.ipynb (run: python notebooks/_build_quickstart.py)."""
import pathlib

import nbformat as nbf

cells = [
    nbf.v4.new_markdown_cell(
        "# pujax quickstart: learning from positive and unlabeled data\n\n"
        "A few confirmed positives, a large unlabeled pool: this notebook builds the papers' case-control PU split of a\n"
        "real data set, fits several pujax estimators, estimates the class prior, and differentiates through the nnPU\n"
        "risk. Runs on CPU or a Colab GPU runtime."),
    nbf.v4.new_code_cell(
        "# In Colab: install pujax (uncomment). For a GPU runtime add the cuda extra: pip install 'pujax[cuda] @ ...'\n"
        "# !pip install -q 'pujax @ git+https://github.com/<org>/pujax'\n"
        "import time\nimport jax, jax.numpy as jnp, numpy as np\nimport pujax\n"
        "from pujax import metrics\nprint(jax.devices())"),
    nbf.v4.new_markdown_cell(
        "## Data: mushroom (bundled), case-control PU split\n"
        "`make_case_control` draws P = `n_labeled` random positives and uses *all* training rows as U, as the papers do.\n"
        "`prior` is the positive fraction of the population U comes from."),
    nbf.v4.new_code_cell(
        "from sklearn.model_selection import train_test_split\n"
        "X, y = pujax.datasets.load('mushroom')\n"
        "X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)\n"
        "X_pu, s, prior = pujax.make_case_control(jax.random.PRNGKey(0), X_tr, y_tr, n_labeled=300)\n"
        "print(X_pu.shape, 'labeled:', s.sum(), 'prior:', round(prior, 3))"),
    nbf.v4.new_markdown_cell("## Fit PU estimators and compare on the test rows"),
    nbf.v4.new_code_cell(
        "models = {\n"
        "    'PU Extra Trees (nnPU, quadratic)': pujax.PUExtraTreesClassifier(n_estimators=100, prior=prior, random_state=0),\n"
        "    'Ada-PU': pujax.AdaPUClassifier(n_estimators=100, prior=prior, random_state=0),\n"
        "    'nnPU linear': pujax.NNPUClassifier(model='linear', prior=prior, epochs=100, random_state=0),\n"
        "}\n"
        "for name, m in models.items():\n"
        "    t0 = time.perf_counter(); m.fit(X_pu, s); t = time.perf_counter() - t0\n"
        "    pred = m.predict(X_te)\n"
        "    print(f'{name:34s} acc {float(metrics.accuracy(y_te, pred)):.4f}  '\n"
        "          f'F1 {float(metrics.f1_score(y_te, pred)):.4f}  AUC {float(metrics.roc_auc(y_te, m.decision_function(X_te))):.4f}  fit {t:.1f}s')"),
    nbf.v4.new_markdown_cell("## Unknown prior? Estimate it (BBE, Garg et al. 2021)"),
    nbf.v4.new_code_cell(
        "est = pujax.estimate_prior(X_pu, s, method='bbe', random_state=0)\n"
        "print(est.prior, est.interval, 'true:', prior)\n"
        "auto = pujax.PUExtraTreesClassifier(n_estimators=100, prior='auto', random_state=0).fit(X_pu, s)\n"
        "print('prior_ =', auto.prior_, ' accuracy =', float(metrics.accuracy(y_te, auto.predict(X_te))))"),
    nbf.v4.new_markdown_cell(
        "## Differentiable PU risks\n`pujax.risk` gives the uPU / nnPU risks as pure JAX functions; `nnpu_objective` is\n"
        "Kiryo et al.'s training rule (ordinary step when r >= -beta, otherwise the correction step on -gamma r)."),
    nbf.v4.new_code_cell(
        "from pujax.risk import nnpu_risk, upu_risk, nnpu_objective\n"
        "w = jnp.zeros(X_pu.shape[1]); Xj = jnp.asarray(X_pu); sj = jnp.asarray(s)\n"
        "loss = lambda w: nnpu_objective(Xj @ w, sj, prior, 'sigmoid')[0]\n"
        "g = jax.grad(loss)(w)\n"
        "print('nnPU risk at w=0:', float(nnpu_risk(Xj @ w, sj, prior)), ' |grad| =', float(jnp.linalg.norm(g)))\n"
        "# vmap over several priors at once\n"
        "print(jax.vmap(lambda p: upu_risk(Xj @ (w + 0.1), sj, p, 'sigmoid'))(jnp.array([0.3, 0.5, 0.7])))"),
]
nb = nbf.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"},
                                                "colab": {"provenance": []}})
out = pathlib.Path(__file__).with_name("quickstart.ipynb")
nbf.write(nb, out)
print("wrote", out)
