"""2-HNC: two-stage Hochbaum's Normalized Cut for PU learning (Hochbaum & Nitayanont).

Method (paper §4-5, DESIGN §3.6):

1. Standardise the features; weighted Euclidean distance with weights rho (PU Extra Trees risk-reduction
   importances scaled so that sum(rho) = H, §5.3); symmetric kNN graph (§4.2.3, §5.2) with Gaussian similarities
   ``w_ij = exp(-d_ij^2 / (2 sigma^2))``, sigma = 0.75 for n < 10,000 else 0.25; ``d_i = sum_j w_ij``. By default
   (``normalize_distance=True``) ``d_ij^2`` is divided by H, the scale at which the authors used these sigma values
   (their code divides distances by sqrt(H)); without it, standardised data in 20+ dimensions has Gaussian weights
   of e^-10 and below, and the similarity graph loses the contrast between near and far neighbours.
2. Stage 1, HNC- with L+ contracted into the source (problem (5) of Lemma 4.1, graph G-(lambda) of Fig. 3b):
   ``c(s, i) = sum_{p in L+} w_ip``, ``c(i, t) = lambda d_i``, lambda in {0, 0.001, ..., 0.5}. Sink sets grow with
   lambda (Lemma 3.1).
3. SelectNeg (§4.1.2): rank unlabeled nodes by the first lambda index at which they join the sink set (ties at
   random, seeded); LN = the ``(1 - pi) / pi * |L+|`` earliest.
4. Stage 2, HNC+ with L+ in the source and LN in the sink (problem (4), Fig. 2a):
   ``c(s, i) = sum_{p in L+} w_ip + lambda d_i``, ``c(i, t) = sum_{q in LN} w_iq``.
5. Output (§4.1.3): among all partitions of both stages the one whose positive fraction |S| / |V| is closest to pi.
   For n < 10,000 this is done for k in {5, 10, 15}; the largest k whose partition is within 2 percentage points of
   pi is kept, else the closest (§5.2).

The authors' public code differs from the paper (|LN| = |L+|, no k rule, directed degrees); pujax implements the
paper.
``ln_size="labeled"`` exposes the code's |LN| = |L+| choice.

Scenario: case-control (DESIGN §1): the rows with ``s == 1`` are the labeled positives L+, the others the unlabeled
set U; ``prior`` is the positive fraction pi used for |LN| and for choosing the partition (the paper uses the
fraction of positives in the whole data set).
"""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator

from pujax.base import PUClassifierMixin
from pujax.graph.knn import knn_search, neighbor_lists
from pujax.graph.parametric import parametric_min_cut
from pujax.persistence import register_estimator
from pujax.progress import progress
from pujax.validation import as_key, check_in

__all__ = ["TwoHNC", "default_lambdas"]


def default_lambdas():
    """The paper's grid lambda = 0, 0.001, ..., 0.5 (501 values, §5.1)."""
    return np.round(np.arange(501) * 0.001, 3)


def _closest(fracs, prior):
    """Index of the first entry of ``fracs`` closest to ``prior``."""
    return int(np.argmin(np.abs(np.asarray(fracs) - prior)))


@register_estimator
class TwoHNC(PUClassifierMixin, BaseEstimator):
    """2-HNC PU classifier (transductive, with an inductive ``predict`` for unseen points).

    Parameters
    ----------
    prior : float in (0, 1) or "auto"
        Class prior pi = P(y = 1) of the data (case-control scenario).
    n_neighbors : "auto", int or sequence of ints
        k of the kNN graph; "auto" = (5, 10, 15) with the 2% rule when n < 10,000, else 5 (§5.2).
    sigma : "auto" or float
        Gaussian width; "auto" = 0.75 when n < 10,000 else 0.25 (§5.3).
    feature_weights : "puet", None or array (H,)
        "puet": risk-reduction importances of :class:`pujax.trees.PUExtraTreesClassifier` (nnPU risk, prior pi)
        fitted with P = the labeled rows and U = all rows of the standardised X;
        None: unweighted Euclidean distance; an array: user weights. Scaled so that sum = H.
    weights_max_samples : "auto", None or int
        Rows given to PU ET for ``feature_weights="puet"``: a random subsample of this many rows (P = its labeled
        rows, U = all of it); "auto" = all rows up to 20,000, else 10,000; None = all rows.
    lambdas : None or sorted array
        Tradeoff grid of both stages (default 0, 0.001, ..., 0.5).
    ln_size : "paper" or "labeled"
        |LN| = (1 - pi) / pi * |L+| (paper) or |L+| (authors' code).
    k_tolerance : float
        The 2% rule of §5.2 (absolute difference of the positive fraction from pi).
    standardize : bool
        Standardise features before the distance (paper).
    normalize_distance : bool
        Divide the squared (weighted) distance by H before the Gaussian, ``w = exp(-d^2 / (2 H sigma^2))``: sigma
        then applies to the per-feature root-mean-square difference, the scale at which the sigma values of §5.3
        were used (the authors' experiment code divides distances by sqrt(H)). False = the raw distance of §5.3,
        whose Gaussian weights vanish in high dimension (d^2 ~ 2H for standardised data).
    n_lanes : int
        ``cut_method="sweep"`` only: lambda lanes solved in parallel by ``vmap`` (1 is fastest on CPU).
    cut_method : "bisect" or "sweep"
        Parametric cut algorithm (:func:`pujax.graph.parametric_min_cut`): parallel bisection over the lambda grid
        (default, ``ceil(log2(L + 1))`` push-relabel solves) or the warm-started sweep (one solve per lambda).
        Same partitions; only the time differs.
    random_state : None, int, numpy or JAX random state
        Seeds SelectNeg's tie-breaking and the PU Extra Trees.
    verbose : bool
        Progress bar over (k, stage).

    Attributes
    ----------
    transductive_labels_ : int array (n,)
        Predicted label of every row of the X given to ``fit`` (labeled rows are 1).
    ranking_ : int array (n_unlabeled,)
        Row indices of the unlabeled rows ordered from most to least likely negative (SelectNeg order, stage 1).
    first_sink_index_ : int array (n,)
        First index of the lambda grid at which the row joins the sink set in stage 1 (len(lambdas) if never;
        labeled rows: len(lambdas)).
    likely_negatives_ : int array, the rows of LN (SelectNeg) for the selected k.
    path_fractions_ : float array (2, len(lambdas)), positive fraction |S| / |V| of every partition of stage 1
        (row 0) and stage 2 (row 1) for the selected k (NaN when stage 2 had no free node).
    n_neighbors_, sigma_, stage_, lambda_, positive_fraction_ : the selected partition.
    feature_weights_ : array (H,) of rho (sum = H).
    distance_weights_ : array (H,), the per-feature factors of the squared distance (rho, or rho / H).
    prior_, classes_, n_features_in_, feature_names_in_ : as in every pujax estimator
        Class prior used and scikit-learn's fitted attributes.

    References
    ----------
    .. [1] D. S. Hochbaum and T. Nitayanont, "An Effective Flow-based Method for Positive-Unlabeled Learning:
       2-HNC": HNC+ / HNC- objectives eq. (1)-(2), their parametric cut forms eq. (4)-(5) (§4.2), the two stages
       and SelectNeg (§4.1), kNN sparsification (§5.2) and Gaussian similarities (§5.3).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> from pujax.graph import TwoHNC
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, class_sep=2.0, random_state=0)
    >>> X_pu, s, prior = make_case_control(0, X, y, n_labeled=60)
    >>> clf = TwoHNC(prior=prior, n_neighbors=10, feature_weights=None, random_state=0).fit(X_pu, s)
    >>> clf.transductive_labels_.shape  # a label for every row given to fit
    (360,)
    >>> bool(clf.score(X, y) > 0.8)  # inductive predict on the population rows
    True
    """

    _fitted_schema = {
        "n_neighbors_": "int", "sigma_": "float", "lambdas_": "f[n_lambdas]", "feature_weights_": "f[n_features_in_]",
        "distance_weights_": "f[n_features_in_]", "mean_": "f[n_features_in_]", "scale_": "f[n_features_in_]",
        "X_fit_": "f[n_samples,n_features_in_]", "labeled_": "b[n_samples]", "stage_": "int", "lambda_": "float",
        "positive_fraction_": "float", "transductive_labels_": "i[n_samples]", "first_sink_index_": "i[n_samples]",
        "ranking_": "i[*]", "likely_negatives_": "i[*]", "path_fractions_": "f[2,n_lambdas]", "candidates_": "tree",
    }

    def __init__(self, prior="auto", *, n_neighbors="auto", sigma="auto", feature_weights="puet", lambdas=None,
                 ln_size="paper", k_tolerance=0.02, standardize=True, normalize_distance=True, n_lanes=1,
                 weights_max_samples="auto", random_state=None, verbose=False, cut_method="bisect"):
        self.prior = prior
        self.n_neighbors = n_neighbors
        self.sigma = sigma
        self.feature_weights = feature_weights
        self.lambdas = lambdas
        self.ln_size = ln_size
        self.k_tolerance = k_tolerance
        self.standardize = standardize
        self.normalize_distance = normalize_distance
        self.weights_max_samples = weights_max_samples
        self.n_lanes = n_lanes
        self.cut_method = cut_method
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------ helpers
    def _k_values(self, n):
        k = self.n_neighbors
        if isinstance(k, str):
            check_in(k, "n_neighbors", ["auto"])
            ks = (5, 10, 15) if n < 10000 else (5,)
            ks = tuple(v for v in ks if v < n)
            if not ks:
                raise ValueError(f"n_neighbors='auto' needs at least 6 rows; got {n}. Pass a smaller n_neighbors.")
            return ks
        ks = (k,) if isinstance(k, numbers.Integral) and not isinstance(k, bool) else tuple(k)
        for v in ks:
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
                raise ValueError(f"n_neighbors must be 'auto', a positive int or a list of them; got {k!r}.")
            if v >= n:
                raise ValueError(f"n_neighbors={v} must be smaller than the number of rows ({n}).")
        return tuple(sorted(set(int(v) for v in ks)))

    def _sigma_value(self, n):
        if isinstance(self.sigma, str):
            check_in(self.sigma, "sigma", ["auto"])
            return 0.75 if n < 10000 else 0.25
        sig = float(self.sigma)
        if not (np.isfinite(sig) and sig > 0):
            raise ValueError(f"sigma={self.sigma!r} must be 'auto' or a positive float.")
        return sig

    def _lambda_grid(self):
        if self.lambdas is None:
            return default_lambdas()
        lam = np.asarray(self.lambdas, dtype=np.float64).reshape(-1)
        if lam.size == 0 or not np.all(np.isfinite(lam)) or np.any(lam < 0) or np.any(np.diff(lam) < 0):
            raise ValueError("lambdas must be a non-empty, sorted array of non-negative finite values.")
        return lam

    def _weights_rows(self, n):
        m = self.weights_max_samples
        if isinstance(m, str):
            check_in(m, "weights_max_samples", ["auto"])
            return n if n <= 20000 else 10000
        if m is None:
            return n
        if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 2:
            raise ValueError(f"weights_max_samples must be 'auto', None or an int >= 2; got {m!r}.")
        return int(min(m, n))

    def _rho(self, X, s, prior, seed):
        H = X.shape[1]
        fw = self.feature_weights
        if fw is None:
            return np.ones(H)
        if isinstance(fw, str):
            check_in(fw, "feature_weights", ["puet"])
            try:
                from pujax.trees import PUExtraTreesClassifier
            except ImportError as exc:
                raise ValueError(
                    'feature_weights="puet" needs pujax.trees.PUExtraTreesClassifier, which is not available in '
                    "this installation; pass feature_weights=None (unweighted distance) or an array of weights."
                ) from exc
            # case-control input of PU ET: P = the labeled rows, U = every row (a sample of the marginal, whose
            # positive fraction is pi; the rows with s = 0 alone are not)
            rows = np.arange(X.shape[0])
            cap = self._weights_rows(X.shape[0])
            if cap < X.shape[0]:  # random subsample (the importances are averages; PU ET cost grows with n)
                rows = np.sort(np.random.default_rng(seed).choice(X.shape[0], cap, replace=False))
            Xr, lab = X[rows], s[rows] == 1
            Xpu = np.concatenate([Xr[lab], Xr])
            spu = np.r_[np.ones(int(lab.sum()), np.int32), np.zeros(rows.size, np.int32)]
            et = PUExtraTreesClassifier(prior=prior, random_state=seed).fit(Xpu, spu)
            rho = np.asarray(et.risk_reduction_importances_, dtype=np.float64)
        else:
            rho = np.asarray(fw, dtype=np.float64).reshape(-1)
            if rho.shape != (H,) or not np.all(np.isfinite(rho)) or np.any(rho < 0):
                raise ValueError(f"feature_weights must be 'puet', None or {H} non-negative finite numbers.")
        rho = np.maximum(rho, 0.0)
        total = rho.sum()
        if not total > 0:
            return np.ones(H)
        return rho * (H / total)

    # ------------------------------------------------------------------ fit
    def fit(self, X, y):
        """Fit on PU data: ``X`` (n, H), ``y`` PU labels (1 = labeled positive, 0 = unlabeled). Returns self."""
        X, s, _, prior = self._validate_fit(X, y)
        n, H = X.shape
        check_in(self.ln_size, "ln_size", ["paper", "labeled"])
        tol = float(self.k_tolerance)
        if not (np.isfinite(tol) and tol >= 0):
            raise ValueError(f"k_tolerance={self.k_tolerance!r} must be a non-negative float.")
        n_lanes = int(self.n_lanes)
        if n_lanes < 1:
            raise ValueError(f"n_lanes={self.n_lanes!r} must be >= 1.")
        check_in(self.cut_method, "cut_method", ["bisect", "sweep"])
        cut_kw = {"n_lanes": n_lanes, "method": self.cut_method}
        self._weights_rows(n)  # validates weights_max_samples
        ks = self._k_values(n)
        sigma = self._sigma_value(n)
        lam = self._lambda_grid()
        key = as_key(self.random_state)
        import jax

        seed = int(jax.random.randint(key, (), 0, 2**31 - 1))
        rng = np.random.default_rng(seed)

        if self.standardize:
            mean = X.mean(axis=0).astype(np.float64)
            std = X.std(axis=0).astype(np.float64)
            std[std == 0] = 1.0
        else:
            mean, std = np.zeros(H), np.ones(H)
        Z = ((X - mean) / std).astype(np.float32)
        rho = self._rho(Z, s, prior, seed)
        # squared distance sum_h dw_h (z_h - z'_h)^2 with dw = rho (§5.3) or rho / H (normalize_distance)
        dw = rho / H if self.normalize_distance else rho
        Zw = (Z * np.sqrt(dw)[None, :]).astype(np.float32)

        labeled = s == 1
        U = np.flatnonzero(~labeled)
        nL = int(labeled.sum())
        n_ln = int(round((1 - prior) / prior * nL)) if self.ln_size == "paper" else nL
        n_ln = int(min(max(n_ln, 0), U.size))
        tie = rng.random(n)

        idx, d2 = knn_search(Zw, max(ks))
        idx, d2 = np.asarray(idx), np.asarray(d2, dtype=np.float64)
        # one neighbour-list width for every k, so that all parametric cuts share one compiled program
        kmax = max(ks)
        min_width = int(np.bincount(np.concatenate([np.repeat(np.arange(n), kmax), idx[:, :kmax].reshape(-1)]),
                                    minlength=n).max())
        per_k = []
        with progress(2 * len(ks), "2-HNC", self.verbose) as bar:
            for k in ks:
                res = self._fit_k(idx[:, :k], d2[:, :k], sigma, labeled, U, n_ln, tie, lam, prior, cut_kw, bar,
                                  min_width)
                per_k.append((k, res))
        fr = [r["fraction"] for _, r in per_k]
        within = [i for i, f in enumerate(fr) if abs(f - prior) <= tol + 1e-12]
        pick = max(within, key=lambda i: per_k[i][0]) if within else _closest(fr, prior)
        k, best = per_k[pick]

        self.n_neighbors_ = int(k)
        self.sigma_ = float(sigma)
        self.lambdas_ = lam
        self.feature_weights_ = rho
        self.distance_weights_ = dw
        self.mean_, self.scale_ = mean, std
        self.X_fit_ = Zw
        self.labeled_ = labeled
        self.stage_ = int(best["stage"])
        self.lambda_ = float(best["lambda"])
        self.positive_fraction_ = float(best["fraction"])
        self.transductive_labels_ = best["labels"].astype(np.int32)
        self.first_sink_index_ = best["first_sink"]
        self.ranking_ = best["ranking"]
        self.likely_negatives_ = best["ln"]
        self.path_fractions_ = best["path"]
        self.candidates_ = {"n_neighbors": [int(kk) for kk, _ in per_k], "positive_fraction": [float(f) for f in fr]}
        return self

    def _fit_k(self, idx, d2, sigma, labeled, U, n_ln, tie, lam, prior, cut_kw, bar, min_width):
        n = idx.shape[0]
        L = lam.size
        w = np.exp(-d2 / (2.0 * sigma**2))
        rows = np.repeat(np.arange(n), idx.shape[1])
        g = neighbor_lists(rows, idx.reshape(-1), w.reshape(-1), n, merge="max")
        ei, ej, ew = g.edges_i, g.edges_j, g.edges_w
        deg = np.zeros(n)
        np.add.at(deg, ei, ew)
        np.add.at(deg, ej, ew)
        nL = int(labeled.sum())

        def contract(side_pos, side_neg):
            """Stage network on the free nodes: edges among them, and the weight of each free node to the two
            contracted terminals."""
            free = ~(side_pos | side_neg)
            nodes = np.flatnonzero(free)
            pos = -np.ones(n, np.int64)
            pos[nodes] = np.arange(nodes.size)
            to_pos = np.zeros(n)
            to_neg = np.zeros(n)
            for a, b in ((ei, ej), (ej, ei)):
                m = free[a] & side_pos[b]
                np.add.at(to_pos, a[m], ew[m])
                m = free[a] & side_neg[b]
                np.add.at(to_neg, a[m], ew[m])
            keep = free[ei] & free[ej]
            return nodes, pos[ei[keep]], pos[ej[keep]], ew[keep], to_pos[nodes], to_neg[nodes]

        none = np.zeros(n, bool)
        # ---- stage 1: HNC- (Lemma 4.1 (5)); c(s,i) = sum_{L+} w, c(i,t) = lambda d_i
        nodes1, i1, j1, w1, a_s1, _ = contract(labeled, none)
        cut1 = parametric_min_cut(i1, j1, w1, (a_s1, np.zeros(nodes1.size)), (np.zeros(nodes1.size), deg[nodes1]),
                                  lam, min_width=min_width, **cut_kw)
        bar.update()
        src1 = cut1.source_sets  # [L, |U|]
        first_sink = np.full(n, L, np.int64)
        # a node on the sink side already at lambda_0 joins at index 0
        fs = np.where(~src1[0], 0, cut1.first_change)
        first_sink[nodes1] = fs
        order = np.lexsort((tie[nodes1], fs))
        ranking = nodes1[order]
        ln = np.sort(ranking[:n_ln])
        fr1 = (nL + src1.sum(axis=1)) / n
        cands = [(fr1, src1, nodes1, 1)]
        # ---- stage 2: HNC+ (Lemma 4.1 (4)); c(s,i) = sum_{L+} w + lambda d_i, c(i,t) = sum_{LN} w.
        # Solved on the same node set as stage 1 (same shapes, one compiled program): an LN node keeps no source
        # arc and gets a sink arc larger than all its edges, so it is on the sink side of every minimum cut.
        is_ln = np.zeros(n, bool)
        is_ln[ln] = True
        ln_loc = is_ln[nodes1]
        # The edges between free nodes and LN stay in the network and carry the similarity to LN (the term
        # c(i, t) = sum_{q in LN} w_iq of the contracted graph): free nodes get no sink arc of their own.
        inner = np.zeros(nodes1.size)
        np.add.at(inner, i1, w1)
        np.add.at(inner, j1, w1)
        a_s2 = np.where(ln_loc, 0.0, a_s1)
        b_s2 = np.where(ln_loc, 0.0, deg[nodes1])
        a_t2 = np.where(ln_loc, inner + 1.0, 0.0)
        if (~ln_loc).any():
            cut2 = parametric_min_cut(i1, j1, w1, (a_s2, b_s2), (a_t2, np.zeros(nodes1.size)), lam,
                                      min_width=min_width, **cut_kw)
            src2 = cut2.source_sets & ~ln_loc[None, :]
            cands.append(((nL + src2.sum(axis=1)) / n, src2, nodes1, 2))
        bar.update()
        best = None
        for fr, src, nodes, stage in cands:
            q = _closest(fr, prior)
            if best is None or abs(fr[q] - prior) < abs(best[0] - prior):
                best = (fr[q], src[q], nodes, stage, q)
        frac, side, nodes, stage, q = best
        path = np.full((2, L), np.nan)
        for fr, _, _, st in cands:
            path[st - 1] = fr
        labels = labeled.astype(np.int32).copy()
        labels[nodes] = side.astype(np.int32)
        return {"fraction": float(frac), "labels": labels, "stage": stage, "lambda": float(lam[q]),
                "first_sink": first_sink, "ranking": ranking.astype(np.int64), "ln": ln.astype(np.int64),
                "path": path}

    def fit_predict(self, X, y):
        """Fit and return the transductive labels (one per row of X, in ``classes_``; labeled rows are positive)."""
        return self._to_classes(self.fit(X, y).transductive_labels_)

    # ------------------------------------------------------------------ inductive prediction
    def _costs(self, X):
        X = self._validate_predict(X)
        Zw = (((X - self.mean_) / self.scale_) * np.sqrt(self.distance_weights_)[None, :]).astype(np.float32)
        import jax.numpy as jnp

        from pujax.graph.knn import _knn_tile

        train = jnp.asarray(self.X_fit_)
        sq = jnp.sum(train * train, axis=1)
        k = self.n_neighbors_
        tile = max(1, min(Zw.shape[0], (1 << 24) // max(train.shape[0], 1)))
        out_i, out_d = [], []
        for start in range(0, Zw.shape[0], tile):
            Q = jnp.asarray(Zw[start:start + tile])
            i, d = _knn_tile(Q, jnp.full((Q.shape[0],), -1, jnp.int32), train, sq, k)
            out_i.append(np.asarray(i))
            out_d.append(np.asarray(d, dtype=np.float64))
        idx, d2 = np.concatenate(out_i), np.concatenate(out_d)
        w = np.exp(-d2 / (2.0 * self.sigma_**2))
        pos = self.transductive_labels_[idx] == 1
        to_pos = (w * pos).sum(axis=1)
        to_neg = (w * ~pos).sum(axis=1)
        dx = w.sum(axis=1)
        lam = self.lambda_
        if self.stage_ == 1:  # HNC-: x in S pays its cut edges to S-bar plus lambda d_x on its sink arc
            cost_pos, cost_neg = to_neg + lam * dx, to_pos
        else:  # HNC+: x in S-bar pays its edges to S plus lambda d_x on its source arc
            cost_pos, cost_neg = to_neg, to_pos + lam * dx
        return cost_pos, cost_neg, dx

    def decision_function(self, X):
        """Normalised objective change ``(cost(x in S-bar) - cost(x in S)) / ((1 + lambda) d_x)`` in [-1, 1];
        > 0 means that placing x on the positive side increases the objective less."""
        cp, cn, dx = self._costs(X)
        denom = (1.0 + self.lambda_) * np.maximum(dx, 1e-300)
        return np.where(dx > 0, (cn - cp) / denom, 0.0)

    def predict(self, X):
        """Inductive labels of unseen points: the side of the selected partition that changes the objective least
        (§1; x connected to its k nearest training points; ties go to the positive side)."""
        return self._to_classes(self.decision_function(X) >= 0)

    def predict_proba(self, X):
        """``[1 - p, p]`` with ``p = (1 + decision_function) / 2`` (a score in [0, 1], not calibrated)."""
        p = np.clip((1.0 + self.decision_function(X)) / 2.0, 0.0, 1.0)
        return np.stack([1.0 - p, p], axis=1)
