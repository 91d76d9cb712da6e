"""Structured control flow, custom derivatives and scatter."""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias, TypeVar

import numpy as np
from tessela_pytree import tree_flatten, tree_unflatten

from tessela_tracer import _prims_elementwise as ew
from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Tracer
from tessela_tracer._core import get_aval_of as _aval
from tessela_tracer._dtypes import result_type
from tessela_tracer._errors import UnexpectedTracerError
from tessela_tracer._jaxpr import ClosedJaxpr
from tessela_tracer._lax import _convert_element_type
from tessela_tracer._prims_control import (
    composite_p,
    cond_p,
    hoist_consts,
    platform_index_p,
    scan_p,
    while_p,
)
from tessela_tracer._staging import (
    DebugInfo,
    _fun_src_info,
    cached_trace,
    trace_to_jaxpr,
)
from tessela_tracer._trace_util import flatten_fun, join_consts, trace_with_aux
from tessela_tracer.typing import Array, ArrayLike

_T = TypeVar("_T")
_Carry = TypeVar("_Carry")
_X = TypeVar("_X")
_Y = TypeVar("_Y")
# A loop bound: an integer scalar.
_IntLike: TypeAlias = int | np.integer | np.ndarray | Array


def _trace_flat(
    fun: Callable[..., Any],
    in_tree: Any,
    avals: Sequence[ShapedArray],
    what: str,
    *,
    star: bool = True,
) -> tuple[ClosedJaxpr, list[Any], Any]:
    debug = DebugInfo(what, _fun_src_info(fun))
    return trace_with_aux(flatten_fun(fun, in_tree, star=star), avals, debug_info=debug)


def _check_same_outs(what: str, a: ClosedJaxpr, b: ClosedJaxpr, tree_a: Any, tree_b: Any) -> None:
    if tree_a != tree_b:
        raise TypeError(f"{what} must have identical output structures, got {tree_a} and {tree_b}.")
    for x, y in zip(a.out_avals, b.out_avals, strict=True):
        if x.shape != y.shape or x.dtype != y.dtype:
            raise TypeError(
                f"{what} must have identical types, got {x.str_short()} and {y.str_short()}."
            )


def switch(index: ArrayLike, branches: Sequence[Callable[..., Any]], *operands: Any) -> Any:
    """Apply ``branches[index](*operands)``, clamping ``index`` into range.

    Args:
      index: an integer scalar.
      branches: functions with identical output types.
      *operands: their arguments.

    Returns:
      The chosen branch's output.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> make_jaxpr(lambda i, x: switch(i, [lax.sin, lax.cos], x))(0, 1.0).eqns[-1].primitive
        cond
    """
    if not branches:
        raise ValueError("Empty branch sequence")
    a = _aval(index)
    if a.shape or a.dtype.kind not in "iu":
        raise TypeError(f"Branch index must be scalar integer, got {a.str_short()}.")
    idx: ArrayLike = _convert_element_type(index, np.int32, weak_type=False)
    if len(branches) > 1:
        idx = ew.clamp_p.bind(np.int32(0), idx, np.int32(len(branches) - 1))
    else:
        idx = np.int32(0)
    return _cond(idx, list(branches), operands, "switch")


_NO_OPERAND = object()


def cond(
    pred: ArrayLike,
    true_fun: Callable[..., Any],
    false_fun: Callable[..., Any],
    *operands: Any,
    operand: Any = _NO_OPERAND,
) -> Any:
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, staged.

    Args:
      pred: a boolean (or number) scalar.
      true_fun: the branch for True.
      false_fun: the branch for False.
      *operands: the branches' arguments (none at all is allowed).
      operand: the older keyword form of a single operand.

    Returns:
      The chosen branch's output.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> make_jaxpr(lambda x: cond(lax.gt(x, 0.0), lax.sin, lax.cos, x))(1.0).eqns[-1].primitive
        cond
    """
    if operand is not _NO_OPERAND:
        if operands:
            raise TypeError(
                "cond: pass the operands either positionally or as operand=, not both; "
                "prefer cond(pred, true_fun, false_fun, *operands)."
            )
        operands = (operand,)
    a = _aval(pred)
    if a.shape:
        raise TypeError(f"Pred must be a scalar, got {pred} of shape {a.shape}.")
    if a.dtype.kind not in "biuf":
        raise TypeError(f"Pred type must be either boolean or number, got {a.dtype}.")
    if a.dtype.kind != "b":
        pred = ew.ne_p.bind(pred, _convert_element_type(0, a.dtype, weak_type=a.weak_type))
    idx = _convert_element_type(pred, np.int32, weak_type=False)
    # Traced (and their consts joined) in the order written, stored by index.
    return _cond(idx, [true_fun, false_fun], operands, "cond", reverse=True)


def _cond(
    idx: Any,
    funs: list[Callable[..., Any]],
    operands: Sequence[Any],
    what: str,
    *,
    reverse: bool = False,
) -> Any:
    flat, in_tree = tree_flatten(tuple(operands))
    avals = [_aval(x) for x in flat]
    traced = [_trace_flat(f, in_tree, avals, what) for f in funs]
    for t in traced[1:]:
        _check_same_outs(f"{what} branches", traced[0][0], t[0], traced[0][2], t[2])
    jaxprs, consts = join_consts([t[0] for t in traced], [t[1] for t in traced])
    if reverse:
        jaxprs.reverse()
    outs = cond_p.bind(idx, *consts, *flat, branches=tuple(jaxprs))
    return tree_unflatten(traced[0][2], outs)


def _weak_fix(
    init_flat: list[Any], avals_in: list[ShapedArray], avals_out: list[ShapedArray]
) -> tuple[list[Any], bool]:
    """Retype weakly typed initial carries that the body changes, as JAX does.

    A weak carry whose output has another dtype is promoted to the dtype both
    promote to (``while_loop(c < 3, c + 1.5, 0)`` carries a float32); a weak
    carry whose output is strong of the same dtype becomes strong.
    """
    changed = False
    new = []
    for x, a_in, a_out in zip(init_flat, avals_in, avals_out, strict=True):
        if a_in.weak_type and a_in.shape == a_out.shape and a_in.dtype != a_out.dtype:
            new.append(_convert_element_type(x, result_type(x, a_out), weak_type=False))
            changed = True
        elif a_in.weak_type and not a_out.weak_type and a_in.dtype == a_out.dtype:
            new.append(_convert_element_type(x, a_in.dtype, weak_type=False))
            changed = True
        else:
            new.append(x)
    return new, changed


def _check_carry(
    what: str,
    tree_in: Any,
    tree_out: Any,
    avals_in: list[ShapedArray],
    avals_out: list[ShapedArray],
) -> None:
    if tree_in != tree_out:
        raise TypeError(
            f"{what} output and input must have same type structure, got {tree_out} and {tree_in}."
        )
    for a, b in zip(avals_in, avals_out, strict=True):
        if a.shape != b.shape or a.dtype != b.dtype:
            raise TypeError(
                f"{what} output and input must have identical types, got output "
                f"{b.str_short()} for input {a.str_short()}."
            )


def while_loop(
    cond_fun: Callable[[_T], ArrayLike], body_fun: Callable[[_T], _T], init_val: _T
) -> _T:
    """Repeat ``val = body_fun(val)`` while ``cond_fun(val)``, staged.

    Args:
      cond_fun: carry to boolean scalar.
      body_fun: carry to carry of the same type.
      init_val: the initial carry (a pytree).

    Returns:
      The final carry.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> f = lambda x: while_loop(lambda c: lax.lt(c, 10.0), lambda c: lax.add(c, 1.0), x)
        >>> make_jaxpr(f)(0.0).eqns[0].primitive
        while
    """
    flat, tree = tree_flatten(init_val)
    for _ in range(3):
        avals = [_aval(x) for x in flat]
        body, bconsts, out_tree = _trace_flat(body_fun, tree, avals, "while_loop", star=False)
        flat, changed = _weak_fix(flat, avals, body.out_avals)
        if not changed:
            break
    _check_carry("body_fun", tree, out_tree, avals, body.out_avals)
    cj, cconsts, _ = _trace_flat(cond_fun, tree, avals, "while_loop", star=False)
    outs = while_p.bind(
        *cconsts, *bconsts, *flat, cond_jaxpr=cj, body_jaxpr=body,
        cond_nconsts=len(cconsts), body_nconsts=len(bconsts),
    )  # fmt: skip
    out: _T = tree_unflatten(tree, outs)
    return out


def scan(
    f: Callable[[_Carry, _X], tuple[_Carry, _Y]],
    init: _Carry,
    xs: _X | None = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
) -> tuple[_Carry, _Y]:
    """Loop ``carry, y = f(carry, x)`` over the leading axis of ``xs``, stacking ``y``.

    Args:
      f: the body.
      init: the initial carry.
      xs: a pytree of arrays scanned along axis 0, or None.
      length: the trip count when ``xs`` is None.
      reverse: iterate from the end.
      unroll: unroll factor hint.

    Returns:
      ``(final_carry, stacked_ys)``.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> f = lambda xs: scan(lambda c, x: (lax.add(c, x), c), np.float32(0), xs)
        >>> make_jaxpr(f)(np.ones(3, np.float32)).eqns[0].params["length"]
        3
    """
    xs_flat, xs_tree = tree_flatten(xs)
    if any(not _aval(x).shape for x in xs_flat):
        raise ValueError("scan got value with no leading axis to scan over")
    lengths = {_aval(x).shape[0] for x in xs_flat}
    if length is not None:
        lengths.add(operator.index(length))
    if len(lengths) != 1:
        if not lengths:
            raise ValueError("scan got no values to scan over and `length` not provided.")
        raise ValueError(f"scan got values with different leading axis sizes: {sorted(lengths)}.")
    n = lengths.pop()
    init_flat, init_tree = tree_flatten(init)
    x_avals = [ShapedArray(_aval(x).shape[1:], _aval(x).dtype, _aval(x).weak_type) for x in xs_flat]
    for _ in range(3):
        c_avals = [_aval(x) for x in init_flat]
        key = ("scan", f, str(init_tree), str(xs_tree), tuple(c_avals), tuple(x_avals))
        jaxpr, consts, (ct, yt, nc) = cached_trace(
            key, functools.partial(_trace_scan_body, f, init_tree, xs_tree, c_avals, x_avals)
        )
        if ct != init_tree:
            raise TypeError(
                f"scan body function carry input and carry output must have the same pytree "
                f"structure, got {init_tree} and {ct}."
            )
        init_flat, changed = _weak_fix(init_flat, c_avals, jaxpr.out_avals[:nc])
        if not changed:
            break
    _check_carry("scan body function carry", init_tree, ct, c_avals, jaxpr.out_avals[:nc])
    outs = scan_p.bind(
        *consts, *init_flat, *xs_flat, jaxpr=jaxpr, length=n, num_carry=nc,
        num_consts=len(consts), reverse=bool(reverse), unroll=int(unroll),
    )  # fmt: skip
    return tree_unflatten(init_tree, outs[:nc]), tree_unflatten(yt, outs[nc:])


def _trace_scan_body(
    f: Callable[[Any, Any], tuple[Any, Any]],
    init_tree: Any,
    xs_tree: Any,
    c_avals: list[ShapedArray],
    x_avals: list[ShapedArray],
) -> tuple[ClosedJaxpr, list[Any], tuple[Any, Any, int]]:
    box: list[tuple[Any, Any, int]] = []
    nc_in = len(c_avals)

    def body(*args: Any) -> list[Any]:
        c = tree_unflatten(init_tree, list(args[:nc_in]))
        x = tree_unflatten(xs_tree, list(args[nc_in:]))
        new_c, y = f(c, x)
        cf, ct = tree_flatten(new_c)
        yf, yt = tree_flatten(y)
        box.append((ct, yt, len(cf)))
        return [*cf, *yf]

    closed = trace_to_jaxpr(
        body, [*c_avals, *x_avals], debug_info=DebugInfo("scan", _fun_src_info(f))
    )
    jaxpr, consts = hoist_consts(closed)
    return jaxpr, consts, box[-1]


def fori_loop(
    lower: _IntLike,
    upper: _IntLike,
    body_fun: Callable[[Array, _T], _T],
    init_val: _T,
    *,
    unroll: int | bool | None = None,
) -> _T:
    """Run ``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``.

    Concrete bounds give a ``scan``; traced bounds give a ``while``.

    Args:
      lower: first index.
      upper: one past the last index.
      body_fun: ``(i, val) -> val``.
      init_val: the initial value.
      unroll: the scan's unroll factor; only with concrete bounds.

    Returns:
      The final value.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> make_jaxpr(lambda x: fori_loop(0, 3, lambda i, c: lax.mul(c, 2.0), x))(1.0).eqns[0].primitive
        scan
    """
    dt = np.result_type(_aval(lower).dtype, _aval(upper).dtype)
    concrete = not hasattr(lower, "_trace") and not hasattr(upper, "_trace")
    if concrete:
        lo, hi = int(lower), int(upper)
        # A Python-int ``lower`` gives a weakly typed index (Python ints stay
        # weak), as in JAX; otherwise the index has the bounds' dtype.
        weak = _aval(lower).weak_type
        lo_c = lo if weak else _convert_element_type(lo, dt, weak_type=False)
        one = 1 if weak else _convert_element_type(1, dt, weak_type=False)

        def step(carry: Any, _: Any) -> Any:
            i, x = carry
            return (ew.add_p.bind(i, one), body_fun(i, x)), None

        n = max(hi - lo, 0)
        (_, out), _ = scan(
            step, (lo_c, init_val), None, length=n, unroll=1 if unroll is None else unroll
        )
        return out
    if unroll is not None and unroll is not False and unroll != 1:
        raise ValueError(
            "fori_loop: unroll needs loop bounds known at trace time; pass Python ints as "
            "lower and upper, or drop unroll."
        )
    lo_c = _convert_element_type(lower, dt, weak_type=_aval(lower).weak_type)
    hi_c = _convert_element_type(upper, dt, weak_type=_aval(upper).weak_type)

    def body(c: Any) -> Any:
        i, u, x = c
        return ew.add_p.bind(i, _convert_element_type(1, dt, weak_type=False)), u, body_fun(i, x)

    return while_loop(lambda c: ew.lt_p.bind(c[0], c[1]), body, (lo_c, hi_c, init_val))[2]


def map(f: Callable[[_X], _Y], xs: _X) -> _Y:
    """Apply ``f`` to each slice of ``xs`` along axis 0, as a ``scan``.

    Args:
      f: the per-slice function.
      xs: a pytree of arrays with a common leading size.

    Returns:
      The stacked results.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> make_jaxpr(lambda xs: lax.map(lax.sin, xs))(np.ones(2, np.float32)).eqns[0].primitive
        scan
    """
    _, ys = scan(lambda _, x: ((), f(x)), (), xs)
    return ys


class HashableArray:
    """A NumPy array attribute of a composite, hashable so that equations can be cached.

    Example:
        >>> HashableArray(np.arange(2)) == HashableArray(np.arange(2))
        True
    """

    __slots__ = ("val",)

    def __init__(self, val: np.ndarray) -> None:
        self.val = val

    def _key(self) -> tuple[Any, ...]:
        return (self.val.dtype.str, self.val.shape, self.val.tobytes())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HashableArray) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return repr(self.val)


def composite(decomposition: Callable[..., Any], name: str, version: int = 0) -> Callable[..., Any]:
    """Wrap ``decomposition`` as a named composite operation (a ``stablehlo.composite``).

    A compiler that knows ``name`` may run its own kernel for the operation;
    any other runs the decomposition. Positional arguments are the operands;
    keyword arguments are static attributes (Python scalars, strings, NumPy
    arrays), stored on the op. As in JAX, the composite cannot be
    differentiated or batched (wrap it in ``custom_jvp`` / ``custom_vjp``).

    Args:
      decomposition: the function that computes the operation.
      name: the operation's name (e.g. ``"my.tangent"``).
      version: the operation's version.

    Returns:
      The composite function, with ``decomposition``'s name and signature.

    Raises:
      UnexpectedTracerError: an attribute, or a value the decomposition closes
        over, is a tracer.

    Example:
        >>> import functools
        >>> from tessela_tracer import lax, make_jaxpr
        >>> @functools.partial(composite, name="my.square")
        ... def square(x, *, scale=1.0):
        ...     return lax.mul(lax.mul(x, x), scale)
        >>> make_jaxpr(lambda x: square(x, scale=2.0))(3.0).eqns[0].params["name"]
        'my.square'
    """

    @functools.wraps(decomposition)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if any(isinstance(v, Tracer) for v in kwargs.values()):
            raise UnexpectedTracerError(
                "Found a JAX Tracer as an attribute in the decomposition for the composite op "
                f"'{name}'. This means that the decomposition function closes over a value that "
                "is involved in a JAX transformation. Any values that aren't explicitly known at "
                "compile time must be explicitly passed as arguments to the composite.\n\nNote: "
                "If you are passing jax arrays as attributes, use numpy arrays instead."
            )
        flat, in_tree = tree_flatten(tuple(args))
        fun = functools.partial(decomposition, **kwargs)
        closed, consts, out_tree = _trace_flat(fun, in_tree, [_aval(x) for x in flat], name)
        if any(isinstance(c, Tracer) for c in consts):
            raise UnexpectedTracerError(
                "Found a JAX Tracer as a constant in the decomposition for the composite op "
                f"'{name}'. This means that the decomposition function closes over a value that "
                "is involved in a JAX transformation. Any values that aren't explicitly known at "
                "compile time must be explicitly passed as arguments to the composite."
            )
        attributes = []
        for k, v in kwargs.items():
            leaves, treedef = tree_flatten(v)
            leaves = [HashableArray(x) if isinstance(x, np.ndarray) else x for x in leaves]
            attributes.append((k, tuple(leaves), treedef))
        outs = composite_p.bind(
            *consts, *flat, name=name, attributes=tuple(attributes), version=int(version),
            jaxpr=closed,
        )  # fmt: skip
        return tree_unflatten(out_tree, outs)

    return wrapped


def platform_dependent(
    *args: Any, default: Callable[..., Any] | None = None, **per_platform: Callable[..., Any]
) -> Any:
    """Run the function given for the platform the program is compiled for.

    Platforms are ``cpu``, ``cuda``, ``rocm`` and ``tpu``. Under ``jit`` all
    the branches are traced and the compiled program keeps the one for its
    platform (a ``switch`` on ``platform_index``); eagerly only that one runs.

    Args:
      *args: the functions' arguments.
      default: the function for the other platforms (else they raise when
        compiled).
      **per_platform: one function per platform name.

    Returns:
      The chosen function's result.

    Raises:
      TypeError: a branch is not callable.
      ValueError: ``gpu`` is given (name ``cuda`` or ``rocm``).
      NotImplementedError: no branch fits the platform and there is no default.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> f = lambda x: platform_dependent(x, cpu=lax.sin, default=lax.cos)
        >>> [e.primitive.name for e in make_jaxpr(f)(np.float32(1)).eqns]
        ['platform_index', 'cond']
    """
    groups: list[tuple[list[str], Callable[..., Any]]] = []
    for pname, branch in per_platform.items():
        if not callable(branch):
            raise TypeError(
                f"lax.platform_dependent: the '{pname}' branch must be a callable, got {branch}"
            )
        if pname == "gpu":
            raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
        for names, b in groups:
            if b == branch:
                names.append(pname)
                break
        else:
            groups.append(([pname], branch))
    platforms: list[tuple[str, ...] | None] = [tuple(names) for names, _ in groups]
    branches = [b for _, b in groups]
    if default is not None:
        platforms.append(None)
        branches.append(default)
    index = platform_index_p.bind(platforms=tuple(platforms))
    if isinstance(index, Tracer):
        return _cond(index, branches, args, "platform_dependent")
    return branches[operator.index(np.asarray(index).item())](*args)
