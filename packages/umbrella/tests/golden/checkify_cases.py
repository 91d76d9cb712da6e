"""Cases for ``jax.experimental.checkify``: the messages of checkified programs.

``run(jx, jnp, checkify)`` takes the top-level module (``jax`` or ``tessela``),
its NumPy namespace and its checkify module, and returns a JSON-able dict: for
each program, ``err.get()`` (or the class and message of what was raised) and
the program's output. ``generate_checkify.py`` writes the reference's dict to
``checkify_golden.json``; ``test_checkify.py`` compares.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def _plain(x: Any) -> Any:
    if isinstance(x, (tuple, list)):
        return [_plain(v) for v in x]
    if x is None:
        return None
    a = np.asarray(x)
    return {"dtype": str(a.dtype), "value": np.where(np.isnan(a), -999, a).tolist()
            if a.dtype.kind in "fc" else a.tolist()}  # fmt: skip


def _outcome(fn: Callable[[], Any], first_line: bool = False) -> Any:
    """``fn()``'s error message and output, or what it raised.

    With ``first_line``, only the first line of a raised message is kept (the
    rest of a tracer error names source files and lines).
    """
    try:
        err, out = fn()
    except Exception as e:
        msg = str(e).splitlines()[0] if first_line else str(e)
        return {"raised": type(e).__name__, "message": msg}
    return {"get": err.get(), "out": _plain(out)}


def _raises(fn: Callable[[], Any]) -> Any:
    try:
        out = fn()
    except Exception as e:
        return {"raised": type(e).__name__, "message": str(e)}
    return {"returned": _plain(out)}


def run(jx: Any, jnp: Any, checkify: Any) -> dict[str, Any]:
    """Every case's outcome, by name."""
    lax = jx.lax
    ck = checkify
    f32, i32 = jnp.float32, jnp.int32

    def chk(f: Callable[..., Any], *args: Any, errors: Any = ck.user_checks) -> Any:
        return _outcome(lambda: ck.checkify(f, errors=errors)(*args))

    def user(x: Any) -> Any:
        ck.check(x > 0, "x must be positive, got {} and {y}", x, y=x * 2)
        return x + 1

    def two_checks(x: Any) -> Any:
        ck.check(x > 0, "a {}", x)
        ck.check(x > -5, "b {}", x)
        return x

    def wl(x: Any) -> Any:
        def body(c: Any) -> Any:
            i, v = c
            ck.check(i < 3, "i too big {}", i)
            return i + 1, v

        return lax.while_loop(lambda c: c[0] < 5, body, (0, x))

    def sc(x: Any) -> Any:
        def body(c: Any, y: Any) -> Any:
            ck.check(y < 2, "y {} c {}", y, c)
            return c + y, c

        return lax.scan(body, f32(0.0), x)

    def order(x: Any) -> Any:
        def body(i: Any, c: Any) -> Any:
            ck.check(i < 2, "first {}", i)
            return jnp.log(c - 3.0)

        return lax.fori_loop(0, 4, body, x)

    nan_v = jnp.array([np.nan, 1.0], f32)
    inf = f32(np.inf)
    v = jnp.array([np.inf, -np.inf], f32)
    r: dict[str, Any] = {}
    # user checks and their formatting
    r["user_fail"] = chk(user, f32(-1.0))
    r["user_pass"] = chk(user, f32(1.0))
    r["user_array_arg"] = chk(lambda x: (ck.check(jnp.all(x > 0), "bad {}", x), x)[1],
                              jnp.array([1.0, -2.0]))  # fmt: skip
    r["user_kwargs_tree"] = chk(lambda x: ck.check(x < 0, "{a} {b}", a=x, b={"k": x}), f32(1.0))
    r["user_list_arg"] = chk(lambda x: ck.check(x < 0, "{} {}", x, [x, x]), f32(1.0))
    r["user_int_arg"] = chk(lambda x: ck.check(x < 0, "got {:d}!", x), i32(4))
    r["user_python_float_arg"] = chk(lambda x: ck.check(x < 0, "{}", 1.5), f32(1.0))
    r["user_nonscalar_pred"] = chk(lambda x: ck.check(x > 0, "arr"), jnp.ones(2))
    r["user_disabled"] = chk(lambda x: ck.check(x < 0, "nope"), f32(1.0), errors=ck.nan_checks)
    r["debug_check_in"] = chk(lambda x: ck.debug_check(x < 0, "dbg {}", x), f32(1.0))
    r["two_checks"] = chk(two_checks, f32(-7.0))
    # automatic checks
    r["nan_mul"] = chk(lambda x: jnp.sin(x) / 0 * 0, f32(1.0), errors=ck.nan_checks)
    r["nan_sin"] = chk(jnp.sin, inf, errors=ck.nan_checks)
    r["nan_log"] = chk(jnp.log, f32(-1.0), errors=ck.float_checks)
    r["nan_sum"] = chk(jnp.sum, v, errors=ck.nan_checks)
    r["nan_dot"] = chk(lambda x: x @ jnp.array([1.0, 1.0]), v, errors=ck.nan_checks)
    r["nan_sub"] = chk(lambda x: x - x, inf, errors=ck.nan_checks)
    r["nan_cumsum"] = chk(jnp.cumsum, v, errors=ck.nan_checks)
    r["nan_where_unchecked"] = chk(lambda x: jnp.where(x > 0, jnp.nan, x), f32(1.0),
                                   errors=ck.nan_checks)  # fmt: skip
    r["nan_disabled"] = chk(jnp.log, f32(-1.0), errors=ck.div_checks)
    for name, fn in {
        "tanh": lax.tanh, "exp": lax.exp, "expm1": lax.expm1, "sqrt": lax.sqrt,
        "rsqrt": lax.rsqrt, "cos": lax.cos, "asin": lax.asin, "erf_inv": lax.erf_inv,
        "integer_pow": lambda x: lax.integer_pow(x, 3), "neg": lax.neg, "abs": lax.abs,
        "max": lambda x: lax.max(x, f32(1.0)), "reduce_max": lambda x: jnp.max(x),
        "reduce_prod": lambda x: jnp.prod(x), "cumprod": lambda x: jnp.cumprod(x),
        "convert": lambda x: x.astype(jnp.float16), "add": lambda x: x + 1.0,
        "div": lambda x: x / 2.0, "atan2": lambda x: jnp.arctan2(x, x),
    }.items():  # fmt: skip
        r[f"nan_input_{name}"] = chk(fn, nan_v, errors=ck.nan_checks)
    r["div_int"] = chk(lambda x, y: x // y, i32(3), i32(0), errors=ck.div_checks)
    r["div_lax"] = chk(lax.div, jnp.array([3, 4]), jnp.array([1, 0]), errors=ck.div_checks)
    r["div_float"] = chk(lambda x, y: x / y, f32(1.0), f32(0.0), errors=ck.all_checks)
    r["div_zero_by_zero_float"] = chk(lambda x: x / x, f32(0.0), errors=ck.float_checks)
    r["div_zero_by_zero_nan_only"] = chk(lambda x: x / x, f32(0.0), errors=ck.nan_checks)
    r["div_ok"] = chk(lambda x, y: x // y, i32(3), i32(2), errors=ck.div_checks)
    idx = ck.index_checks
    r["idx_getitem"] = chk(lambda x, i: x[i], jnp.arange(3.0), i32(5), errors=idx)
    r["idx_negative"] = chk(lambda x, i: x[i], jnp.arange(3.0), i32(-5), errors=idx)
    r["idx_2d"] = chk(lambda x, i: x[i, 1], jnp.ones((3, 4)), i32(7), errors=idx)
    r["idx_2d_axis1"] = chk(lambda x, i: x[:, i], jnp.ones((2, 3)), i32(-7), errors=idx)
    r["idx_array"] = chk(lambda x, i: x[i], jnp.arange(3.0), jnp.array([1, 9, 12]), errors=idx)
    r["idx_in_bounds"] = chk(lambda x, i: x[i], jnp.arange(3.0), jnp.array([0, 2, -1]), errors=idx)
    r["idx_take"] = chk(lambda x, i: jnp.take(x, i), jnp.arange(3.0), i32(5), errors=idx)
    r["idx_at_get"] = chk(lambda x, i: x.at[i].get(), jnp.arange(3.0), i32(5), errors=idx)
    r["idx_at_set"] = chk(lambda x, i: x.at[i].set(1.0), jnp.arange(3.0), i32(5), errors=idx)
    r["idx_at_add"] = chk(lambda x, i: x.at[i].add(1.0), jnp.arange(3.0), jnp.array([0, 5]),
                          errors=idx)  # fmt: skip
    r["idx_dynamic_slice"] = chk(lambda x, i: lax.dynamic_slice(x, (i,), (2,)), jnp.arange(3.0),
                                 i32(5), errors=idx)  # fmt: skip
    r["idx_dynamic_slice_2d"] = chk(lambda x, i: lax.dynamic_slice(x, (1, i), (1, 2)),
                                    jnp.ones((2, 3)), i32(2), errors=idx)  # fmt: skip
    r["idx_dynamic_slice_neg"] = chk(lambda x, i: lax.dynamic_slice(x, (i,), (2,)),
                                     jnp.arange(3.0), i32(-5), errors=idx)  # fmt: skip
    r["idx_dynamic_slice_neg_ok"] = chk(lambda x, i: lax.dynamic_slice(x, (i, 0), (1, 2)),
                                        jnp.ones((2, 3)), i32(-1), errors=idx)  # fmt: skip
    r["idx_dynamic_update_slice"] = chk(
        lambda x, i: lax.dynamic_update_slice(x, jnp.ones((1, 2)), (i, 0)), jnp.ones((2, 3)),
        i32(2), errors=idx)  # fmt: skip
    r["idx_dynamic_index"] = chk(lambda x: lax.dynamic_index_in_dim(x, i32(3), keepdims=False),
                                 jnp.arange(3.0), errors=idx)  # fmt: skip
    # which error wins
    r["first_user_then_nan"] = chk(
        lambda x: (ck.check(x > 0, "a"), ck.check(x > 1, "b"), jnp.log(x))[2], f32(-1.0),
        errors=ck.all_checks)  # fmt: skip
    r["first_nan_then_user"] = chk(lambda x: (jnp.log(x), ck.check(x > 0, "a"))[0], f32(-1.0),
                                   errors=ck.all_checks)  # fmt: skip
    r["first_in_program_order_loop"] = chk(order, f32(5.0), errors=ck.all_checks)
    # transformations
    r["vmap_inside"] = chk(jx.vmap(user), jnp.array([1.0, -2.0, -3.0]))
    r["vmap_inside_two_checks"] = chk(jx.vmap(two_checks), jnp.array([1.0, -1.0, -7.0]))
    r["vmap_inside_nan"] = chk(jx.vmap(jnp.log), jnp.array([1.0, -2.0, -3.0]),
                               errors=ck.nan_checks)  # fmt: skip
    r["vmap_inside_index"] = chk(jx.vmap(lambda x, i: x[i], (None, 0)), jnp.arange(3.0),
                                 jnp.array([0, 4, 7]), errors=idx)  # fmt: skip
    r["vmap_outside"] = _outcome(lambda: jx.vmap(ck.checkify(user))(jnp.array([1.0, -2.0, -3.0])))
    r["vmap_outside_two_checks"] = _outcome(
        lambda: jx.vmap(ck.checkify(two_checks))(jnp.array([1.0, -1.0, -7.0]))
    )
    r["vmap_outside_index"] = _outcome(lambda: jx.vmap(
        ck.checkify(lambda x, i: x[i], errors=idx), (None, 0))(jnp.arange(3.0),
                                                              jnp.array([0, 4, 7])))  # fmt: skip
    r["vmap_outside_none_fail"] = _outcome(lambda: jx.vmap(ck.checkify(user))(jnp.ones(3)))
    r["jit_inside"] = chk(jx.jit(user), f32(-1.0))
    r["jit_inside_nan"] = chk(jx.jit(jnp.log), f32(-1.0), errors=ck.nan_checks)
    r["jit_outside"] = _outcome(lambda: jx.jit(ck.checkify(user))(f32(-1.0)))
    r["jit_outside_pass"] = _outcome(lambda: jx.jit(ck.checkify(user))(f32(2.0)))
    r["jit_both"] = _outcome(lambda: jx.jit(ck.checkify(jx.jit(user)))(f32(-1.0)))
    r["grad_div"] = chk(jx.grad(jnp.sqrt), f32(0.0), errors=ck.all_checks)
    r["grad_user"] = chk(jx.grad(user), f32(-1.0), errors=ck.all_checks)
    r["grad_pass"] = chk(jx.grad(user), f32(3.0), errors=ck.all_checks)
    r["cond_taken"] = chk(lambda x: lax.cond(x > 0, lambda x: x, lambda x: (
        ck.check(x > -1, "neg {}", x), x)[1], x), f32(-3.0))  # fmt: skip
    r["cond_not_taken"] = chk(lambda x: lax.cond(x > 0, lambda x: x, lambda x: (
        ck.check(x > -1, "neg {}", x), x)[1], x), f32(3.0))  # fmt: skip
    r["cond_nan"] = chk(lambda x: lax.cond(x < 0, jnp.log, jnp.exp, x), f32(-1.0),
                        errors=ck.nan_checks)  # fmt: skip
    r["while"] = chk(wl, f32(1.0))
    r["while_nan"] = chk(lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (
        c[0] + 1, jnp.log(c[1] - 2.0)), (0, x)), f32(5.0), errors=ck.nan_checks)  # fmt: skip
    r["scan"] = chk(sc, jnp.arange(5.0))
    r["scan_index"] = chk(lambda x: lax.scan(lambda c, i: (c + x[i], None), f32(0.0),
                                             jnp.arange(5))[0], jnp.arange(3.0), errors=idx)  # fmt: skip
    r["fori"] = chk(lambda x: lax.fori_loop(0, 4, lambda i, c: (
        ck.check(i < 2, "i={}", i), c + i)[1], x), f32(1.0))  # fmt: skip
    # outside checkify
    r["eager_check_fails"] = _raises(lambda: ck.check(f32(1.0) < 0, "eager {}", i32(3)))
    r["eager_check_passes"] = _raises(lambda: ck.check(f32(1.0) > 0, "eager {}", i32(3)))
    r["eager_check_python_arg"] = _raises(lambda: ck.check(f32(1.0) > 0, "eager {}", 3))
    r["eager_debug_check"] = _raises(lambda: ck.debug_check(f32(1.0) < 0, "dbg"))
    r["eager_vmap_check"] = _raises(lambda: jx.vmap(lambda x: ck.check(x > 0, "vm {}", x))(
        jnp.array([1.0, -1.0, -2.0])))  # fmt: skip
    r["jit_check_unfunctionalized"] = _raises(lambda: jx.jit(lambda x: ck.check(x > 0, "j"))(
        f32(-1.0)))  # fmt: skip
    r["jit_debug_check_unfunctionalized"] = _raises(
        lambda: jx.jit(lambda x: ck.debug_check(x > 0, "j"))(f32(-1.0))
    )
    err, _ = ck.checkify(user)(f32(-1.0))
    r["throw"] = _raises(err.throw)
    r["check_error"] = _raises(lambda: ck.check_error(err))
    r["check_error_in_checkify"] = chk(lambda e: ck.check_error(e), err)
    r["str_error"] = str(err)
    r["str_init_error"] = str(ck.init_error)
    r["init_error_get"] = ck.init_error.get()
    ok, _ = ck.checkify(user)(f32(1.0))
    r["throw_ok"] = _raises(ok.throw)
    r["categories"] = [
        sorted(c.__name__ for c in s)
        for s in (ck.user_checks, ck.nan_checks, ck.index_checks, ck.div_checks, ck.float_checks,
                  ck.automatic_checks, ck.all_checks, ck.all_checks - ck.float_checks)
    ]  # fmt: skip
    r["runtime_error_bases"] = [c.__name__ for c in ck.JaxRuntimeError.__mro__[1:]]
    r.update(_key_payloads(jx, jnp, ck))
    r.update(_closed_arguments(jx, jnp, ck))
    r.update(_predicates(jx, jnp, ck))
    return r


def _predicates(jx: Any, jnp: Any, ck: Any) -> dict[str, Any]:
    """What ``check``/``debug_check`` take as ``pred``: a Python bool or a boolean array of shape ().

    A NumPy bool (``np.float32(-1.0) > 0`` is one), a NumPy array, a Python
    int or a float array is JAX's ``TypeError``, eagerly, under ``jit``,
    ``vmap`` and ``grad``, and inside ``checkify``.
    """
    f32 = jnp.float32

    def checking(pred: Any, debug: bool = False) -> Callable[[Any], Any]:
        def f(x: Any) -> Any:
            (ck.debug_check if debug else ck.check)(pred, "pred {}", x)
            return x

        return f

    def outcome(g: Any, *args: Any) -> Any:
        return _outcome(lambda: g(*args), first_line=True)

    r: dict[str, Any] = {}
    preds = {
        "python_true": True,
        "python_false": False,
        "numpy_bool": np.bool_(True),
        "numpy_bool_false": np.float32(-1.0) > 0,
        "numpy_array": np.array(True),
        "python_int": 1,
        "float_array": jnp.asarray(1.0, f32),
        "bool_array": jnp.asarray(False),
        "bool_vector": jnp.asarray([True, False]),
    }
    for name, pred in preds.items():
        r[f"pred_eager_{name}"] = _raises(lambda p=pred: checking(p)(f32(1.0)))
        r[f"pred_checkify_{name}"] = outcome(ck.checkify(checking(pred)), f32(1.0))
    for name in ("python_true", "numpy_bool", "numpy_array", "bool_array"):
        pred = preds[name]
        r[f"pred_debug_{name}"] = _raises(lambda p=pred: checking(p, debug=True)(f32(1.0)))
        r[f"pred_checkify_debug_{name}"] = outcome(
            ck.checkify(checking(pred, debug=True)), f32(1.0)
        )
        r[f"pred_jit_{name}"] = _raises(lambda p=pred: jx.jit(checking(p))(f32(1.0)))
        r[f"pred_vmap_{name}"] = _raises(lambda p=pred: jx.vmap(checking(p))(jnp.ones(2)))
        r[f"pred_grad_{name}"] = _raises(lambda p=pred: jx.grad(checking(p))(f32(1.0)))
    compare = lambda x: (ck.check(x > 0, "x {}", x), x)[1]  # noqa: E731
    r["pred_checkify_jit_numpy_argument"] = outcome(ck.checkify(jx.jit(compare)), np.float32(-1.0))
    r["pred_jit_checkify_numpy_argument"] = outcome(jx.jit(ck.checkify(compare)), np.float32(-1.0))
    return r


def _key_leaves(jx: Any, err: Any) -> list[Any]:
    leaves = jx.tree_util.tree_leaves(err)
    return [_plain(jx.random.key_data(x)) if "key" in str(x.dtype) else _plain(x) for x in leaves]


def _key_payloads(jx: Any, jnp: Any, ck: Any) -> dict[str, Any]:
    """Typed PRNG keys as formatting arguments: carried in the error's payload."""
    lax, f32 = jx.lax, jnp.float32
    keys = jx.random.split(jx.random.key(0))

    def user(x: Any, k: Any) -> Any:
        ck.check(x > 0, "bad {k}", k=k)
        return x + 1

    def in_cond(x: Any, k: Any) -> Any:
        return lax.cond(x > 0, lambda: (ck.check(x > 5, "small {} {}", k, x), x)[1], lambda: -x)

    def in_while(x: Any, k: Any) -> Any:
        return lax.while_loop(lambda c: c < 5, lambda c: (ck.check(c < 3, "{}", k), c + 1)[1], x)

    def trees_equal(a: Any, b: Any) -> Any:
        # What chex's assert_trees_all_equal does under chexify.
        same = jnp.all(jx.random.key_data(a["key"]) == jx.random.key_data(b["key"]))
        ck.check(same, "Trees 0 and 1 differ in leaves 'key'", arr_1=a["key"], arr_2=b["key"])
        return a["a"] + b["a"]

    def chk(f: Any, *args: Any) -> Any:
        return _outcome(lambda: ck.checkify(f)(*args))

    stacked = jnp.stack([keys, keys])
    other = jx.random.split(jx.random.key(2))
    r: dict[str, Any] = {}
    r["key_fail"] = chk(user, f32(-1.0), keys)
    r["key_pass"] = chk(user, f32(1.0), keys)
    r["key_jit_inside"] = chk(jx.jit(user), f32(-1.0), keys)
    r["key_jit_outside"] = _outcome(lambda: jx.jit(ck.checkify(user))(f32(-1.0), keys))
    r["key_vmap_outside"] = _outcome(
        lambda: jx.vmap(ck.checkify(user))(jnp.array([1.0, -1.0]), stacked)
    )
    r["key_vmap_inside"] = chk(jx.vmap(user), jnp.array([1.0, -1.0]), stacked)
    r["key_cond_taken"] = chk(in_cond, f32(1.0), keys)
    r["key_cond_not_taken"] = chk(in_cond, f32(-1.0), keys)
    r["key_while"] = chk(in_while, jnp.int32(0), keys)
    r["key_eager"] = _raises(lambda: ck.check(f32(1.0) < 0, "eager {}", keys))
    r["key_trees_equal"] = chk(jx.jit(trees_equal), {"a": f32(3.0), "key": keys},
                               {"a": f32(3.0), "key": keys})  # fmt: skip
    r["key_trees_differ"] = chk(jx.jit(trees_equal), {"a": f32(3.0), "key": keys},
                                {"a": f32(3.0), "key": other})  # fmt: skip
    # A kind of error not met on the path taken holds a placeholder: pred
    # False, code -1, a payload of ones (key data [1, 1]).
    r["key_placeholder_leaves"] = _key_leaves(jx, ck.checkify(in_cond)(f32(-1.0), keys)[0])
    r["key_failed_leaves_shapes"] = [
        list(np.shape(x)) for x in jx.tree_util.tree_leaves(ck.checkify(in_cond)(f32(1.0), keys)[0])
    ]
    return r


def _closed_arguments(jx: Any, jnp: Any, ck: Any) -> dict[str, Any]:
    """``checkify`` closes over its arguments: eagerly, Python and NumPy values stay concrete.

    Python control flow, ``int(x)`` and shape-dependent code work on them;
    a concrete array of the library still becomes a tracer once an operation
    uses it; a Python float is no formatting argument for ``check``. Under an
    enclosing ``jit``/``vmap``/``grad`` the arguments are that trace's tracers.
    """
    f32 = jnp.float32
    idx = ck.index_checks

    def branchy(x: Any) -> Any:
        if x > 0:
            y = jnp.sqrt(x)
            ck.check(y < 3, "too big: {}", y)
            return jnp.log(y)
        return jnp.zeros((), f32) - x

    def counted(n: Any) -> Any:
        y = jnp.arange(int(n)) * 1.0
        ck.check(jnp.sum(y) < 5, "sum {} of {} values", jnp.sum(y), y)
        return y

    def shaped(x: Any) -> Any:  # a Python loop on the argument's values
        kept = [x[i] * i for i in range(len(x)) if x[i] > 0]
        return jnp.log(jnp.stack(kept) - 1.0)

    def user(x: Any) -> Any:
        ck.check(x > 0, "x must be positive, got {} and {y}", x, y=x * 2)
        return x + 1

    def swap(pair: Any) -> Any:
        return pair[1], pair[0]

    def out_of(g: Any, *args: Any, **kw: Any) -> Any:
        return _outcome(lambda: g(*args, **kw), first_line=True)

    def c(f: Any, *args: Any, errors: Any = ck.user_checks, **kw: Any) -> Any:
        return out_of(ck.checkify(f, errors=errors), *args, **kw)

    def grad_err(f: Any, x: Any, errors: Any = ck.user_checks) -> Any:
        # the error as grad's auxiliary output, beside the gradient
        return _outcome(
            lambda: swap(jx.grad(lambda v: swap(ck.checkify(f, errors=errors)(v)), has_aux=True)(x))
        )

    r: dict[str, Any] = {}
    # Python control flow on a concrete argument
    r["closed_if_python_float"] = c(branchy, 2.0)
    r["closed_if_python_float_fails"] = c(branchy, 20.0)
    r["closed_if_python_float_else"] = c(branchy, -1.5)
    r["closed_if_python_int"] = c(branchy, 3)
    r["closed_if_numpy_scalar_fails"] = c(branchy, np.float32(12.0))
    r["closed_if_numpy_array"] = c(branchy, np.array(4.0))
    r["closed_if_array_is_traced"] = c(branchy, f32(2.0))
    r["closed_if_kwarg"] = c(branchy, x=30.0)
    r["closed_if_jit_outside"] = out_of(jx.jit(ck.checkify(branchy)), 2.0)
    r["closed_if_jit_outside_static"] = out_of(jx.jit(ck.checkify(branchy), static_argnums=0), 20.0)
    r["closed_if_jit_inside"] = c(jx.jit(branchy), 2.0)
    r["closed_if_vmap_outside"] = out_of(jx.vmap(ck.checkify(branchy)), np.array([1.0, 2.0]))
    r["closed_if_grad_outside"] = out_of(jx.grad(lambda x: ck.checkify(branchy)(x)[1]), 2.0)
    # int() of an argument
    r["closed_int_python"] = c(counted, 3)
    r["closed_int_numpy_fails"] = c(counted, np.int32(4))
    r["closed_int_numpy_array"] = c(counted, np.array(2))
    r["closed_int_concrete_array"] = c(counted, jnp.int32(4))
    r["closed_int_jit_outside"] = out_of(jx.jit(ck.checkify(counted)), 3)
    r["closed_int_jit_outside_static"] = out_of(jx.jit(ck.checkify(counted), static_argnums=0), 4)
    r["closed_int_vmap_unbatched"] = out_of(
        jx.vmap(ck.checkify(lambda x, n: counted(n) * x), (0, None)), jnp.arange(2.0), 4
    )
    # shape- and value-dependent Python code
    r["closed_loop_numpy_array"] = c(
        shaped, np.array([3.0, -1.0, 2.0, 0.5], np.float32), errors=ck.nan_checks
    )
    r["closed_loop_array_is_traced"] = c(shaped, jnp.array([3.0, -1.0]), errors=ck.nan_checks)
    # Python and NumPy scalars through the automatic checks
    r["closed_nan_python_float"] = c(jnp.log, -1.0, errors=ck.nan_checks)
    r["closed_nan_numpy_scalar"] = c(jnp.log, np.float32(-1.0), errors=ck.nan_checks)
    r["closed_nan_numpy_array"] = c(
        jnp.log, np.array([1.0, -1.0], np.float32), errors=ck.nan_checks
    )
    r["closed_div_python_ints"] = c(lambda x, y: jnp.floor_divide(x, y), 3, 0, errors=ck.div_checks)
    r["closed_div_python_operator"] = c(lambda x, y: x // y, 3, 0, errors=ck.div_checks)
    r["closed_index_python_int"] = c(lambda x, i: x[i], jnp.arange(3.0), 5, errors=idx)
    r["closed_index_python_int_ok"] = c(lambda x, i: x[i], jnp.arange(3.0), -1, errors=idx)
    r["closed_index_numpy_array"] = c(
        lambda x, i: x[i], jnp.arange(3.0), np.array([0, 7]), errors=idx
    )
    r["closed_passthrough"] = c(
        lambda x, y, z, w: (x, y * 2, z, w, jnp.sin(x)),
        1.5,
        np.float32(2.0),
        np.arange(3),
        np.float64(0.5),
    )
    # formatting arguments: a Python float is none (JAX's TypeError), under jit it is traced
    r["closed_format_python_float"] = c(user, -1.0)
    r["closed_format_python_float_passing"] = c(user, 1.0)
    r["closed_format_python_float_kwarg"] = c(lambda x: ck.check(x < 0, "{v}", v=x), 1.0)
    r["closed_format_jit_outside"] = out_of(jx.jit(ck.checkify(user)), -1.0)
    r["closed_format_vmap_outside"] = out_of(
        jx.vmap(ck.checkify(user)), np.array([1.0, -2.0], np.float32)
    )
    r["closed_format_grad_outside"] = grad_err(user, -1.0)
    r["closed_format_grad_outside_nan"] = grad_err(jnp.log, -1.0, errors=ck.nan_checks)
    r["closed_format_numpy_scalar"] = c(user, np.float32(-1.0))
    r["closed_format_asarray_python_float"] = c(
        lambda x: ck.check(x < 0, "{}", jnp.asarray(x)), 1.0
    )
    # tracing: each eager call traces anew; jit traces once per signature
    count = [0]

    def traced(x: Any) -> Any:
        count[0] += 1
        return x * 2

    seen = []
    checked = ck.checkify(traced)
    for x in (f32(1.0), f32(2.0)):
        checked(x)
        seen.append(count[0])
    jitted = jx.jit(checked)
    for x in (f32(1.0), f32(2.0), 3.0):
        jitted(x)
        seen.append(count[0])
    r["closed_trace_counts"] = seen
    return r
