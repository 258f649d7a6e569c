"""scikit-learn estimators of the neural PU learners: nnPU / uPU / PN (Kiryo et al. 2017; DESIGN §3.3) and VPU
(Chen et al. 2020)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import jax
import numpy as np

from pujax.devices import shard_seeds
from pujax.neural.base import _NeuralPUBase, _to_numpy_tree
from pujax.neural.selection import held_out_rows
from pujax.neural.train import (
    RISKS,
    _get_compiled,
    final_variables,
    make_config,
    pad_for_training,
    run_seeds,
    static_batches,
)
from pujax.neural.vpu import _compiled as _vpu_compiled
from pujax.neural.vpu import _prepare as _vpu_prepare
from pujax.neural.vpu import make_vpu_config, mixup_gammas, n_steps_per_epoch
from pujax.persistence import register_estimator
from pujax.progress import progress
from pujax.random import as_key, host_split
from pujax.validation import check_bool, check_float, check_in, check_int, check_pu_labels, check_X

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["NNPUClassifier", "VPUClassifier"]


@register_estimator
class NNPUClassifier(_NeuralPUBase):
    r"""Neural PU classifier trained with the non-negative (nnPU) or unbiased (uPU) risk (Kiryo et al. 2017).

    Scenario: case-control (DESIGN §1) -- labeled positives (``s = 1``) are drawn from p(x | y = 1) and the
    unlabeled rows (``s = 0``) from the marginal p(x) whose positive fraction is ``prior``; as in the papers, pass
    ``X = concat(X_P, X_U)`` (U may contain copies of the P rows).

    Training rule per minibatch (Kiryo et al. Algorithm 1; PU ET paper eq. (5), (6)): with
    :math:`r = \hat R_u^- - \pi \hat R_p^-`, step on :math:`\nabla(\pi\hat R_p^+ + r)` if :math:`r \ge -\beta`,
    else on :math:`\nabla(-\gamma r)` (:func:`pujax.risk.nnpu_objective`); Adam with coupled L2 weight decay.
    See :mod:`pujax.neural.train` for the minibatch layout and :mod:`pujax.neural.models` for the architectures.

    Parameters
    ----------
    model : "mlp", "linear", "cnn" or flax.linen.Module, default="mlp"
        ``"mlp"`` (d-300-300-300-300-1, Linear without bias + BatchNorm + ReLU), ``"linear"``, ``"cnn"``
        (13-layer all-convolutional CIFAR-10 net; rows are flattened H x W x C images) or a ``flax.linen.Module``
        instance returning one score per row (estimators with a user module pickle but cannot use :meth:`save`).
    risk : {"nnpu", "upu", "pn"}, default="nnpu"
        ``"pn"`` is supervised: then ``y`` holds true labels and ``prior`` is unused.
    loss : str or callable, default="sigmoid"
        Margin loss name of :data:`pujax.risk.LOSSES` or a callable ``ell(z)``.
    beta, gamma : float, default=0.0 and 1.0
        nnPU rule parameters (``beta = inf`` never corrects, i.e. uPU).
    epochs : int, default=100
        Passes over the data.
    batch_size : int, default=30000
        Minibatch size.
    batching : {"epoch", "stream"}, default="epoch"
        ``"epoch"``: each shuffled epoch is cut into ``ceil(n / batch_size)`` equal minibatches; ``"stream"``:
        minibatches of exactly ``min(batch_size, n)`` rows drawn from a stream of shuffled epochs that wraps around
        the epochs' ends (Kiryo et al.'s code); see :mod:`pujax.neural.train`.
    learning_rate : float, default=1e-3
        Adam step size.
    weight_decay : float, default=5e-3
        Coupled L2 weight decay (the defaults are those of Kiryo et al.'s code).
    prior : float in (0, 1) or "auto", default="auto"
        Class prior pi = P(y = 1), or ``"auto"`` to estimate it with :mod:`pujax.prior`.
    standardize : bool, default=True
        Centre and scale every feature inside ``fit`` (mean and standard deviation of the training rows, computed in
        float64; constant features get scale 1) before the float32 network, so that predictions do not depend on the
        units or offsets of the features; a scipy sparse ``X`` is scaled without centring. ``False`` feeds ``X`` as
        given (e.g. pixels / 255 as in Kiryo et al.).
    validation_fraction : float in [0, 1) or None, default=0.1
        Model selection (:mod:`pujax.neural.selection`): this share of the labeled positives and of the unlabeled
        rows is held out (stratified, seeded by ``random_state``; at least 2 labeled rows are needed), the models
        train on the rest, and each seed keeps the variables of the epoch whose held-out risk -- the ``risk``
        estimator with ``loss`` at ``prior``, model in evaluation mode -- is lowest. 0 or None: every row is trained
        on and the last epoch is kept (Kiryo et al.). The default selects: on MNIST it meets Kiryo et al.'s
        accuracy where the last epoch falls short, and on tabular data it stays nearer PU Extra Trees
        (``benchmarks/results/neural.md``, ``benchmarks/results/nnpu_tabular.md``).
    selection : {"risk", "proxy_accuracy", "proxy_auc"}, default="risk"
        The held-out criterion: the held-out risk above, or the proxy accuracy or proxy AUC of the held-out scores
        (:func:`pujax.neural.selection.selection_loss`; PU-Bench's and Wang et al.'s model selection).
    n_seeds : int, default=1
        Independently initialised models (different init and minibatch order) trained at once in one vmapped
        program; predictions use their mean score, each seed stays available (:meth:`seed_variables`,
        :meth:`seed_decision_function`).
    model_kwargs : dict or None, default=None
        Architecture options, e.g. ``{"activation": "softsign"}``, ``{"hidden_sizes": (300, 300, 300)}``,
        ``{"input_shape": (32, 32, 3)}`` for ``"cnn"``.
    callback : callable or None, default=None
        Evaluation hook ``callback(epoch, estimator)`` called after every epoch with the estimator's fitted
        attributes set to the current state (so ``estimator.score(X_test, y_test)`` works inside); returning
        ``True`` stops training. With a callback (or ``verbose``) epochs run one compiled epoch at a time; otherwise
        the whole training is two compiled programs (initial state, all epochs).
    random_state : None, int, numpy generator or JAX key, default=None
        Seeds initialisation and minibatch order.
    verbose : bool, default=False
        Progress bar per epoch (with the training risk and, with ``eval_set``, the test error).
    devices : None, int, sequence of jax.Device or jax.sharding.Mesh, default=None
        Where the seeds train (:mod:`pujax.devices`; None = every device): the ``n_seeds`` models are split over the
        devices, each trained on one device (the callback / verbose path runs on one device).
    pos_label : int, float, bool, str or None, default=None
        The value of ``y`` that marks the labeled positives (e.g. ``1`` for labels 1 = labeled / 2 = unlabeled, or
        ``"positive"``); ``None`` reads ``y`` as bool, {0, 1} or {-1, 1} with ``True`` / 1 labeled and refuses other
        values (:func:`pujax.validation.read_pu_labels`). ``classes_`` is ``[unlabeled value, labeled value]``.

    Attributes
    ----------
    variables_ : dict
        ``{"params": ..., "batch_stats": ...}`` nested dicts of numpy arrays with a leading seed axis.
    history_ : dict of ndarray
        Per-epoch arrays of shape ``(n_seeds, epochs_run)``: ``"risk"``, ``"corrections"`` and, with ``eval_set``,
        ``"test_error"``.
    validation_loss_ : ndarray of shape (n_seeds_, n_iter_) or None
        Held-out risk after every epoch (None with ``validation_fraction=0``).
    best_epoch_ : ndarray of int of shape (n_seeds_,)
        The epoch (0-based) whose variables each seed's model holds: the argmin of ``validation_loss_`` (first on
        ties), or the last epoch without model selection.
    mean_, scale_ : ndarray of shape (n_features_in_,) or None
        The per-feature centring and scaling (None with ``standardize=False``).
    n_seeds_ : int
        Number of models trained.
    n_iter_ : int
        Epochs run.
    prior_, classes_, n_features_in_, feature_names_in_ : as in every pujax estimator
        Class prior used and scikit-learn's fitted attributes.

    References
    ----------
    .. [1] R. Kiryo, G. Niu, M. C. du Plessis and M. Sugiyama, "Positive-Unlabeled Learning with Non-Negative Risk
       Estimator", NeurIPS 2017, Algorithm 1 (the nnPU training rule).
    .. [2] J. Wilton et al., "Positive-Unlabeled Learning using Random Forests via Recursive Greedy Risk
       Minimization", NeurIPS 2022: the uPU and nnPU risk estimators as eq. (5) and (6).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> from pujax.neural import NNPUClassifier
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, class_sep=2.0, random_state=0)
    >>> X_pu, s, prior = make_case_control(0, X, y, n_labeled=60)
    >>> clf = NNPUClassifier("linear", prior=prior, epochs=50, batch_size=128, learning_rate=0.01, random_state=0)
    >>> clf = clf.fit(X_pu, s)
    >>> clf.history_["risk"].shape  # (n_seeds, epochs)
    (1, 50)
    >>> bool(clf.score(X, y) > 0.7)
    True
    """

    _accept_sparse = "csr"  # scipy sparse X stays sparse: minibatches are made dense on the device (pujax.neural.rows)
    _fitted_schema = {"n_seeds_": "int", "variables_": "tree", "history_": "tree", "n_iter_": "int",
                      "mean_": "f[n_features_in_]|none", "scale_": "f[n_features_in_]|none",
                      "validation_loss_": "f[n_seeds_,n_iter_]|none", "best_epoch_": "i[n_seeds_]"}
    _expected_failed_checks = {
        "check_methods_sample_order_invariance": "float32 matrix products on XLA:CPU can differ by 1 ulp with the "
        "row order; the check allows a relative error of 1e-7",
    }

    def __init__(self, model="mlp", *, risk="nnpu", loss="sigmoid", beta=0.0, gamma=1.0, epochs=100,
                 batch_size=30000, batching="epoch", learning_rate=1e-3, weight_decay=5e-3, prior="auto",
                 standardize=True, validation_fraction=0.1, n_seeds=1, model_kwargs=None, callback=None,
                 random_state=None, verbose=False, devices=None, selection="risk", pos_label=None):
        self.model = model
        self.risk = risk
        self.loss = loss
        self.beta = beta
        self.gamma = gamma
        self.epochs = epochs
        self.batch_size = batch_size
        self.batching = batching
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.prior = prior
        self.standardize = standardize
        self.validation_fraction = validation_fraction
        self.n_seeds = n_seeds
        self.model_kwargs = model_kwargs
        self.callback = callback
        self.random_state = random_state
        self.verbose = verbose
        self.devices = devices
        self.selection = selection
        self.pos_label = pos_label

    # ------------------------------------------------------------------------------------------ helpers

    def _config(self, n_features):
        return make_config(model=self.model, risk=self.risk, loss=self.loss, beta=self.beta, gamma=self.gamma,
                           batch_size=self.batch_size, learning_rate=self.learning_rate,
                           weight_decay=self.weight_decay, model_kwargs=self.model_kwargs, n_features=n_features,
                           batching=self.batching, selection=self.selection)

    def _set_state(self, state, hist_list):
        self.variables_ = _to_numpy_tree(final_variables(state))
        hist = {k: np.concatenate([np.asarray(h[k]) for h in hist_list], axis=1) for k in hist_list[0]}
        val = hist.pop("validation", None)
        self.history_ = hist
        self.n_iter_ = int(hist["risk"].shape[1])
        self.validation_loss_ = None if val is None else np.asarray(val, np.float64)
        last = np.full(self.n_seeds_, self.n_iter_ - 1)
        self.best_epoch_ = np.asarray(state.get("best_epoch", last), np.int64)

    # ------------------------------------------------------------------------------------------ fit

    @property
    def _needs_prior(self):
        return self.risk != "pn"

    def fit(self, X: ArrayLike, y: ArrayLike, eval_set: tuple[ArrayLike, ArrayLike] | None = None) -> NNPUClassifier:
        """Fit on features ``X`` and PU labels ``y`` (1 = labeled positive, 0 = unlabeled; bool and {-1, +1} too).

        ``X`` may be a scipy sparse matrix (kept sparse; needs a float ``prior``). ``eval_set=(X_test, y_test)``
        (true labels) records the per-epoch test error in ``history_``.
        """
        check_in(self.risk, "risk", RISKS)
        epochs = check_int(self.epochs, "epochs")
        n_seeds = check_int(self.n_seeds, "n_seeds")
        if self.callback is not None and not callable(self.callback):
            raise TypeError(f"callback must be callable(epoch, estimator) or None; got {type(self.callback).__name__}.")
        check_bool(self.standardize, "standardize")
        check_float(self.validation_fraction, "validation_fraction", low=0.0, high=1.0, closed="left",
                    allow_none=True)
        X, s, _, prior = self._validate_fit(X, y)
        X = self._fit_standardization(X)
        if self.risk == "pn":
            self.prior_ = prior = float(np.mean(s))
        cfg = self._config(int(X.shape[1]))
        X_eval = y_eval = None
        if eval_set is not None:
            if not (isinstance(eval_set, (tuple, list)) and len(eval_set) == 2):
                raise ValueError("eval_set must be a pair (X_test, y_test) with true labels y_test.")
            X_eval = check_X(eval_set[0], name="eval_set[0]", dtype=np.float64)
            if X_eval.shape[1] != X.shape[1]:
                raise ValueError(f"eval_set[0] has {X_eval.shape[1]} features but X has {X.shape[1]}.")
            y_eval = check_pu_labels(eval_set[1], name="eval_set[1]", n_samples=X_eval.shape[0], require_both=False)
            X_eval, y_eval = jax.device_put(self._transform(X_eval)), jax.device_put(y_eval)
        key = as_key(self.random_state)
        keys = host_split(key, n_seeds)
        prior_arr = np.asarray(prior, X.dtype)
        self.n_seeds_ = n_seeds
        X, s, val = held_out_rows(X, s, self.validation_fraction, key)
        X, val = self._device_rows(X), None if val is None else (self._device_rows(val[0]), *val[1:])

        if self.callback is None and not self.verbose:
            state, hist = run_seeds("fit_many", cfg, epochs, keys, X, s, prior_arr, X_eval, y_eval, self.devices, val)
            self._set_state(state, [hist])
            return self

        Xj, sj, n_valid = pad_for_training(cfg, X, s)
        Xj, sj = jax.device_put(Xj), jax.device_put(sj)
        init = _get_compiled("init_many" if val is None else "init_many_val", cfg, 0)
        one_epoch = _get_compiled("epochs_many", cfg, 1, static_batches(cfg, n_valid))
        state = init(keys, Xj)
        hists = []
        with progress(epochs, desc=f"{type(self).__name__} ({self.risk})", verbose=self.verbose) as bar:
            for epoch in range(epochs):
                state, hist = one_epoch(state, Xj, sj, prior_arr, X_eval, y_eval, np.int32(n_valid), val)
                hists.append(hist)
                post = {k: float(np.mean(v)) for k, v in hist.items() if k != "corrections"}
                bar.set_postfix(**post)
                bar.update(1)
                if self.callback is not None:
                    self._set_state(state, hists)
                    if self.callback(epoch, self) is True:
                        break
        self._set_state(state, hists)
        return self

    # ------------------------------------------------------------------------------------------ predict

    def seed_decision_function(self, X):
        """Scores ``g(x)`` of every seed's model, shape ``(n_seeds, n)``."""
        return self._seed_scores(X)

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Mean score over seeds; positive means class 1."""
        return self.seed_decision_function(X).mean(axis=0)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """``classes_[1]`` iff the mean score is > 0 (sign of g, as Kiryo et al.)."""
        return self._to_classes(self.decision_function(X) > 0)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """``[1 - sigmoid(g), sigmoid(g)]`` of the mean score g: monotone in g, not a calibrated probability."""
        p1 = 1.0 / (1.0 + np.exp(-np.clip(self.decision_function(X).astype(np.float64), -500, 500)))
        return np.stack([1.0 - p1, p1], axis=1)


def _normalized_phi_to_proba(u):
    """``u = Phi / Phi_max`` up to 0.9, then a strictly increasing saturation to 1 (new rows can exceed the
    training maximum; a clip would tie their ranks): value and slope are continuous at 0.9."""
    return np.where(u <= 0.9, u, 1.0 - 0.1 * np.exp(-(u - 0.9) / 0.1))


@register_estimator
class VPUClassifier(_NeuralPUBase):
    r"""Variational PU learning (VPU, Chen et al. 2020): a deep PU classifier that needs no class prior.

    Scenario: case-control (DESIGN §1) -- labeled positives (``s = 1``) from p(x | y = 1), unlabeled rows
    (``s = 0``) from the marginal p(x); pass ``X = concat(X_P, X_U)``. The network models
    :math:`\Phi(x) = \sigma(g(x))`, trained on minibatches of ``batch_size`` positives and ``batch_size`` unlabeled
    rows with the variational loss :math:`\log E_U[\Phi] - E_P[\log\Phi]` plus ``mixup_weight`` times the MixUp
    regulariser :math:`E[(\log\tilde y - \log\Phi(\tilde x))^2]`, :math:`\tilde x = \gamma x_p + (1-\gamma) x_u`,
    :math:`\tilde y = \gamma + (1-\gamma)\Phi(x_u)`, :math:`\gamma \sim \mathrm{Beta}(\alpha, \alpha)`
    (:mod:`pujax.neural.vpu`). Since :math:`\Phi \propto P(y=1 \mid x) / \pi` at the optimum, the ratio of the
    means of :math:`\Phi` over unlabeled and over labeled positive rows estimates the class prior (``prior_``); by
    default a row is positive iff :math:`\Phi(x)` exceeds the threshold that calls that share of the unlabeled rows
    positive (``threshold``). Both are fitted and stored, so predictions of a row do not depend on the other rows.
    The fitted network is the one of the epoch with the lowest variational loss on held-out PU rows
    (``validation_fraction``; the authors' model selection), else the last epoch's.

    Parameters
    ----------
    model : "mlp", "linear", "cnn" or flax.linen.Module, default="mlp"
        The network computing the score :math:`g` (as :class:`NNPUClassifier`). ``"mlp"`` here defaults to
        ``batch_norm=False`` (d-300-300-300-300-1 with biases, ReLU), as the authors' network for vector data: the
        BatchNorm statistics of the two training passes per step (P ∪ U rows, then mixed rows) differ from those of
        the data at prediction time (``model_kwargs={"batch_norm": True}`` restores it).
    alpha : float > 0, default=0.3
        Parameter of the Beta(alpha, alpha) law of the MixUp weight (the authors' default).
    mixup_weight : float >= 0, default=0.03
        Weight :math:`\lambda` of the MixUp regulariser (the authors' default; their runs use 1e-4 to 0.3).
    epochs : int, default=50
        Passes over the unlabeled rows.
    batch_size : int, default=500
        Unlabeled rows per minibatch (each shuffled pass over U is cut into ``ceil(n_u / batch_size)`` equal
        batches); as many positives are drawn, cycling through shuffles of P.
    learning_rate : float, default=3e-4
        Adam step size (moments 0.5, 0.99 as the authors' code).
    steps_per_epoch : int or None, default=None
        Minibatches per epoch, drawn from a fresh shuffle of U (the authors: 30); None: one pass over U. The
        held-out loss is checked after every epoch.
    lr_halving_epochs : int or None, default=None
        Halve the step size after every that many epochs (the authors: 20); None: constant.
    threshold : {"prior", "half"}, default="prior"
        Decision rule. ``"prior"``: positive iff :math:`\log\Phi(x) > t`, :math:`t` the
        :math:`(1 - \hat\pi)`-quantile of :math:`\log\Phi` over all unlabeled rows and :math:`\hat\pi` = ``prior_`` =
        :math:`\min(1, \mathrm{mean}_U \Phi / \mathrm{mean}_P \Phi)` over the held-out (else training) unlabeled
        and labeled positive rows; ``"half"``: positive iff :math:`\Phi(x) / \Phi_{max} > 1/2` (the authors'
        evaluation). Neither uses a given class prior.
    validation_fraction : float in [0, 1) or None, default=0.1
        Share of the labeled positives and of the unlabeled rows held out (stratified by ``y``, drawn from
        ``random_state``; at least one row of each class) and not trained on. After every epoch the variational loss
        of the held-out rows (evaluation mode, no MixUp) is computed inside the compiled training program, and the
        variables of the epoch where it is lowest are kept. ``0`` or None: train on every row and keep the last
        epoch. The default is close to the authors' hold-out of 1/12 of the FashionMNIST training images.
    selection : {"loss", "proxy_accuracy", "proxy_auc"}, default="loss"
        The held-out criterion: the variational loss above, or the proxy accuracy or proxy AUC of the ``"prior"``
        decision rule on the held-out rows (:func:`pujax.neural.selection.selection_loss`).
    standardize : bool, default=True
        Centre and scale every feature inside ``fit`` (float64 statistics of the training rows) before the float32
        network; ``False`` feeds ``X`` as given.
    n_seeds : int, default=1
        Independently initialised models trained at once in one vmapped program; the decision value is the mean of
        the seeds' decision values.
    model_kwargs : dict or None, default=None
        Architecture options (see :class:`NNPUClassifier`).
    random_state : None, int, numpy generator or JAX key, default=None
        Seeds initialisation, minibatch order and MixUp weights.
    verbose : bool, default=False
        Progress bar per epoch with the loss terms (epochs then run one compiled epoch at a time).
    devices : None, int, sequence of jax.Device or jax.sharding.Mesh, default=None
        Where the seeds train (:mod:`pujax.devices`; None = every device); the verbose path runs on one device.
    pos_label : int, float, bool, str or None, default=None
        The value of ``y`` that marks the labeled positives (e.g. ``1`` for labels 1 = labeled / 2 = unlabeled, or
        ``"positive"``); ``None`` reads ``y`` as bool, {0, 1} or {-1, 1} with ``True`` / 1 labeled and refuses other
        values (:func:`pujax.validation.read_pu_labels`). ``classes_`` is ``[unlabeled value, labeled value]``.

    Attributes
    ----------
    variables_ : dict
        ``{"params": ..., "batch_stats": ...}`` nested dicts of numpy arrays with a leading seed axis.
    log_phi_max_ : ndarray of shape (n_seeds_,)
        :math:`\max_i \log\Phi(x_i)` over the training rows, per seed (the normaliser of :math:`\Phi`).
    prior_ : float
        Class prior estimate :math:`\hat\pi`, mean over seeds of :attr:`seed_priors_`.
    seed_priors_ : ndarray of shape (n_seeds_,)
        :math:`\hat\pi` of every seed.
    log_phi_threshold_ : ndarray of shape (n_seeds_,)
        :math:`t` of every seed (the ``"prior"`` rule).
    history_ : dict of ndarray
        Per-epoch means of ``"loss"``, ``"variational"`` and ``"mixup"``, shape ``(n_seeds, epochs)``.
    validation_loss_ : ndarray of shape (n_seeds_, n_iter_) or None
        Variational loss of the held-out rows after every epoch (None with ``validation_fraction=0``).
    best_epoch_ : ndarray of int of shape (n_seeds_,)
        The epoch (0-based) whose variables each seed's model holds: the argmin of ``validation_loss_`` (first on
        ties), ``n_iter_ - 1`` without validation.
    mean_, scale_ : ndarray of shape (n_features_in_,) or None
        The per-feature centring and scaling (None with ``standardize=False``).
    n_seeds_, n_iter_ : int
        Number of models trained and epochs run.
    classes_, n_features_in_, feature_names_in_ : as in every pujax estimator

    References
    ----------
    .. [1] H. Chen, F. Liu, Y. Wang, L. Zhao and H. Wu, "A Variational Approach for Learning from Positive and
       Unlabeled Data", NeurIPS 2020 (arXiv:1906.00642): the variational loss of its variational principle and the
       MixUp-based consistency regulariser and the optimum :math:`\Phi \propto P(y=1 \mid x)` (equation numbers
       not verified here: the paper is not in the project's library); defaults, the Adam moments and the
       ``Phi / max Phi > 1/2`` evaluation rule follow the authors' code (github.com/HC-Feynman/vpu, ``vpu.py``,
       ``run.py``).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pujax.data import make_case_control
    >>> from pujax.neural import VPUClassifier
    >>> X, y = make_classification(n_samples=300, n_features=6, n_informative=4, class_sep=2.0, random_state=0)
    >>> X_pu, s, _ = make_case_control(0, X, y, n_labeled=60)
    >>> clf = VPUClassifier("linear", epochs=100, batch_size=64, learning_rate=0.01, random_state=0).fit(X_pu, s)
    >>> clf.history_["loss"].shape  # (n_seeds, epochs)
    (1, 100)
    >>> bool(clf.score(X, y) > 0.7)
    True
    """

    _needs_prior = False
    _fitted_schema = {"n_seeds_": "int", "variables_": "tree", "log_phi_max_": "f[n_seeds_]", "history_": "tree",
                      "prior_": "float", "seed_priors_": "f[n_seeds_]", "log_phi_threshold_": "f[n_seeds_]",
                      "n_iter_": "int", "mean_": "f[n_features_in_]|none", "scale_": "f[n_features_in_]|none",
                      "validation_loss_": "f[n_seeds_,n_iter_]|none", "best_epoch_": "i[n_seeds_]"}
    _expected_failed_checks = {
        "check_methods_sample_order_invariance": "float32 matrix products on XLA:CPU can differ by 1 ulp with the "
        "row order; the check allows a relative error of 1e-7",
    }

    def __init__(self, model="mlp", *, alpha=0.3, mixup_weight=0.03, epochs=50, batch_size=500, learning_rate=3e-4,
                 steps_per_epoch=None, lr_halving_epochs=None, threshold="prior", validation_fraction=0.1,
                 standardize=True, n_seeds=1, model_kwargs=None, random_state=None, verbose=False, devices=None,
                 selection="loss", pos_label=None):
        self.model = model
        self.alpha = alpha
        self.mixup_weight = mixup_weight
        self.epochs = epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.steps_per_epoch = steps_per_epoch
        self.lr_halving_epochs = lr_halving_epochs
        self.threshold = threshold
        self.validation_fraction = validation_fraction
        self.standardize = standardize
        self.n_seeds = n_seeds
        self.model_kwargs = model_kwargs
        self.random_state = random_state
        self.verbose = verbose
        self.devices = devices
        self.selection = selection
        self.pos_label = pos_label

    def _config(self, n_features=None):
        model_kwargs = self.model_kwargs
        if self.model == "mlp" and (model_kwargs is None or isinstance(model_kwargs, dict)):
            model_kwargs = {"batch_norm": False, **(model_kwargs or {})}
        return make_vpu_config(model=self.model, alpha=self.alpha, mixup_weight=self.mixup_weight,
                               batch_size=self.batch_size, learning_rate=self.learning_rate,
                               model_kwargs=model_kwargs, n_features=n_features,
                               steps_per_epoch=self.steps_per_epoch, lr_halving_epochs=self.lr_halving_epochs,
                               selection=self.selection)

    def _check_params(self):
        """Validate the hyper-parameters (no data needed); return ``(epochs, n_seeds)``."""
        check_bool(self.standardize, "standardize")
        check_bool(self.verbose, "verbose")
        check_in(self.threshold, "threshold", ("prior", "half"))
        check_float(self.validation_fraction, "validation_fraction", low=0.0, high=1.0, closed="left",
                    allow_none=True)
        self._config()
        return check_int(self.epochs, "epochs"), check_int(self.n_seeds, "n_seeds")

    def fit(self, X: ArrayLike, y: ArrayLike) -> VPUClassifier:
        """Fit on features ``X`` and PU labels ``y`` (1 = labeled positive, 0 = unlabeled; bool and {-1, +1} too)."""
        epochs, n_seeds = self._check_params()
        X, s, _, _ = self._validate_fit(X, y)
        cfg = self._config(int(X.shape[1]))
        key = as_key(self.random_state)
        data = _vpu_prepare(self._fit_standardization(X), s, self.validation_fraction, key)
        keys = host_split(key, n_seeds)
        gammas = mixup_gammas(keys, cfg.alpha, epochs,
                              n_steps_per_epoch(len(data[2]), cfg.batch_size, cfg.steps_per_epoch))
        if self.verbose:
            model, hist = self._fit_epoch_by_epoch(cfg, keys, gammas, data)
        else:
            model, hist = shard_seeds(_vpu_compiled("fit", cfg), (keys, gammas), data, self.devices,
                                          _vpu_compiled("fit_one", cfg))
        hist = dict(hist)
        best = hist.pop("best_epoch", np.full(n_seeds, epochs - 1))
        val = hist.pop("validation", None)
        self.n_seeds_ = n_seeds
        self.variables_ = _to_numpy_tree(model.variables)
        self.log_phi_max_ = np.asarray(model.log_phi_max, np.float64)
        self.seed_priors_ = np.asarray(model.prior, np.float64)
        self.prior_ = float(np.mean(self.seed_priors_))
        self.log_phi_threshold_ = np.asarray(model.log_phi_threshold, np.float64)
        self.history_ = {k: np.asarray(v, np.float64) for k, v in hist.items()}
        self.validation_loss_ = None if val is None else np.asarray(val, np.float64)
        self.best_epoch_ = np.asarray(best, np.int64)
        self.n_iter_ = epochs
        return self

    def _fit_epoch_by_epoch(self, cfg, keys, gammas, data):
        state = _vpu_compiled("init" if data[3] is None else "init_val", cfg)(keys, data[0])
        one_epoch, hists = _vpu_compiled("epochs", cfg), []
        with progress(gammas.shape[1], desc=type(self).__name__, verbose=self.verbose) as bar:
            for e in range(gammas.shape[1]):
                state, hist = one_epoch(state, gammas[:, e:e + 1], *data)
                hists.append(hist)
                bar.set_postfix(**{k: float(np.mean(v)) for k, v in hist.items()})
                bar.update(1)
        hist = {k: np.concatenate([np.asarray(h[k]) for h in hists], axis=1) for k in hists[0]}
        if "best_epoch" in state:
            hist["best_epoch"] = np.asarray(state["best_epoch"])
        return _vpu_compiled("finish", cfg)(state, *data), hist

    def seed_decision_function(self, X: ArrayLike) -> np.ndarray:
        r"""Decision values of every seed, shape ``(n_seeds, n)``: :math:`\log\Phi(x) - t` (``threshold="prior"``)
        or :math:`\log\Phi(x) - \log\Phi_{max} + \log 2` (``"half"``)."""
        g = self._seed_scores(X).astype(np.float64)
        if self.threshold == "half":
            cut = self.log_phi_max_ - np.log(2.0)
        else:
            cut = self.log_phi_threshold_
        return -np.logaddexp(0.0, -g) - cut[:, None]

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Mean decision value over seeds; > 0 means class 1."""
        return self.seed_decision_function(X).mean(axis=0)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """``[1 - p, p]`` with ``u = exp(decision_function(X)) / 2`` (``Phi(x) / Phi_max`` for ``threshold="half"``,
        ``Phi(x) / (2 exp(t))`` for ``"prior"``; geometric mean over seeds): ``p = u`` up to 0.9, saturating to 1
        above (strictly increasing, so ``p > 1/2`` exactly where :meth:`predict` says class 1). Not calibrated."""
        u = np.exp(np.minimum(self.decision_function(X) - np.log(2.0), 50.0))
        p1 = _normalized_phi_to_proba(u)
        return np.stack([1.0 - p1, p1], axis=1)
