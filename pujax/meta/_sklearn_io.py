"""scikit-learn base models that :mod:`pujax.persistence` saves as plain data: logistic regression and single
decision / extra trees (the default base models of :mod:`pujax.meta`).

A fitted tree's ``tree_`` object becomes its node arrays (one array per node field) and is rebuilt on load after
checks that make every traversal end: children are ``-1`` on leaves and greater than the parent's index
elsewhere, features are in range and the value array has one row per node.
"""
from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier
from sklearn.tree._tree import NODE_DTYPE, Tree

from pujax.persistence import register_estimator

__all__ = ["TREE_SCHEMA", "LOGISTIC_SCHEMA", "encode_tree_fitted", "decode_tree_fitted"]

_COMMON = {"n_features_in_": "int", "feature_names_in_": "str[n_features_in_]?", "classes_": "any[*]"}
LOGISTIC_SCHEMA = {**_COMMON, "coef_": "f[*,n_features_in_]", "intercept_": "f[*]", "n_iter_": "i[*]"}
TREE_SCHEMA = {**_COMMON, "n_outputs_": "int", "n_classes_": "int|i[*]", "max_features_": "int", "tree_": "tree"}


def encode_tree_fitted(fitted: dict) -> dict:
    """Fitted attributes of a scikit-learn tree with ``tree_`` as plain arrays."""
    out = dict(fitted)
    tree = fitted["tree_"]
    state = tree.__getstate__()
    nodes = state["nodes"]
    out["tree_"] = {"n_features": int(tree.n_features), "n_outputs": int(tree.n_outputs),
                    "n_classes": np.asarray(tree.n_classes, np.int64), "max_depth": int(state["max_depth"]),
                    "node_count": int(state["node_count"]),
                    "nodes": {name: np.ascontiguousarray(nodes[name]) for name in NODE_DTYPE.names},
                    "values": np.asarray(state["values"], np.float64)}
    return out


def _int(d: dict, key: str, low: int) -> int:
    v = d.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or v < low:
        raise ValueError(f"tree_.{key} must be an int >= {low}")
    return v


def _node_arrays(d: dict, n: int) -> np.ndarray:
    fields = d.get("nodes")
    if not isinstance(fields, dict) or set(fields) != set(NODE_DTYPE.names):
        raise ValueError(f"tree_.nodes must hold the fields {list(NODE_DTYPE.names)}")
    nodes = np.zeros(n, dtype=NODE_DTYPE)
    for name in NODE_DTYPE.names:
        arr = np.asarray(fields[name])
        if arr.shape != (n,) or arr.dtype.kind not in "iufb":
            raise ValueError(f"tree_.nodes.{name} must be a numeric array of shape ({n},)")
        nodes[name] = arr
    return nodes


def _check_structure(nodes: np.ndarray, n_features: int) -> None:
    idx = np.arange(nodes.shape[0])
    left, right, feature = nodes["left_child"], nodes["right_child"], nodes["feature"]
    leaf = left == -1
    if np.any(right[leaf] != -1):
        raise ValueError("tree_: a leaf has a right child")
    inner = ~leaf
    n = nodes.shape[0]
    for child in (left, right):
        if np.any((child[inner] <= idx[inner]) | (child[inner] >= n)):
            raise ValueError("tree_: child indices must be greater than their parent's and below node_count")
    if np.any((feature[inner] < 0) | (feature[inner] >= n_features)):
        raise ValueError("tree_: split features out of range")


def decode_tree_fitted(fitted: dict) -> dict:
    """Inverse of :func:`encode_tree_fitted`, checking the node structure; raises ``ValueError`` when inconsistent."""
    out = dict(fitted)
    d = fitted["tree_"]
    if not isinstance(d, dict):
        raise ValueError("tree_ must be a dict of node arrays")
    n_features, n_outputs = _int(d, "n_features", 1), _int(d, "n_outputs", 1)
    n, max_depth = _int(d, "node_count", 1), _int(d, "max_depth", 0)
    if n_features != fitted["n_features_in_"]:
        raise ValueError("tree_.n_features differs from n_features_in_")
    n_classes = np.asarray(d.get("n_classes"))
    if n_classes.shape != (n_outputs,) or n_classes.dtype.kind not in "iu" or np.any(n_classes < 1):
        raise ValueError("tree_.n_classes must hold n_outputs positive ints")
    values = np.asarray(d.get("values"))
    if values.shape != (n, n_outputs, int(n_classes.max())) or values.dtype.kind != "f":
        raise ValueError("tree_.values must be a float array of shape (node_count, n_outputs, max n_classes)")
    nodes = _node_arrays(d, n)
    _check_structure(nodes, n_features)
    tree = Tree(n_features, n_classes.astype(np.intp), n_outputs)
    tree.__setstate__({"max_depth": max_depth, "node_count": n, "nodes": nodes,
                       "values": np.ascontiguousarray(values, np.float64)})
    out["tree_"] = tree
    return out


register_estimator(LogisticRegression, schema=LOGISTIC_SCHEMA)
for _cls in (DecisionTreeClassifier, ExtraTreeClassifier):
    register_estimator(_cls, schema=TREE_SCHEMA, encode=encode_tree_fitted, decode=decode_tree_fitted)
