"""FSCPU: feature selection under the cluster assumption in PU learning (Uchikoshi & Akimoto 2025).

* :class:`FSCPU` -- the scikit-learn selector (``fit(X, s)``, ``get_support``, ``transform``), variants "fscpu"
  (eq. 5) and "fscpu-mi" (eq. 13);
* functional core: masked Gaussian-mixture EM (:mod:`.gmm`), the objective by the prefix rule (:mod:`.objective`),
  the IGO / compact-GA search with REPAIR as one ``lax.scan`` (:mod:`.igo`), semi-JMI (:mod:`.mi`);
* the paper's artificial data and the FSR metric (:mod:`.synthetic`).
"""
from .gmm import compact_columns, gmm_em, gmm_fit_predict, kmeans, masked_gmm_labels
from .igo import SearchConfig, igo_init, igo_run, igo_search, rank_weights, repair
from .mi import discretize, pairwise_mi, semi_jmi_score, semi_jmi_select
from .objective import cluster_counts, objective_from_labels, prefix_objective
from .selector import FSCPU, minmax_scale
from .synthetic import TABLE1_CONDITIONS, feature_selection_recall, make_fscpu_synthetic

__all__ = [
    "FSCPU",
    "minmax_scale",
    "compact_columns",
    "gmm_em",
    "gmm_fit_predict",
    "kmeans",
    "masked_gmm_labels",
    "SearchConfig",
    "igo_init",
    "igo_run",
    "igo_search",
    "rank_weights",
    "repair",
    "discretize",
    "pairwise_mi",
    "semi_jmi_score",
    "semi_jmi_select",
    "cluster_counts",
    "objective_from_labels",
    "prefix_objective",
    "TABLE1_CONDITIONS",
    "feature_selection_recall",
    "make_fscpu_synthetic",
]
