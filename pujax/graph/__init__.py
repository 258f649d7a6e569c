"""Graph-based PU learning: kNN similarity graphs, parametric push-relabel minimum cut and 2-HNC.

- :mod:`pujax.graph.knn`: exact tiled kNN in JAX, symmetric Gaussian kNN graph in padded neighbour-list form.
- :mod:`pujax.graph.maxflow`: synchronous push-relabel (integer capacities) for one minimum cut.
- :mod:`pujax.graph.parametric`: :func:`parametric_min_cut` over a list of lambdas (parallel bisection
  or warm-started sweep; exact nested cuts).
- :mod:`pujax.graph.core`: the functional core of 2-HNC (:class:`HNCModel`, :func:`hnc_fit`, :func:`hnc_decision`).
- :mod:`pujax.graph.hnc`: :class:`TwoHNC`, the 2-HNC classifier of Hochbaum & Nitayanont.
"""
from pujax.graph.core import HNCModel, hnc_decision, hnc_fit, hnc_predict
from pujax.graph.hnc import TwoHNC, default_lambdas
from pujax.graph.knn import NeighborGraph, knn_graph, knn_search, neighbor_lists
from pujax.graph.maxflow import min_cut
from pujax.graph.parametric import ParametricCut, parametric_min_cut

__all__ = [
    "TwoHNC",
    "HNCModel",
    "hnc_fit",
    "hnc_decision",
    "hnc_predict",
    "default_lambdas",
    "NeighborGraph",
    "knn_graph",
    "knn_search",
    "neighbor_lists",
    "min_cut",
    "ParametricCut",
    "parametric_min_cut",
]
