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
# # RESVM, bagging SVM and class-weighted SVM with pujax
#
# Claesen et al. (2015), *A robust ensemble approach to learn from positive and unlabeled data using SVM base models*. pujax trains all 50 SVM base models of an ensemble in one batched (vmapped) SMO solve and predicts them with one kernel matrix. This notebook reproduces the spirit of the paper's Figure 4: PR curves of CWSVM, bagging SVM and RESVM in the semi-supervised setting (false positives in P) on MNIST, digit 7.

# %%
# Colab: install pujax first
# # !pip install -q git+https://github.com/<owner>/pujax.git

# %%
import numpy as np
import matplotlib.pyplot as plt
from sklearn.metrics import precision_recall_curve, roc_curve, average_precision_score
from pujax.svm import CWSVMClassifier, BaggingSVMClassifier, RESVMClassifier, pu_grid_search
from pujax.data.synthetic import make_circle_data, make_label_noise_setting

# %% [markdown]
# ## Data
# MNIST from `keras`'s `mnist.npz` (set `PATH`); digit 7 is the positive class. Training set as in the paper's Table 1: 50 labeled + 2,000 unlabeled rows, 10 % contamination of both P and U (semi-supervised setting). Without the file, the cell falls back to the paper's synthetic 2-D data.

# %%
import os
PATH = os.environ.get('PUJAX_DATA', '../../shared/data') + '/mnist/mnist.npz'
if os.path.exists(PATH):
    z = np.load(PATH)
    X = z['x_train'].reshape(-1, 784) / 255.0; y = (z['y_train'] == 7).astype(int)
    Xte = z['x_test'].reshape(-1, 784) / 255.0; yte = (z['y_test'] == 7).astype(int)
    kernel, Cs, nP, nU, c = 'linear', [0.01, 0.1, 1.0], 50, 2000, 0.1
else:
    X, y = make_circle_data(0, 400, 400); Xte, yte = make_circle_data(1, 5000, 5000)
    kernel, Cs, nP, nU, c = 'rbf', [0.1, 1.0, 10.0], 100, 200, 0.3
Xtr, s, ytr = make_label_noise_setting(0, X, y, 'semi-supervised', nP, nU, c)
print(Xtr.shape, 'labeled:', s.sum(), 'false positives in P:', int((ytr[s == 1] == 0).sum()))

# %% [markdown]
# ## Tune each method with the paper's protocol (k-fold CV scored by pu_score) and refit

# %%
fP = int(nP * 2 / 3)
models = {
  'CWSVM': pu_grid_search(CWSVMClassifier(kernel=kernel),
        [{'C_unl': [cu], 'C_pos': [cu, 10 * cu, 100 * cu]} for cu in Cs], Xtr, s, cv=3, random_state=0),
  'bagging SVM': pu_grid_search(BaggingSVMClassifier(n_estimators=50, kernel=kernel),
        {'C': Cs, 'max_samples': [fP, 3 * fP]}, Xtr, s, cv=3, random_state=0),
  'RESVM': pu_grid_search(RESVMClassifier(n_estimators=50, kernel=kernel),
        {'C': Cs, 'w_pos': [1.0, 4.0], 'n_pos': [fP // 5, fP // 2], 'max_samples': [fP, 5 * fP // 2]},
        Xtr, s, cv=3, random_state=0),
}
for name, res in models.items():
    print(f'{name:12s} best {res.best_params_}  cv pu_score {res.best_score_:.3f}')

# %% [markdown]
# ## PR and ROC curves on the test set (cf. the paper's Figure 4)
# Ensembles rank by the eq. 5 decision value (vote fraction, extended by the summed base-model decisions when the vote is unanimous).

# %%
fig, ax = plt.subplots(1, 2, figsize=(11, 4.5))
for name, res in models.items():
    d = res.best_estimator_.decision_function(Xte)
    p, r, _ = precision_recall_curve(yte, d); f, t, _ = roc_curve(yte, d)
    ax[0].plot(r, p, label=f'{name} (AUPR {100 * average_precision_score(yte, d):.1f})')
    ax[1].plot(f, t, label=name)
ax[0].set(xlabel='recall', ylabel='precision', title='PR curve'); ax[1].set(xlabel='FPR', ylabel='TPR', title='ROC')
ax[0].legend(); ax[1].legend(); plt.tight_layout()

# %% [markdown]
# ## Votes and eq. 5
# `predict_proba` is the vote fraction v(x) (eq. 4); `decision_function` is d(x) (eq. 5); `base_decision_function` gives every base model's psi_i(x).

# %%
est = models['RESVM'].best_estimator_
psi = est.base_decision_function(Xte[:5]); print(psi.shape)
print(est.predict_proba(Xte[:5])[:, 1], est.decision_function(Xte[:5]))
