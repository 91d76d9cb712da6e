"""Typed PRNG key cases, run through either implementation.

``run(jx)`` takes the top-level module (``jax``, or ``tessela``) and returns a
JSON-able dict: key data as nested lists of ints, sampled values as lists of
floats, printed forms as strings, exception classes by name.
``generate.py`` stores JAX 0.10.2's results in ``keys_golden.json``;
``test_typed_keys.py`` compares Tessela's with them.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import numpy as np


def _data(jx: Any, keys: Any) -> Any:
    return np.asarray(jx.random.key_data(keys)).tolist()


def _error(fn: Callable[[], Any]) -> str:
    """The builtin exception classes the error is an instance of, joined by ``|``."""
    try:
        fn()
    except Exception as err:  # the classes are the result
        kinds = {
            c.__name__
            for c in type(err).__mro__
            if c.__module__ == "builtins" and issubclass(c, Exception) and c is not Exception
        }
        return "|".join(sorted(kinds))
    return "no error"


def _values(x: Any) -> list[float]:
    return [float(v) for v in np.asarray(x).ravel()]


def _keys(jx: Any, out: dict[str, Any]) -> None:
    random, jnp = jx.random, jx.numpy
    k = random.key(0)
    out["key0"] = _data(jx, k)
    out["key43"] = _data(jx, random.key(43))
    out["split2"] = _data(jx, random.split(k))
    out["split3"] = _data(jx, random.split(k, 3))
    out["split_shape"] = _data(jx, random.split(k, (2, 2)))
    out["fold_in3"] = _data(jx, random.fold_in(k, 3))
    out["uniform3"] = _values(random.uniform(k, (3,)))
    out["bits4"] = np.asarray(random.bits(k, (4,))).tolist()
    out["normal2"] = _values(random.normal(random.fold_in(k, 1), (2,)))
    out["wrap"] = _data(jx, random.wrap_key_data(np.array([[0, 5], [1, 2]], np.uint32)))
    out["wrap_shape"] = list(random.wrap_key_data(np.zeros((3, 2), np.uint32)).shape)
    out["key_data_dtype"] = str(random.key_data(k).dtype)
    out["shape"] = list(k.shape)
    keys = random.split(k, 3)
    out["sizes"] = [keys.size, keys.ndim, keys.itemsize, keys.nbytes, len(keys)]
    out["key_impl"] = str(random.key_impl(keys))
    out["dtype"] = str(k.dtype)
    out["prng_key"] = bool(jnp.issubdtype(k.dtype, jx.dtypes.prng_key))
    out["extended"] = bool(jnp.issubdtype(k.dtype, jx.dtypes.extended))
    out["integer"] = bool(jnp.issubdtype(k.dtype, jnp.integer))
    out["float_not_key"] = bool(jnp.issubdtype(jnp.float32, jx.dtypes.prng_key))
    out["is_array"] = isinstance(k, jx.Array)
    out["leaves"] = len(jx.tree_util.tree_leaves(k))
    out["leaves_pair"] = len(jx.tree_util.tree_leaves({"k": k, "ks": random.split(k)}))
    out["repr"] = repr(k)
    out["str"] = str(k)
    out["repr_split"] = repr(random.split(k))
    out["repr_split_2x2"] = repr(random.split(k, (2, 2)))
    out["pickled"] = repr(pickle.loads(pickle.dumps(random.split(k))))


def _transforms(jx: Any, out: dict[str, Any]) -> None:
    random, lax = jx.random, jx.lax
    k = random.key(0)
    ks = random.split(k, 3)
    out["jit_split"] = _data(jx, jx.jit(random.split)(k))
    out["jit_uniform"] = _values(jx.jit(lambda k: random.uniform(k, (3,)))(k))
    out["jit_identity"] = _data(jx, jx.jit(lambda k: k)(k))
    out["jit_out_dtype"] = str(jx.jit(lambda k: random.split(k)[0])(k).dtype)
    out["vmap_uniform"] = _values(jx.vmap(random.uniform)(ks))
    out["vmap_split"] = _data(jx, jx.vmap(random.split)(ks))
    out["vmap_fold_in"] = _data(jx, jx.vmap(random.fold_in, (None, 0))(k, np.arange(3)))
    out["vmap_out_axis1"] = _data(jx, jx.vmap(random.split, out_axes=1)(ks))
    out["grad"] = float(jx.grad(lambda x, k: x * random.uniform(k))(2.0, k))
    out["jit_grad"] = float(jx.jit(jx.grad(lambda x, k: x * random.normal(k)))(2.0, k))
    out["grad_of_key"] = _error(lambda: jx.grad(lambda k: 1.0)(k))

    def body(c: Any, _: Any) -> Any:
        a, b = random.split(c)
        return a, random.uniform(b)

    carry, ys = lax.scan(body, k, None, length=3)
    out["scan_carry"] = _data(jx, carry)
    out["scan_ys"] = _values(ys)
    keys_out = lax.scan(lambda c, x: (c, random.fold_in(x, 1)), 0.0, ks)[1]
    out["scan_key_xs_ys"] = _data(jx, keys_out)
    out["device_put"] = _data(jx, jx.device_put(k))
    out["device_put_dtype"] = str(jx.device_put(k).dtype)
    out["eval_shape"] = [list(jx.eval_shape(random.split, k).shape),
                         str(jx.eval_shape(random.split, k).dtype)]  # fmt: skip
    jaxpr = jx.make_jaxpr(lambda k: random.split(k))(k)
    out["jaxpr_in_aval"] = str(jaxpr.in_avals[0])
    out["jaxpr_out_aval"] = str(jaxpr.out_avals[0])
    out["cond"] = _data(jx, lax.cond(True, lambda k: random.fold_in(k, 1), lambda k: k, k))
    d = np.array([[0, 5], [1, 2]], np.uint32)
    out["jit_wrap"] = _data(jx, jx.jit(random.wrap_key_data)(d))
    out["vmap_wrap"] = _data(jx, jx.vmap(random.wrap_key_data)(d))
    out["vmap_key_data"] = np.asarray(jx.vmap(random.key_data)(ks)).tolist()
    out["vmap_seed"] = _data(jx, jx.vmap(random.key)(np.arange(3)))
    out["fori_split"] = _data(jx, lax.fori_loop(0, 3, lambda i, c: random.split(c)[0], k))
    state = lax.while_loop(
        lambda c: c[1] < 2, lambda c: (random.fold_in(c[0], c[1]), c[1] + 1), (k, 0)
    )
    out["while_fold_in"] = _data(jx, state[0])
    aux = jx.grad(lambda x, k: (x * random.uniform(k), random.split(k)[0]), has_aux=True)
    out["grad_has_aux"] = _data(jx, aux(1.0, k)[1])
    out["checkpoint"] = _values(jx.checkpoint(lambda k: random.uniform(random.split(k)[1]))(k))
    out["lax_map"] = _values(lax.map(random.uniform, ks))
    wrap_unwrap = jx.make_jaxpr(lambda d: random.key_data(random.wrap_key_data(d)))
    out["jaxpr_wrap_unwrap"] = str(wrap_unwrap(np.zeros((3, 2), np.uint32)))
    out["jaxpr_index"] = str(jx.make_jaxpr(lambda ks: ks[0])(ks))


def _shape_ops(jx: Any, out: dict[str, Any]) -> None:
    random, jnp = jx.random, jx.numpy
    k = random.key(0)
    ks = random.split(k, 6)
    out["index0"] = _data(jx, ks[0])
    out["index_neg"] = _data(jx, ks[-1])
    out["slice"] = _data(jx, ks[1:4:2])
    out["fancy"] = _data(jx, ks[np.array([5, 0, 2])])
    out["reshape"] = _data(jx, ks.reshape(2, 3))
    out["reshape_T"] = _data(jx, ks.reshape(2, 3).T)
    out["transpose"] = _data(jx, jnp.transpose(ks.reshape(2, 3)))
    out["concatenate"] = _data(jx, jnp.concatenate([ks[:2], ks[4:]]))
    out["stack"] = _data(jx, jnp.stack([k, ks[1]]))
    out["broadcast_to"] = _data(jx, jnp.broadcast_to(k, (2, 2)))
    out["expand_dims"] = _data(jx, jnp.expand_dims(ks[:2], 1))
    out["squeeze"] = _data(jx, jnp.squeeze(ks[None, :2]))
    out["ravel"] = _data(jx, ks.reshape(3, 2).ravel())
    out["iter"] = [_data(jx, x) for x in ks[:2]]
    out["len"] = len(ks)
    out["jit_index"] = _data(jx, jx.jit(lambda ks, i: ks[i])(ks, 4))
    out["jit_reshape_slice"] = _data(jx, jx.jit(lambda ks: ks.reshape(3, 2)[1:, ::-1])(ks))
    out["vmap_index"] = _data(jx, jx.vmap(lambda ks: ks[1])(ks.reshape(3, 2)))
    mask = np.array([True, False, True, False, False, True])
    out["where"] = _data(jx, jnp.where(mask, ks, ks[::-1]))
    out["jit_where"] = _data(jx, jx.jit(lambda a, b: jnp.where(mask, a, b))(ks, ks[::-1]))
    out["tile"] = _data(jx, jnp.tile(ks[:2], 2))
    out["repeat"] = _data(jx, jnp.repeat(ks[:2], 2))
    out["flip"] = _data(jx, jnp.flip(ks[:3]))
    out["take"] = _data(jx, jnp.take(ks, np.array([4, 1])))
    out["at_set"] = _data(jx, ks.at[2].set(k))
    out["eq"] = bool(k == random.key(0))
    out["eq_other"] = bool(k == ks[0])
    out["ne"] = np.asarray(ks != ks[::-1]).tolist()
    out["jit_eq"] = np.asarray(jx.jit(lambda a, b: a == b)(ks, ks[::-1])).tolist()
    out["device_get_dtype"] = str(jx.device_get(k).dtype)


def _errors(jx: Any, out: dict[str, Any]) -> None:
    random, jnp = jx.random, jx.numpy
    k = random.key(0)
    ks = random.split(k)
    out["err_asarray"] = _error(lambda: np.asarray(k))
    out["err_add_int"] = _error(lambda: k + 1)
    out["err_add_keys"] = _error(lambda: k + k)
    out["err_mul"] = _error(lambda: ks * 2)
    out["err_neg"] = _error(lambda: -k)
    out["err_sin"] = _error(lambda: jnp.sin(k))
    out["err_sum"] = _error(lambda: jnp.sum(ks))
    out["err_astype"] = _error(lambda: ks.astype(jnp.float32))
    out["err_jit_add"] = _error(lambda: jx.jit(lambda k: k + 1)(k))
    out["err_wrap_float"] = _error(lambda: random.wrap_key_data(np.zeros(2, np.float32)))
    out["err_split_batched"] = _error(lambda: random.split(ks))
    out["err_len_scalar"] = _error(lambda: len(k))
    raw = random.PRNGKey(0)
    out["err_concat_raw"] = _error(lambda: jnp.concatenate([ks, raw[None]]))
    out["err_stack_raw"] = _error(lambda: jnp.stack([k, raw]))
    out["err_add_raw"] = _error(lambda: ks + raw)
    out["err_bool"] = _error(lambda: bool(k))
    out["err_int"] = _error(lambda: int(k))
    out["err_item"] = _error(lambda: k.item())
    out["err_tolist"] = _error(lambda: ks.tolist())
    out["err_lt"] = _error(lambda: ks < ks)


def run(jx: Any) -> dict[str, Any]:
    """Every case, by name."""
    out: dict[str, Any] = {}
    _keys(jx, out)
    _transforms(jx, out)
    _shape_ops(jx, out)
    _errors(jx, out)
    return out
