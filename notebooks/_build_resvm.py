"""Build notebooks/resvm.ipynb with nbformat (python notebooks/_build_resvm.py)."""
import pathlib

import nbformat as nbf

cells = [
    nbf.v4.new_markdown_cell(
        "# RESVM, bagging SVM and class-weighted SVM with pujax\n\n"
        "Claesen et al. (2015), *A robust ensemble approach to learn from positive and unlabeled data using SVM base "
        "models*. pujax trains all 50 SVM base models of an ensemble in one batched (vmapped) SMO solve and predicts "
        "them with one kernel matrix. This notebook reproduces the spirit of the paper's Figure 4: PR curves of "
        "CWSVM, bagging SVM and RESVM in the semi-supervised setting (false positives in P) on MNIST, digit 7."),
    nbf.v4.new_code_cell("# Colab: install pujax first\n# !pip install -q git+https://github.com/<owner>/pujax.git"),
    nbf.v4.new_code_cell(
        "import numpy as np, matplotlib.pyplot as plt\n"
        "from sklearn.metrics import precision_recall_curve, roc_curve, average_precision_score\n"
        "from pujax.svm import CWSVMClassifier, BaggingSVMClassifier, RESVMClassifier, pu_grid_search\n"
        "from pujax.data.synthetic import make_circle_data, make_label_noise_setting"),
    nbf.v4.new_markdown_cell(
        "## Data\nMNIST from `keras`'s `mnist.npz` (set `PATH`); digit 7 is the positive class. Training set as in the "
        "paper's Table 1: 50 labeled + 2,000 unlabeled rows, 10 % contamination of both P and U "
        "(semi-supervised setting). Without the file, the cell falls back to the paper's synthetic 2-D data."),
    nbf.v4.new_code_cell(
        "import os\n"
        "PATH = os.environ.get('PUJAX_DATA', '../../shared/data') + '/mnist/mnist.npz'\n"
        "if os.path.exists(PATH):\n"
        "    z = np.load(PATH)\n"
        "    X = z['x_train'].reshape(-1, 784) / 255.0; y = (z['y_train'] == 7).astype(int)\n"
        "    Xte = z['x_test'].reshape(-1, 784) / 255.0; yte = (z['y_test'] == 7).astype(int)\n"
        "    kernel, Cs, nP, nU, c = 'linear', [0.01, 0.1, 1.0], 50, 2000, 0.1\n"
        "else:\n"
        "    X, y = make_circle_data(0, 400, 400); Xte, yte = make_circle_data(1, 5000, 5000)\n"
        "    kernel, Cs, nP, nU, c = 'rbf', [0.1, 1.0, 10.0], 100, 200, 0.3\n"
        "Xtr, s, ytr = make_label_noise_setting(0, X, y, 'semi-supervised', nP, nU, c)\n"
        "print(Xtr.shape, 'labeled:', s.sum(), 'false positives in P:', int((ytr[s == 1] == 0).sum()))"),
    nbf.v4.new_markdown_cell("## Tune each method with the paper's protocol (k-fold CV scored by pu_score) and refit"),
    nbf.v4.new_code_cell(
        "fP = int(nP * 2 / 3)\n"
        "models = {\n"
        "  'CWSVM': pu_grid_search(CWSVMClassifier(kernel=kernel),\n"
        "        [{'C_unl': [cu], 'C_pos': [cu, 10 * cu, 100 * cu]} for cu in Cs], Xtr, s, cv=3, random_state=0),\n"
        "  'bagging SVM': pu_grid_search(BaggingSVMClassifier(n_models=50, kernel=kernel),\n"
        "        {'C': Cs, 'n_unl': [fP, 3 * fP]}, Xtr, s, cv=3, random_state=0),\n"
        "  'RESVM': pu_grid_search(RESVMClassifier(n_models=50, kernel=kernel),\n"
        "        {'C': Cs, 'w_pos': [1.0, 4.0], 'n_pos': [fP // 5, fP // 2], 'n_unl': [fP, 5 * fP // 2]},\n"
        "        Xtr, s, cv=3, random_state=0),\n"
        "}\n"
        "for name, res in models.items():\n"
        "    print(f'{name:12s} best {res.best_params_}  cv pu_score {res.best_score_:.3f}')"),
    nbf.v4.new_markdown_cell("## PR and ROC curves on the test set (cf. the paper's Figure 4)\n"
                             "Ensembles rank by the eq. 5 decision value (vote fraction, extended by the summed "
                             "base-model decisions when the vote is unanimous)."),
    nbf.v4.new_code_cell(
        "fig, ax = plt.subplots(1, 2, figsize=(11, 4.5))\n"
        "for name, res in models.items():\n"
        "    d = res.best_estimator_.decision_function(Xte)\n"
        "    p, r, _ = precision_recall_curve(yte, d); f, t, _ = roc_curve(yte, d)\n"
        "    ax[0].plot(r, p, label=f'{name} (AUPR {100 * average_precision_score(yte, d):.1f})')\n"
        "    ax[1].plot(f, t, label=name)\n"
        "ax[0].set(xlabel='recall', ylabel='precision', title='PR curve'); ax[1].set(xlabel='FPR', ylabel='TPR', title='ROC')\n"
        "ax[0].legend(); ax[1].legend(); plt.tight_layout()"),
    nbf.v4.new_markdown_cell(
        "## Votes and eq. 5\n`predict_proba` is the vote fraction v(x) (eq. 4); `decision_function` is d(x) (eq. 5); "
        "`base_decision_function` gives every base model's psi_i(x)."),
    nbf.v4.new_code_cell(
        "est = models['RESVM'].best_estimator_\n"
        "psi = est.base_decision_function(Xte[:5]); print(psi.shape)\n"
        "print(est.predict_proba(Xte[:5])[:, 1], est.decision_function(Xte[:5]))"),
]
nb = nbf.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}})
out = pathlib.Path(__file__).with_name("resvm.ipynb")
nbf.write(nb, out)
print("wrote", out)
