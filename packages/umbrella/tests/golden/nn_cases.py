"""Cases of ``nn`` compared with the reference: activations, initializers, attention.

Shared by ``generate.py`` (run under the reference implementation) and
``test_nn_golden.py``. Every function here takes the implementation's ``nn``,
``random`` and ``grad`` as arguments, so the same code runs on both sides and
returns host arrays keyed by case name. Inputs come from NumPy generators
seeded by the case name.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

# Unary activations compared value for value and by their derivatives.
UNARY = [
    "celu", "elu", "gelu", "hard_sigmoid", "hard_silu", "hard_tanh", "identity",
    "leaky_relu", "log_sigmoid", "mish", "relu", "relu6", "selu", "sigmoid", "silu",
    "soft_sign", "softplus", "sparse_plus", "sparse_sigmoid", "squareplus", "tanh",
]  # fmt: skip

X = np.concatenate(
    [np.linspace(-6.0, 6.0, 49), [-80.0, -20.0, -1e-3, 1e-3, 0.37, 20.0, 80.0]]
).astype(np.float32)
# log1mexp is defined for x > 0; both sides of its branch point log(2).
X_POS = np.concatenate(
    [np.geomspace(1e-4, 60.0, 40), [np.log(2.0) * 0.999, np.log(2.0) * 1.001]]
).astype(np.float32)
LME = np.linspace(-4.0, 5.0, 15).astype(np.float32).reshape(3, 5)
LME_WHERE = np.array(
    [[True, False, True, True, False], [True, True, True, True, True], [False] * 4 + [True]]
)
LOGMEANEXP = {
    "all": {},
    "axis0": {"axis": 0},
    "axis1_keep": {"axis": 1, "keepdims": True},
    "axes": {"axis": (0, 1)},
    "where": {"axis": 1, "where": True},
    "where_all": {"where": True, "keepdims": True},
}


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(name.encode()))


def activations(nn: Any, grad: Any, vmap: Any) -> dict[str, np.ndarray]:
    """Values and derivatives of the unary activations, log1mexp and logmeanexp."""
    out: dict[str, np.ndarray] = {}
    for name in UNARY:
        fn = getattr(nn, name)
        out[f"act|{name}|value"] = np.asarray(fn(X))
        out[f"act|{name}|grad"] = np.asarray(vmap(grad(fn))(X))
    out["act|log1mexp|value"] = np.asarray(nn.log1mexp(X_POS))
    out["act|log1mexp|grad"] = np.asarray(vmap(grad(nn.log1mexp))(X_POS))
    out["act|gelu_exact|value"] = np.asarray(nn.gelu(X, approximate=False))
    for label, kwargs in LOGMEANEXP.items():
        kw = dict(kwargs)
        if kw.get("where"):
            kw["where"] = LME_WHERE
        out[f"lme|{label}|value"] = np.asarray(nn.logmeanexp(LME, **kw))
    # Masked normalizations (``where=``), as optax's losses call them.
    for axis in (0, 1):
        for name in ("softmax", "log_softmax", "standardize", "logsumexp"):
            value = getattr(nn, name)(LME, axis=axis, where=LME_WHERE)
            out[f"lme|{name}_where_axis{axis}|value"] = np.asarray(value)
    for algorithm in ("fast", "stable"):
        value = nn.standardize(LME, axis=1, algorithm=algorithm)
        out[f"lme|standardize_{algorithm}|value"] = np.asarray(value)
    out["lme|log_softmax_positional|value"] = np.asarray(nn.log_softmax(LME, 0, LME_WHERE))
    out["lme|one_hot_keyword|value"] = np.asarray(nn.one_hot(np.arange(4) % 3, num_classes=3))
    return out


InitBuilder = Callable[[Any], Any]
# name -> (builder of the initializer from ``nn.initializers``, seed, shape, dtype)
INITIALIZERS: dict[str, tuple[InitBuilder, int, tuple[int, ...], str]] = {
    "zeros": (lambda i: i.zeros, 0, (2, 3), "float32"),
    "ones": (lambda i: i.ones, 0, (3, 2), "float32"),
    "constant": (lambda i: i.constant(-7.0), 0, (2, 3), "float32"),
    "constant_int": (lambda i: i.constant(3, dtype="int32"), 0, (4,), "int32"),
    "uniform": (lambda i: i.uniform(), 0, (2, 3), "float32"),
    "uniform_10": (lambda i: i.uniform(10.0), 42, (4, 5), "float32"),
    "uniform_f16": (lambda i: i.uniform(2.0), 1, (6,), "float16"),
    "normal": (lambda i: i.normal(), 0, (3, 4), "float32"),
    "normal_5": (lambda i: i.normal(5.0), 42, (2, 3), "float32"),
    "truncated_normal": (lambda i: i.truncated_normal(2.0), 0, (3, 4), "float32"),
    "truncated_bounds": (
        lambda i: i.truncated_normal(1.0, lower=-1.0, upper=0.5),
        7,
        (9,),
        "float32",
    ),
    "glorot_uniform": (lambda i: i.glorot_uniform(), 0, (5, 7), "float32"),
    "glorot_normal": (lambda i: i.glorot_normal(), 0, (5, 7), "float32"),
    "xavier_uniform": (lambda i: i.xavier_uniform(), 3, (4, 2), "float32"),
    "xavier_normal": (lambda i: i.xavier_normal(), 3, (4, 2), "float32"),
    "lecun_uniform": (lambda i: i.lecun_uniform(), 1, (6, 3), "float32"),
    "lecun_normal": (lambda i: i.lecun_normal(), 1, (6, 3), "float32"),
    "he_uniform": (lambda i: i.he_uniform(), 2, (3, 3, 4, 8), "float32"),
    "he_normal": (lambda i: i.he_normal(), 2, (3, 3, 4, 8), "float32"),
    "kaiming_uniform": (lambda i: i.kaiming_uniform(), 5, (2, 6), "float32"),
    "kaiming_normal": (lambda i: i.kaiming_normal(), 5, (2, 6), "float32"),
    "vs_batch": (
        lambda i: i.variance_scaling(2.0, "fan_in", "normal", in_axis=1, out_axis=0, batch_axis=2),
        0,
        (4, 5, 3),
        "float32",
    ),
    "vs_axes": (
        lambda i: i.variance_scaling(
            0.5, "fan_avg", "truncated_normal", in_axis=(0, 1), out_axis=-1, batch_axis=(2,)
        ),
        9,
        (2, 3, 2, 4),
        "float32",
    ),
    "vs_1d": (
        lambda i: i.variance_scaling(1.0, "fan_out", "uniform", in_axis=0, out_axis=0),
        4,
        (7,),
        "float32",
    ),
    "vs_complex_uniform": (
        lambda i: i.variance_scaling(1.0, "fan_in", "uniform"),
        0,
        (3, 4),
        "complex64",
    ),
    "vs_complex_truncated": (
        lambda i: i.variance_scaling(1.0, "fan_avg", "truncated_normal"),
        1,
        (3, 4),
        "complex64",
    ),
    "orthogonal_tall": (lambda i: i.orthogonal(), 0, (5, 3), "float32"),
    "orthogonal_wide": (lambda i: i.orthogonal(), 1, (3, 5), "float32"),
    "orthogonal_col0": (lambda i: i.orthogonal(2.0, column_axis=0), 2, (4, 2, 3), "float32"),
    "orthogonal_empty": (lambda i: i.orthogonal(), 0, (0, 3), "float32"),
    "delta_orthogonal_3d": (lambda i: i.delta_orthogonal(), 0, (3, 4, 4), "float32"),
    "delta_orthogonal_4d": (lambda i: i.delta_orthogonal(1.5), 1, (3, 2, 2, 5), "float32"),
    "delta_orthogonal_5d": (lambda i: i.delta_orthogonal(), 2, (3, 3, 1, 2, 2), "float32"),
}
for _mode in ("fan_in", "fan_out", "fan_avg", "fan_geo_avg"):
    for _dist in ("truncated_normal", "normal", "uniform"):
        INITIALIZERS[f"vs_{_mode}_{_dist}"] = (
            lambda i, m=_mode, d=_dist: i.variance_scaling(1.3, m, d),
            11,
            (3, 2, 4, 5),
            "float32",
        )


def initializers(nn: Any, random: Any) -> dict[str, np.ndarray]:
    """Every initializer case, called eagerly with ``random.key(seed)``."""
    out: dict[str, np.ndarray] = {}
    for name, (build, seed, shape, dtype) in INITIALIZERS.items():
        init = build(nn.initializers)
        out[f"init|{name}"] = np.asarray(init(random.key(seed), shape, np.dtype(dtype)))
    return out


# name -> keyword arguments describing one dot_product_attention call. Shapes:
# B batch, T query length, S key length, N query heads, K key/value heads, H head size.
ATTENTION: dict[str, dict[str, Any]] = {
    "plain": {},
    "scale": {"scale": 0.3},
    "bias": {"bias": (2, 4, 3, 5)},
    "bias_broadcast": {"bias": (1, 1, 3, 5)},
    "mask": {"mask": (2, 1, 3, 5)},
    "mask_full_heads": {"mask": (2, 4, 3, 5)},
    "causal": {"is_causal": True, "S": 3},
    "gqa": {"K": 2},
    "gqa_mqa_bias_mask": {"K": 1, "bias": (2, 4, 3, 5), "mask": (1, 1, 3, 5)},
    "seq_lengths": {"q_len": [2, 3], "kv_len": [5, 1]},
    "kv_lengths_only": {"kv_len": [4, 2]},
    "window": {"window": 1, "S": 3},
    "window_pair": {"window": (2, 0), "T": 4, "S": 4},
    "unbatched": {"unbatched": True},
    "everything": {
        "K": 2,
        "T": 4,
        "S": 4,
        "is_causal": True,
        "bias": (2, 1, 4, 4),
        "mask": (2, 4, 4, 4),
        "q_len": [3, 4],
        "kv_len": [4, 2],
        "window": (1, 1),
    },
}
ATTENTION_GRADS = ("plain", "gqa_mqa_bias_mask", "everything")


def attention_inputs(name: str) -> tuple[tuple[np.ndarray, ...], dict[str, Any]]:
    """The positional arrays and keyword arguments of one attention case."""
    spec = ATTENTION[name]
    rng = _rng(name)
    b, t, s, n, k, h = 2, spec.get("T", 3), spec.get("S", 5), 4, spec.get("K", 4), 8
    q = rng.standard_normal((b, t, n, h)).astype(np.float32)
    kk = rng.standard_normal((b, s, k, h)).astype(np.float32)
    v = rng.standard_normal((b, s, k, h)).astype(np.float32)
    if spec.get("unbatched"):
        q, kk, v = q[0], kk[0], v[0]
    kwargs: dict[str, Any] = {}
    if "bias" in spec:
        shape = (*spec["bias"][:2], t, s)
        kwargs["bias"] = rng.standard_normal(shape).astype(np.float32)
    if "mask" in spec:
        shape = (*spec["mask"][:2], t, s)
        kwargs["mask"] = rng.uniform(size=shape) < 0.7
    for key in ("scale", "is_causal"):
        if key in spec:
            kwargs[key] = spec[key]
    if "q_len" in spec:
        kwargs["query_seq_lengths"] = np.asarray(spec["q_len"], np.int32)
    if "kv_len" in spec:
        kwargs["key_value_seq_lengths"] = np.asarray(spec["kv_len"], np.int32)
    if "window" in spec:
        kwargs["local_window_size"] = spec["window"]
    return (q, kk, v), kwargs


def attention(nn: Any, grad: Any) -> dict[str, np.ndarray]:
    """Outputs of every attention case; input gradients of a few."""
    out: dict[str, np.ndarray] = {}
    for name in ATTENTION:
        (q, k, v), kwargs = attention_inputs(name)
        out[f"attn|{name}"] = np.asarray(nn.dot_product_attention(q, k, v, **kwargs))
        if name in ATTENTION_GRADS:
            w = _rng(name + "|w").standard_normal(q.shape).astype(np.float32)

            def loss(
                q: Any, k: Any, v: Any, kwargs: dict[str, Any] = kwargs, w: np.ndarray = w
            ) -> Any:
                return (nn.dot_product_attention(q, k, v, **kwargs) * w).sum()

            for i, g in enumerate(grad(loss, argnums=(0, 1, 2))(q, k, v)):
                out[f"attn_grad|{name}|{i}"] = np.asarray(g)
    return out
