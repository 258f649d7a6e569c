"""Build notebooks/two_hnc.ipynb (2-HNC on 2-D toy data) with nbformat: python notebooks/_build_two_hnc.py"""
import pathlib

import nbformat

CELLS = [
    ('markdown', "# 2-HNC on 2-D toy data: nested partitions and the SelectNeg ranking\n\nHochbaum & Nitayanont's 2-HNC solves two parametric minimum-cut problems on a kNN similarity graph. Stage 1 (HNC-) keeps the labeled positives on the source side; as the tradeoff lambda grows, the sink (negative) side grows, and the sets are **nested** (Lemma 3.1). The order in which unlabeled points join the sink side ranks them by how likely they are negative (SelectNeg). `pujax.graph` computes all 501 nested cuts exactly with a synchronous push-relabel in JAX, by parallel bisection over the lambda grid (9 warm-started solves instead of one per lambda)."),
    ('code', '# In Colab: !pip install -q git+https://github.com/<org>/pujax  (or `pip install pujax`)\nimport numpy as np, matplotlib.pyplot as plt\nfrom sklearn.datasets import make_moons\nfrom pujax.graph.hnc import TwoHNC, default_lambdas'),
    ('code', "X, y = make_moons(n_samples=400, noise=0.08, random_state=0)\nrng = np.random.default_rng(0)\npos = np.flatnonzero(y == 1)\ns = np.zeros(len(y), int); s[rng.choice(pos, 60, replace=False)] = 1   # 60 labeled positives\nprior = y.mean()\nmodel = TwoHNC(prior=prior, n_neighbors=10, feature_weights=None, random_state=0).fit(X, s)\nprint('selected: k =', model.n_neighbors_, 'stage', model.stage_, 'lambda', model.lambda_,\n      'positive fraction', round(model.positive_fraction_, 3))\nU = s == 0\nprint('accuracy on U:', (model.transductive_labels_[U] == y[U]).mean())"),
    ('markdown', '## Nested partitions of stage 1\n\nA point is on the sink (negative) side at lambda_q exactly when its first-sink index is <= q, so `first_sink_index_` encodes the whole nested sequence.'),
    ('code', "lams = default_lambdas()\nfs = model.first_sink_index_\nfig, axes = plt.subplots(1, 4, figsize=(16, 4), sharey=True)\nfor ax, q in zip(axes, [5, 20, 60, 200]):\n    sink = fs <= q\n    ax.scatter(*X[~sink].T, s=8, c='tab:blue', label='source side (positive)')\n    ax.scatter(*X[sink].T, s=8, c='gold', label='sink side (negative)')\n    ax.scatter(*X[s == 1].T, s=14, c='k', marker='x', label='labeled positive')\n    ax.set_title(f'lambda = {lams[q]:.3f}: |sink| = {sink.sum()}')\naxes[0].legend(loc='lower left', fontsize=7)\nplt.show()"),
    ('markdown', '## Positive fraction along the two parametric paths\n\n`path_fractions_` holds |S| / |V| for every lambda of stage 1 (HNC-, the positive side shrinks as lambda grows) and stage 2 (HNC+ seeded with L+ and the likely negatives LN, the positive side grows). 2-HNC returns the partition, over both paths, whose positive fraction is closest to the prior pi (§4.1.3).'),
    ('code', "fr = model.path_fractions_\nplt.figure(figsize=(7, 3.5))\nplt.plot(lams, fr[0], label='stage 1 (HNC-)')\nplt.plot(lams, fr[1], label='stage 2 (HNC+)')\nplt.axhline(prior, color='k', ls='--', lw=1, label='prior pi')\nplt.scatter([model.lambda_], [model.positive_fraction_], c='r', zorder=3, label=f'selected (stage {model.stage_})')\nplt.xlabel('lambda'); plt.ylabel('|S| / |V|'); plt.legend(); plt.show()"),
    ('markdown', '## SelectNeg ranking\n\n`ranking_` lists the unlabeled rows from most to least likely negative; the first (1 - pi)/pi |L+| of them are the likely negatives LN that seed stage 2 (HNC+).'),
    ('code', "rank = np.empty(len(y)); rank[:] = np.nan\nrank[model.ranking_] = np.arange(model.ranking_.size)\nfig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.5))\nsc = a1.scatter(*X[U].T, c=rank[U], cmap='viridis_r', s=12)\na1.scatter(*X[s == 1].T, s=14, c='k', marker='x')\na1.scatter(*X[model.likely_negatives_].T, s=40, facecolors='none', edgecolors='r', label='LN')\na1.legend(); a1.set_title('SelectNeg rank (dark = most likely negative)'); plt.colorbar(sc, ax=a1)\na2.scatter(*X.T, c=model.transductive_labels_, cmap='coolwarm', s=10)\na2.set_title('final 2-HNC partition (red = positive)')\nplt.show()\nprint('precision of LN (true negatives among LN):', (y[model.likely_negatives_] == 0).mean())"),
    ('markdown', '## Inductive prediction\n\nUnseen points take the side that changes the selected cut objective least.'),
    ('code', "xx, yy = np.meshgrid(np.linspace(-1.5, 2.5, 120), np.linspace(-1, 1.5, 90))\ngrid = np.c_[xx.ravel(), yy.ravel()].astype(np.float32)\np = model.predict_proba(grid)[:, 1].reshape(xx.shape)\nplt.contourf(xx, yy, p, levels=20, cmap='coolwarm', alpha=0.6)\nplt.scatter(*X.T, c=y, cmap='coolwarm', s=6, edgecolors='k', linewidths=0.2)\nplt.title('predict_proba of unseen points'); plt.show()"),
]


def build():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(s) if t == 'markdown' else nbformat.v4.new_code_cell(s) for t, s in CELLS]
    nb.metadata['kernelspec'] = {'name': 'python3', 'display_name': 'Python 3', 'language': 'python'}
    out = pathlib.Path(__file__).resolve().parent / 'two_hnc.ipynb'
    nbformat.write(nb, out)
    return out


if __name__ == '__main__':
    print(build())
