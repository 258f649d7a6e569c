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
# # Bring your own model: a scikit-learn classifier made PU-aware, evaluated without negatives
#
# You have a classifier you trust (here scikit-learn's `HistGradientBoostingClassifier`), a set of confirmed
# positives and a large unlabeled pool. `pujax.meta` wraps the model three ways:
#
# * **Elkan–Noto** (`ElkanNotoClassifier`): fit labeled vs unlabeled, divide by the label frequency `c`;
# * **bagging PU** (`PUBaggingClassifier`): many models of all positives vs a resample of the unlabeled rows;
# * **two-step** (`TwoStepClassifier`): reliable negatives first (spy technique), then positives vs them.
#
# Each is then scored with `pujax.metrics`' PU metrics, which need only the PU labels and a class prior — no
# negatives. Because this is a benchmark set, the true labels let us check those estimates at the end.

# %%
# In Colab: install pujax (uncomment).
# # !pip install -q 'pujax @ git+https://github.com/<org>/pujax'
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import train_test_split
import pujax
from pujax import metrics
from pujax.meta import ElkanNotoClassifier, PUBaggingClassifier, TwoStepClassifier

# %% [markdown]
# ## Data: spambase (bundled), SCAR labels
# Half of the spam e-mails of the training part are labeled (`make_censoring`, label frequency c = 0.5); the rest
# of the training part is unlabeled. The test part keeps its true labels for the final check only.

# %%
X, y = pujax.datasets.load("spambase")
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
train = pujax.data.make_censoring(0, X_tr, y_tr, labeled_fraction=0.5)
s = train.s
print(f"{len(s)} training rows, {s.sum()} labeled positives; true positive fraction of the unlabeled rows "
      f"{train.prior:.3f} (unknown in practice)")

# %% [markdown]
# ## Three PU-aware versions of the same model

# %%
hgb = HistGradientBoostingClassifier(max_iter=100, random_state=0)
models = {
    "naive (unlabeled = negative)": hgb,
    "Elkan-Noto": ElkanNotoClassifier(hgb, hold_out_ratio=0.2, random_state=0),
    "bagging PU": PUBaggingClassifier(hgb, n_estimators=10, n_jobs=-1, random_state=0),
    "two-step (spy)": TwoStepClassifier(hgb, negatives="spy", random_state=0),
}
for model in models.values():
    model.fit(train.X, s)
en = models["Elkan-Noto"]
print(f"Elkan-Noto: label frequency c = {en.c_:.3f}, positive fraction of the unlabeled rows = {en.prior_:.3f}")

# %% [markdown]
# ## Evaluation without negatives
# The PU metrics take the PU labels of held-out data and a prior: the positive fraction of the unlabeled rows.
# Elkan–Noto's `prior_` is one estimate, but it inherits the calibration of the wrapped model (boosted trees
# are not calibrated on held-out rows, so `c` comes out low); `pujax.estimate_prior` (BBE by default, with a
# bootstrap interval) is the better choice. The held-out PU data is a fresh censoring split of the test part —
# nothing below uses a negative label.

# %%
held = pujax.data.make_censoring(1, X_te, y_te, labeled_fraction=0.5)
estimate = pujax.estimate_prior(held.X, held.s, random_state=0)
print(estimate)
prior = estimate.prior
for name, model in models.items():
    y_pred = model.predict(held.X)
    y_score = model.predict_proba(held.X)[:, 1]
    f1 = float(metrics.pu_f1_score(held.s, y_pred, prior))
    auc = float(metrics.pu_roc_auc(held.s, y_score, prior))
    print(f"{name:30s} PU F1 {f1:.3f}   PU ROC AUC {auc:.3f}")

# %%
print(metrics.pu_classification_report(held.s, models["bagging PU"].predict(held.X), prior,
                                       y_score=models["bagging PU"].predict_proba(held.X)[:, 1]))

# %% [markdown]
# ## Check against the true labels (possible only on a benchmark set)
# The PU estimates above refer to the unlabeled rows' population; with the true labels of the same held-out rows
# we compute the real F1 and ROC AUC on the unlabeled rows.

# %%
u = held.s == 0
y_true_u = y_te[u]
for name, model in models.items():
    y_pred = model.predict(held.X[u])
    y_score = model.predict_proba(held.X[u])[:, 1]
    print(f"{name:30s} true F1 {float(metrics.f1_score(y_true_u, y_pred)):.3f}   "
          f"true ROC AUC {float(metrics.roc_auc(y_true_u, y_score)):.3f}")
