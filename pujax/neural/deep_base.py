r"""The scikit-learn side of the rule-based deep PU methods: :class:`DeepPUBase`, the parameters, fitting, model
selection, seeds, devices, sparse input and predictions they share. Each method is a thin subclass that turns its
hyper-parameters into a training rule (:mod:`pujax.neural.rules_risk`, :mod:`pujax.neural.rules_label`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pujax.neural.base import _NeuralPUBase, _to_numpy_tree
from pujax.neural.config import make_config
from pujax.neural.models import Heads, make_model
from pujax.neural.selection import held_out_rows
from pujax.neural.train import final_variables, run_seeds
from pujax.random import as_key, host_split
from pujax.validation import check_bool, check_float, check_in, check_int

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pujax.neural.rules import Rule

__all__ = ["DeepPUBase", "SELECTION_CRITERIA"]

SELECTION_CRITERIA = ("proxy_accuracy", "proxy_auc")


class DeepPUBase(_NeuralPUBase):
    r"""What the rule-based deep PU estimators share (not used directly; see :mod:`pujax.neural`).

    Every method is a training rule on pujax's neural engine (:mod:`pujax.neural.engine`): the network
    (``model``, ``model_kwargs``: :func:`pujax.neural.models.make_model`), Adam with coupled L2 weight decay
    (``learning_rate``, ``weight_decay``), epochs of shuffled minibatches of ``batch_size`` rows mixing labeled and
    unlabeled rows, ``n_seeds`` independently initialised models trained at once in one ``vmap``-ped program (split
    over ``devices``), and model selection without negatives: a stratified share ``validation_fraction`` of the
    labeled and of the unlabeled rows is held out and, after every epoch of the method's final stage (of every
    stage for methods that train one classifier throughout), the held-out rows' proxy accuracy or proxy AUC
    (``selection``; :mod:`pujax.neural.selection`) decides which epoch's network each seed keeps.
    Predictions average the seeds' decision values. A scipy sparse ``X`` stays sparse on the device; minibatches
    are made dense there (:mod:`pujax.neural.rows`).

    Notes
    -----
    The parameters every subclass takes (with its own defaults):

    ``model`` ("mlp", "linear", "cnn" or flax.linen.Module)
        The network (as :class:`~pujax.neural.NNPUClassifier`).
    ``epochs`` (int)
        Epochs of the whole run (all stages).
    ``batch_size`` (int)
        Minibatch size (each shuffled epoch is dealt into ``ceil(n / batch_size)`` equal minibatches).
    ``learning_rate``, ``weight_decay`` (float)
        Adam step size and coupled L2 weight decay.
    ``prior`` (float in (0, 1) or "auto")
        Class prior of the unlabeled rows (``"auto"``: :func:`pujax.prior.estimate_prior`); methods that need none
        ignore it. A sparse ``X`` needs a float.
    ``standardize`` (bool)
        Centre and scale every feature (float64 statistics of the training rows); a scipy sparse ``X`` is scaled
        without centring (its zeros stay zeros, as everywhere in pujax: ``docs/sparse.md``).
    ``validation_fraction`` (float in [0, 1) or None)
        Share of labeled and of unlabeled rows held out for model selection; 0 or None: train on every row and keep
        the last epoch.
    ``selection`` ({"proxy_accuracy", "proxy_auc"})
        The held-out criterion.
    ``n_seeds`` (int)
        Models trained at once; predictions average them.
    ``model_kwargs`` (dict or None)
        Architecture options.
    ``random_state`` (None, int, numpy generator or JAX key)
        Seeds initialisation, minibatch order, held-out rows and the methods' own draws.
    ``verbose`` (bool)
        Print the per-epoch history after the run (the run itself is one compiled program).
    ``devices`` (None, int, sequence of jax.Device or jax.sharding.Mesh)
        Where the seeds train (:mod:`pujax.devices`).
    ``pos_label`` (int, float, bool, str or None)
        The value of ``y`` that marks the labeled positives; ``None`` reads ``y`` as bool, {0, 1} or {-1, 1} with
        ``True`` / 1 labeled and refuses other values (:func:`pujax.validation.read_pu_labels`). ``classes_`` is
        ``[unlabeled value, labeled value]``.

    Attributes
    ----------
    variables_ : dict
        Flax variables with a leading seed axis.
    threshold_ : ndarray of shape (n_seeds_,)
        Each seed's threshold on the decision value (0 except for methods that fit one, e.g. PUSB).
    history_ : dict of ndarray
        ``"loss"``: per-epoch mean of the method's loss, shape ``(n_seeds_, n_iter_)``.
    validation_loss_ : ndarray of shape (n_seeds_, n_iter_) or None
        Minus the held-out criterion after every epoch (NaN in epochs the selection does not consider).
    best_epoch_ : ndarray of int of shape (n_seeds_,)
        The epoch (0-based) whose network each seed keeps.
    mean_, scale_ : ndarray of shape (n_features_in_,) or None
        Feature standardisation.
    n_seeds_, n_iter_ : int
        Models trained and epochs run.
    prior_, classes_, n_features_in_, feature_names_in_ : as in every pujax estimator

    References
    ----------
    .. [1] Q. Chen et al., "PU-Bench: A Unified Benchmark for Rigorous and Reproducible PU Learning", ICLR 2026 (the
       proxy-accuracy model selection on held-out PU rows, the methods' configurations).
    .. [2] W. Wang et al., "Accessible, Realistic, and Fair Evaluation of Positive-Unlabeled Learning Algorithms",
       ICLR 2026 (proxy accuracy and proxy AUC).

    Examples
    --------
    >>> from pujax.neural import DeepPUBase
    >>> DeepPUBase.__name__
    'DeepPUBase'
    """

    _accept_sparse = "csr"
    _estimates_prior = False  # True: prior="auto" is estimated inside training (CVIR's BBE), not beforehand
    _fitted_schema = {"n_seeds_": "int", "variables_": "tree", "history_": "tree", "n_iter_": "int",
                      "mean_": "f[n_features_in_]|none", "scale_": "f[n_features_in_]|none",
                      "validation_loss_": "f[n_seeds_,n_iter_]|none", "best_epoch_": "i[n_seeds_]",
                      "threshold_": "f[n_seeds_]"}
    _expected_failed_checks = {
        "check_methods_sample_order_invariance": "float32 matrix products on XLA:CPU can differ by 1 ulp with the "
        "row order; the check allows a relative error of 1e-7",
        "check_classifiers_train": "with y taken as PU labels the unlabeled rows hold no positive, the estimated "
        "prior is about 0.02 and the held-out proxy accuracy may prefer epochs that call most rows negative",
    }

    def _set_params(self, params: dict) -> None:
        """Store the constructor's arguments as attributes (scikit-learn's convention: nothing else)."""
        for name, value in params.items():
            if name not in ("self", "__class__"):
                setattr(self, name, value)

    def _rule(self) -> Rule:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    @property
    def _needs_prior(self):
        rule = self._rule()
        if self._estimates_prior and isinstance(self.prior, str):
            return False
        return rule.needs_prior

    def _check_params(self):
        """Validate the hyper-parameters (no data needed); return ``(epochs, n_seeds, rule)``."""
        epochs = check_int(self.epochs, "epochs")
        n_seeds = check_int(self.n_seeds, "n_seeds")
        check_int(self.batch_size, "batch_size")
        check_bool(self.standardize, "standardize")
        check_bool(self.verbose, "verbose")
        check_in(self.selection, "selection", SELECTION_CRITERIA)
        check_float(self.validation_fraction, "validation_fraction", low=0.0, high=1.0, closed="left",
                    allow_none=True)
        rule = self._rule()
        rule.stages(epochs)  # a stage longer than the run raises here
        self._config(None)
        return epochs, n_seeds, rule

    def _module(self, n_features):
        kwargs = dict(self.model_kwargs or {}) if isinstance(self.model_kwargs, dict) else self.model_kwargs
        if kwargs is not None and not isinstance(kwargs, dict):
            raise TypeError(f"model_kwargs must be a dict or None; got {type(kwargs).__name__}.")
        module = make_model(self.model, n_features=n_features, **(kwargs or {}))
        heads = self._rule().heads
        return Heads(module, heads) if heads > 1 else module

    def _config(self, n_features=None):
        return make_config(model=self._module(n_features), batch_size=self.batch_size,
                           learning_rate=self.learning_rate, weight_decay=self.weight_decay, rule=self._rule(),
                           selection=self.selection, n_features=n_features)

    def fit(self, X: ArrayLike, y: ArrayLike) -> DeepPUBase:
        """Fit on features ``X`` (dense or scipy sparse) and PU labels ``y`` (1 = labeled positive, 0 = unlabeled;
        bool and {-1, +1} too; ``pos_label`` for other encodings)."""
        epochs, n_seeds, rule = self._check_params()
        X, s, _, prior = self._validate_fit(X, y)
        X = self._fit_standardization(X)
        cfg = self._config(int(X.shape[1]))
        key = as_key(self.random_state)
        keys = host_split(key, n_seeds)
        X, s, val = held_out_rows(X, s, self.validation_fraction, key)
        X, val = self._device_rows(X), None if val is None else (self._device_rows(val[0]), *val[1:])
        prior_arr = np.asarray(0.5 if prior is None else prior, np.float32)
        state, hist = run_seeds("fit_many", cfg, epochs, keys, X, s, prior_arr, None, None, self.devices, val)
        self._set_fitted(state, hist, n_seeds, epochs)
        if self.verbose:
            self._print_history()
        return self

    def _set_fitted(self, state, hist, n_seeds, epochs):
        self.n_seeds_, self.n_iter_ = n_seeds, epochs
        self.variables_ = _to_numpy_tree(final_variables(state))
        self.threshold_ = np.asarray(state["threshold"], np.float64).reshape(n_seeds)
        val = hist.get("validation")
        self.history_ = {"loss": np.asarray(hist["loss"], np.float64)}
        self.validation_loss_ = None if val is None else np.asarray(val, np.float64)
        self.best_epoch_ = np.asarray(state.get("best_epoch", np.full(n_seeds, epochs - 1)), np.int64)
        if self._estimates_prior and isinstance(self.prior, str):
            self.prior_ = float(np.mean(state["extra"]["alpha"]))

    def _print_history(self):
        for e in range(self.n_iter_):
            loss = np.mean(self.history_["loss"][:, e])
            line = f"{type(self).__name__} epoch {e + 1}/{self.n_iter_}: loss {loss:.5g}"
            if self.validation_loss_ is not None and np.isfinite(self.validation_loss_[:, e]).all():
                line += f", held-out {self.selection} {-np.mean(self.validation_loss_[:, e]):.5g}"
            print(line)

    def seed_decision_function(self, X: ArrayLike) -> np.ndarray:
        """Decision values of every seed, shape ``(n_seeds_, n)``: the method's decision value minus the seed's
        threshold (> 0: positive)."""
        g = self._seed_scores(X)
        return np.asarray(self._rule().decision(g), np.float64) - self.threshold_[:, None]

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Mean decision value over seeds; > 0 means class 1."""
        return self.seed_decision_function(X).mean(axis=0)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """``[1 - p, p]`` with ``p`` the logistic function of :meth:`decision_function`: monotone in it (``p > 1/2``
        exactly where :meth:`predict` says class 1), not a calibrated probability."""
        p1 = 1.0 / (1.0 + np.exp(-np.clip(self.decision_function(X), -500, 500)))
        return np.stack([1.0 - p1, p1], axis=1)
