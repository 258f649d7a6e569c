"""Class-weighted SVM, bagging SVM and RESVM on a batched JAX SVM dual solver (Claesen et al. 2015; DESIGN §3.5)."""
from pujax.svm.estimators import (
    BaggingSVMClassifier,
    CWSVMClassifier,
    RESVMClassifier,
    base_decision_values,
    ensemble_decision,
    vote_fraction,
)
from pujax.svm.kernels import kernel_matrix, linear_kernel, polynomial_kernel, rbf_kernel
from pujax.svm.model_selection import PUGridSearchResult, pu_grid_search
from pujax.svm.solver import SVMSolution, coef_matrix, dual_objective, kkt_violation, solve_svm, solve_svm_batch

__all__ = [
    "CWSVMClassifier",
    "BaggingSVMClassifier",
    "RESVMClassifier",
    "pu_grid_search",
    "PUGridSearchResult",
    "ensemble_decision",
    "vote_fraction",
    "base_decision_values",
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
