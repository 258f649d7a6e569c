"""Class-weighted SVM, bagging SVM and RESVM on a batched JAX SVM dual solver (Claesen et al. 2015; DESIGN §3.5).

Functional core: :mod:`pujax.svm.core` (:class:`SVMModel`, :func:`resvm_fit`, :func:`bagging_svm_fit`,
:func:`cwsvm_fit`, :func:`cwsvm_fit_bags`, :func:`svm_decision`, :func:`svm_proba_bags`), base-model problems in
:mod:`pujax.svm.problems`,
the SMO solver in :mod:`pujax.svm.solver`; scikit-learn estimators in :mod:`pujax.svm.estimators`.
"""
from pujax.svm.core import (
    SVMModel,
    bagging_svm_fit,
    cwsvm_fit,
    cwsvm_fit_bags,
    ensemble_decision,
    ensemble_scores,
    prior_threshold,
    resvm_fit,
    solve_problems,
    svm_base_decision,
    svm_decision,
    svm_fit,
    svm_proba,
    svm_proba_bags,
    vote_fraction,
)
from pujax.svm.estimators import BaggingSVMClassifier, CWSVMClassifier, RESVMClassifier
from pujax.svm.kernels import kernel_matrix, linear_kernel, polynomial_kernel, rbf_kernel
from pujax.svm.model_selection import PUGridSearchResult, pu_grid_search
from pujax.svm.problems import EnsembleSpec, Problems, bagging_svm_spec, cwsvm_spec, draw_problems, resvm_spec
from pujax.svm.solver import SVMSolution, coef_matrix, dual_objective, kkt_violation, solve_svm, solve_svm_batch

__all__ = [
    "CWSVMClassifier",
    "BaggingSVMClassifier",
    "RESVMClassifier",
    "SVMModel",
    "svm_fit",
    "resvm_fit",
    "bagging_svm_fit",
    "cwsvm_fit",
    "cwsvm_fit_bags",
    "svm_decision",
    "svm_base_decision",
    "svm_proba",
    "svm_proba_bags",
    "solve_problems",
    "EnsembleSpec",
    "Problems",
    "resvm_spec",
    "bagging_svm_spec",
    "cwsvm_spec",
    "draw_problems",
    "pu_grid_search",
    "PUGridSearchResult",
    "ensemble_decision",
    "ensemble_scores",
    "prior_threshold",
    "vote_fraction",
    "solve_svm",
    "solve_svm_batch",
    "SVMSolution",
    "kkt_violation",
    "dual_objective",
    "coef_matrix",
    "kernel_matrix",
    "linear_kernel",
    "rbf_kernel",
    "polynomial_kernel",
]
