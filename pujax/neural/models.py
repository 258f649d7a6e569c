r"""Flax (``flax.linen``) models of the nnPU / uPU papers (Kiryo et al. 2017, §4 and Table 2; DESIGN §3.3).

Every model maps a batch of flattened feature rows ``x`` of shape ``(n, d)`` to real scores ``g(x)`` of shape
``(n,)`` and takes a ``train`` flag (BatchNorm uses batch statistics when ``train=True`` and its running averages
otherwise).

* :class:`Linear` -- ``g(x) = w^T x + b``.
* :class:`MLP` -- ``d-300-300-300-300-1`` by default: each hidden layer is a Linear layer *without bias*, then
  BatchNorm, then ReLU (the MNIST net of Kiryo et al.); ``activation="softsign"`` gives the epsilon / 20News nets.
* :class:`AllConvNet` -- the 13-layer all-convolutional CIFAR-10 net
  ``(32*32*3)-[C(3*3,96,1)]*2-C(3*3,96,2)-[C(3*3,192,1)]*2-C(3*3,192,2)-C(3*3,192,1)-C(1*1,192,1)-C(1*1,10,1)-1000-1000-1``
  with BatchNorm + ReLU after every convolution (PU ET paper §5; Kiryo et al. Table 2).

Why ``flax.linen`` and not ``flax.nnx``: linen modules are stateless descriptions whose parameters are plain
nested dicts of arrays. ``init``/``apply`` are pure functions, so a whole training run is one pure function of a PRNG
key that ``jax.vmap`` maps over seeds without any state splitting/merging, and the fitted parameters are exactly the
plain containers that :mod:`pujax.persistence` saves as ``.npz`` + ``.json``. BatchNorm statistics live in the
separate ``batch_stats`` collection (updated through ``mutable=["batch_stats"]``).

A user model is any ``flax.linen.Module`` whose ``__call__(x)`` returns one score per row (shape ``(n,)`` or
``(n, 1)``); if ``__call__`` accepts a ``train`` keyword it is passed ``train=True`` during training. Extra variable
collections (such as ``batch_stats``) are updated as mutable state; a ``"dropout"`` PRNG stream is supplied.
If ``__call__`` accepts a ``mask`` keyword (boolean ``(n,)``, as the models here: BatchNorm statistics over the
masked-in rows only), training pads the rows to a size bucket (:mod:`pujax.compilation`) so that data of a similar
size reuses the compiled program; without it the rows are not padded.
"""
from __future__ import annotations

import inspect
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import flax.linen as nn
import jax
import jax.numpy as jnp

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["Linear", "MLP", "AllConvNet", "Heads", "make_model", "accepts_train", "accepts_mask", "scores_of",
           "MODEL_NAMES", "ACTIVATIONS"]

ACTIVATIONS = {"relu": nn.relu, "softsign": nn.soft_sign, "tanh": jnp.tanh, "gelu": nn.gelu}
MODEL_NAMES = ("linear", "mlp", "cnn")

# Chainer's BatchNormalization defaults (Kiryo et al.'s code): decay 0.9, eps 2e-5.
_BN_MOMENTUM = 0.9
_BN_EPS = 2e-5


def _activation(name):
    if callable(name):
        return name
    try:
        return ACTIVATIONS[name]
    except (KeyError, TypeError):
        raise ValueError(f"activation={name!r} is not valid; choose one of {sorted(ACTIVATIONS)}.") from None


class Linear(nn.Module):
    """Linear score ``g(x) = w^T x + b``."""

    @nn.compact
    def __call__(self, x: ArrayLike, train: bool = False, mask: ArrayLike | None = None) -> jax.Array:
        return nn.Dense(1, name="out")(x)[..., 0]


class MLP(nn.Module):
    """Kiryo et al.'s multilayer perceptron: ``d-h_1-...-h_k-1``.

    Attributes:
      hidden_sizes: widths of the hidden layers; ``(300, 300, 300, 300)`` is the 6-layer MNIST / epsilon net.
      activation: ``"relu"`` (MNIST) or ``"softsign"`` (epsilon, 20News), or ``"tanh"``, ``"gelu"``, a callable.
      batch_norm: hidden Linear layers have no bias and are followed by BatchNorm (True, as the paper), or have a
        bias and no BatchNorm (False).
    """

    hidden_sizes: Sequence[int] = (300, 300, 300, 300)
    activation: str = "relu"
    batch_norm: bool = True

    @nn.compact
    def __call__(self, x: ArrayLike, train: bool = False, mask: ArrayLike | None = None) -> jax.Array:
        act = _activation(self.activation)
        h = x
        for i, width in enumerate(self.hidden_sizes):
            h = nn.Dense(int(width), use_bias=not self.batch_norm, name=f"dense_{i}")(h)
            if self.batch_norm:
                h = nn.BatchNorm(use_running_average=not train, momentum=_BN_MOMENTUM, epsilon=_BN_EPS,
                                 name=f"bn_{i}")(h, mask=None if mask is None else mask[:, None])
            h = act(h)
        return nn.Dense(1, name="out")(h)[..., 0]


class AllConvNet(nn.Module):
    """The 13-layer all-convolutional CIFAR-10 net of Kiryo et al. (2017), on flattened ``H x W x C`` rows.

    Attributes:
      input_shape: ``(height, width, channels)`` of one image; rows of ``x`` are reshaped to it (the
        ``pujax.datasets`` CIFAR-10 layout is height x width x channel).
      channels: the two convolution widths (96, 192 in the paper).
      hidden: width of the two fully connected layers (1000 in the paper).
      batch_norm: BatchNorm after every convolution (True, as Kiryo et al.'s code).
    """

    input_shape: Sequence[int] = (32, 32, 3)
    channels: Sequence[int] = (96, 192)
    hidden: int = 1000
    activation: str = "relu"
    batch_norm: bool = True

    @nn.compact
    def __call__(self, x: ArrayLike, train: bool = False, mask: ArrayLike | None = None) -> jax.Array:
        act = _activation(self.activation)
        h = x.reshape((x.shape[0],) + tuple(int(v) for v in self.input_shape))
        c1, c2 = (int(c) for c in self.channels)
        # (features, kernel, stride)
        spec = [(c1, 3, 1), (c1, 3, 1), (c1, 3, 2), (c2, 3, 1), (c2, 3, 1), (c2, 3, 2), (c2, 3, 1), (c2, 1, 1),
                (10, 1, 1)]
        for i, (feat, k, stride) in enumerate(spec):
            h = nn.Conv(feat, (k, k), strides=(stride, stride), padding="SAME" if k > 1 else "VALID",
                        name=f"conv_{i}")(h)
            if self.batch_norm:
                h = nn.BatchNorm(use_running_average=not train, momentum=_BN_MOMENTUM, epsilon=_BN_EPS,
                                 name=f"bn_{i}")(h, mask=None if mask is None else mask[:, None, None, None])
            h = act(h)
        h = h.reshape((h.shape[0], -1))
        h = act(nn.Dense(int(self.hidden), name="fc_0")(h))
        h = act(nn.Dense(int(self.hidden), name="fc_1")(h))
        return nn.Dense(1, name="out")(h)[..., 0]


class Heads(nn.Module):
    """``n`` independently initialised copies of a network on the same rows, outputs stacked: shape ``(rows, n)``.

    The deep PU methods that train two networks side by side (LBE's classifier and labeling-bias networks) use it:
    one set of parameters ``{"net_0": ..., "net_1": ...}``, one optimiser, one compiled program.

    Attributes:
      base: the network to copy (a module of this file or any module returning one score per row).
      n: number of copies.
    """

    base: nn.Module
    n: int = 2

    @nn.compact
    def __call__(self, x: ArrayLike, train: bool = False, mask: ArrayLike | None = None) -> jax.Array:
        kwargs = {"train": train} if accepts_train(self.base) else {}
        if mask is not None and accepts_mask(self.base):
            kwargs["mask"] = mask
        outs = [scores_of(self.base.clone(parent=self, name=f"net_{i}")(x, **kwargs)) for i in range(self.n)]
        return jnp.stack(outs, axis=-1)


def _infer_image_shape(n_features: int):
    """Square RGB (or grey) image shape for ``n_features`` pixels values, else ``None``."""
    for c in (3, 1):
        side = int(round(math.sqrt(n_features / c)))
        if side * side * c == n_features:
            return (side, side, c)
    return None


def make_model(model: str = "mlp", n_features: int | None = None, **kwargs: Any) -> nn.Module:
    """Return a flax module for ``model`` = ``"linear"``, ``"mlp"``, ``"cnn"`` or a user ``flax.linen.Module``.

    ``kwargs`` are passed to the model class (e.g. ``hidden_sizes=(300, 300, 300)``, ``activation="softsign"``,
    ``input_shape=(32, 32, 3)``). For ``"cnn"`` without ``input_shape`` a square RGB (or grey) image is inferred
    from ``n_features``.
    """
    if isinstance(model, nn.Module):
        if kwargs:
            raise ValueError("model_kwargs must be empty when model is a flax Module instance; configure the module "
                             "itself instead.")
        return model
    if isinstance(model, type) and issubclass(model, nn.Module):
        raise TypeError(f"model={model.__name__} is a class; pass an instance such as {model.__name__}().")
    if model == "linear":
        if kwargs:
            raise ValueError(f"model='linear' takes no model_kwargs; got {sorted(kwargs)}.")
        return Linear()
    if model == "mlp":
        bad = set(kwargs) - {"hidden_sizes", "activation", "batch_norm"}
        if bad:
            raise ValueError(f"model_kwargs {sorted(bad)} are not valid for model='mlp'; use hidden_sizes, "
                             f"activation, batch_norm.")
        if "hidden_sizes" in kwargs:
            kwargs["hidden_sizes"] = tuple(int(h) for h in kwargs["hidden_sizes"])
        if "activation" in kwargs:
            _activation(kwargs["activation"])
        return MLP(**kwargs)
    if model == "cnn":
        bad = set(kwargs) - {"input_shape", "channels", "hidden", "activation", "batch_norm"}
        if bad:
            raise ValueError(f"model_kwargs {sorted(bad)} are not valid for model='cnn'; use input_shape, channels, "
                             f"hidden, activation, batch_norm.")
        kwargs = dict(kwargs)
        if "input_shape" not in kwargs and n_features is not None:
            shape = _infer_image_shape(n_features)
            if shape is None:
                raise ValueError(f"model='cnn' cannot infer an image shape from {n_features} features; pass "
                                 f"model_kwargs={{'input_shape': (height, width, channels)}}.")
            kwargs["input_shape"] = shape
        if "input_shape" in kwargs:
            kwargs["input_shape"] = tuple(int(v) for v in kwargs["input_shape"])
            if n_features is not None and math.prod(kwargs["input_shape"]) != n_features:
                raise ValueError(f"model_kwargs['input_shape']={kwargs['input_shape']} has "
                                 f"{math.prod(kwargs['input_shape'])} values but X has {n_features} features.")
        if "channels" in kwargs:
            kwargs["channels"] = tuple(int(c) for c in kwargs["channels"])
            if len(kwargs["channels"]) != 2:
                raise ValueError("model_kwargs['channels'] must hold two widths, e.g. (96, 192).")
        if "activation" in kwargs:
            _activation(kwargs["activation"])
        return AllConvNet(**kwargs)
    raise ValueError(f"model={model!r} is not valid; choose one of {list(MODEL_NAMES)} or pass a flax.linen.Module "
                     f"instance.")


def _accepts(module: nn.Module, name: str) -> bool:
    try:
        params = inspect.signature(type(module).__call__).parameters
    except (TypeError, ValueError):  # pragma: no cover
        return False
    return name in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def accepts_train(module: nn.Module) -> bool:
    """Whether ``module.__call__`` takes a ``train`` argument (or ``**kwargs``)."""
    return _accepts(module, "train")


def accepts_mask(module: nn.Module) -> bool:
    """Whether ``module.__call__`` takes a ``mask`` argument (rows of a padded minibatch that count: BatchNorm
    statistics over them only), so that training can pad rows to a size bucket."""
    return _accepts(module, "mask")


def scores_of(out, multi: bool = False) -> jax.Array:
    """Flatten a model output of shape ``(n,)`` or ``(n, 1)`` to ``(n,)``; anything else is an error (``multi``:
    the ``(n, k)`` outputs of :class:`Heads` pass unchanged)."""
    out = jnp.asarray(out)
    if multi:
        return out
    if out.ndim == 2 and out.shape[1] == 1:
        out = out[:, 0]
    if out.ndim != 1:
        raise ValueError(f"the model returned shape {out.shape}; a PU model must return one score per row, shape (n,) "
                         f"or (n, 1).")
    return out
