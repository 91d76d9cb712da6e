"""``jit`` with shardings: calls compiled over a mesh with the annotations JAX 0.10.2 emits.

A call of a jitted function takes this path (:func:`wants_mesh`) when the
function was given ``in_shardings``/``out_shardings``, when it donates and an
argument is sharded, or (:func:`constrained`) when its program holds a
``sharding_constraint`` over several devices. The module then declares the
mesh and annotates:

- each argument with its ``in_sharding``, or, when none was given, with the
  sharding of a committed sharded argument; uncommitted arguments without one
  are left to the partitioner, which picks their layout (read back from the
  executable's parameter shardings, and the argument moved there);
- each result with its ``out_sharding`` (the result then reports exactly
  that sharding); the others are laid out as propagation decides.

A committed argument whose sharding differs from its ``in_sharding`` is
JAX's ValueError; uncommitted ones are moved. Donated arguments alias
results (``tf.aliasing_output``) and are deleted by the call. Calls whose
shardings name no mesh (only ``SingleDeviceSharding`` or ``None``) run on
that device through ``jit_p``, the results moved to their out shardings.
"""

from __future__ import annotations

import functools
import itertools
import operator
import threading
import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeGuard, TypeVar

from tessela_pytree import PyTreeDef, tree_flatten, tree_unflatten
from tessela_tracer import (
    ClosedJaxpr,
    EvalTrace,
    Jaxpr,
    Tracer,
    config,
    get_aval,
    get_current_trace,
)
from tessela_tracer.extend import JitWrapped, has_effects
from tessela_tracer.sharding import AbstractMesh, concrete_mesh_var, context_mesh
from tessela_tracer.typing import ArrayLike

from tessela_lowering import _sharded, _xla
from tessela_lowering._array import (
    Array,
    SingleDeviceSharding,
    _deleted_error,
    _donated_error,
    device_put_impl,
    signature,
)
from tessela_lowering._compile import Plan, make_plan
from tessela_lowering._dispatch import FastCall
from tessela_lowering._lowering import ModuleContext, lower_closed_jaxpr
from tessela_lowering._mesh import (
    Mesh,
    NamedSharding,
    PartitionSpec,
    constrained_out_specs,
    on_context_mesh,
    typed_out_shardings,
)
from tessela_lowering._sharded import ShardedArray, any_sharded, put_sharded, wrap_global
from tessela_lowering._spmd import (
    SpmdExecutable,
    build_spmd_module,
    constraint_meshes,
    spec_from_hlo,
)
from tessela_lowering._xla import Buffer, Value, _shards, device_platform

__all__ = ["SpmdStage", "call", "clear", "constrained", "fast_sharded_call", "stage", "wants_mesh"]

_R = TypeVar("_R")

_stages: weakref.WeakKeyDictionary[Any, dict[Any, SpmdStage]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()
_LEAF = tree_flatten(0)[1]


def clear() -> None:
    """Drop every compiled program of jitted functions with shardings."""
    with _lock:
        _stages.clear()


def _meshes_of(closed: ClosedJaxpr) -> list[Mesh | AbstractMesh]:
    return constraint_meshes(closed)


def wants_mesh(jitted: JitWrapped, flat: Sequence[ArrayLike]) -> bool:
    """Whether a concrete call of ``jitted`` compiles over a mesh on this path.

    Programs with sharding constraints are found once traced
    (:func:`constrained`).

    Args:
      jitted: the jitted function.
      flat: the call's flat traced arguments.

    Returns:
      True for shardings given to ``jit``, or donation of sharded arguments.
    """
    if type(get_current_trace()) is not EvalTrace or any(isinstance(x, Tracer) for x in flat):
        return False
    return jitted._has_shardings or (jitted._donates and any_sharded(flat))


def constrained(closed: ClosedJaxpr) -> bool:
    """Whether ``closed`` holds a sharding constraint over several devices.

    Args:
      closed: a traced program.

    Returns:
      True when it must be compiled over the constraint's mesh.
    """
    return bool(constraint_meshes(closed))


def _drop_dead_code(closed: ClosedJaxpr) -> ClosedJaxpr:
    # As JAX's lowering, which removes dead code first: equations without effects
    # whose values nothing reads (e.g. the primal constraint ``grad`` leaves) go.
    jaxpr = closed.jaxpr
    used = {v for v in jaxpr.outvars if not hasattr(v, "val")}
    keep = []
    for eqn in reversed(jaxpr.eqns):
        if not any(v in used for v in eqn.outvars) and not has_effects(eqn):
            continue
        keep.append(eqn)
        used.update(v for v in eqn.invars if not hasattr(v, "val"))
    if len(keep) == len(jaxpr.eqns):
        return closed
    new = Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, keep[::-1])
    return ClosedJaxpr(new, closed.consts)


def _equivalent(a: object, b: object, ndim: int) -> bool:
    if a == b:
        return True
    if not (isinstance(a, NamedSharding) and isinstance(b, NamedSharding)):
        return False
    if list(a.mesh.devices.flat) != list(b.mesh.devices.flat):
        return False
    return all(a.spec.axes_of(d) == b.spec.axes_of(d) for d in range(ndim))


def _mismatch(given: object, x: Array) -> ValueError:
    return ValueError(
        "Sharding passed to jit does not match the sharding on the respective arg. Got jit "
        f"sharding: {given!r},\narg sharding: {x.sharding!r} for arg type: "
        f"{get_aval(x).str_short()}. Move the argument first (device_put(x, sharding)), "
        "or pass an uncommitted value, which jit moves to its in_sharding."
    )


def _committed(x: object) -> TypeGuard[Array]:
    return isinstance(x, Array) and bool(x._committed)


def _no_mesh(sharding: object) -> str:
    return (
        f"jit: {sharding!r} is over an abstract mesh; run the call under "
        "`with set_mesh(mesh):` with a mesh of devices that has those axes."
    )


def _concrete(sharding: Any) -> Any:
    # A sharding over an abstract mesh names the concrete mesh in context.
    return on_context_mesh(sharding, _no_mesh)


class SpmdStage:
    """One call signature of a jitted function with shardings, compiled over its mesh.

    Attributes:
      plan: the traced call (inputs pruned, donation paired with outputs).
      mesh: the devices the program runs on.
      text: the StableHLO module (with its Shardy annotations).
      executable: the compiled program and its result layout.
      in_shardings: per flat argument, where the call puts it (``None``: pruned).
      out_shardings: per flat output, its sharding.
    """

    __slots__ = ("executable", "in_shardings", "mesh", "out_shardings", "plan", "text")

    def __init__(self, plan: Plan, mesh: Mesh, in_specs: Sequence[PartitionSpec | None],
                 out_given: Sequence[Any]) -> None:  # fmt: skip
        self.plan = plan
        self.mesh = mesh
        closed = plan.closed
        kept_avals = [plan.in_avals[i] for i in plan.kept]
        kept_specs = [in_specs[i] for i in plan.kept]
        out_avals = [v.aval for v in closed.jaxpr.outvars]
        out_specs = [s.spec if isinstance(s, NamedSharding) else None for s in out_given]
        callbacks: list[Any] = []

        def body(mctx: ModuleContext, values: list[Value]) -> Sequence[Value]:
            return lower_closed_jaxpr(mctx, closed, values)

        self.text = build_spmd_module(
            plan.name, mesh, kept_avals, kept_specs, out_avals, body,
            platform=device_platform(mesh.devices.flat[0]), host_callbacks=callbacks,
            out_specs=out_specs, aliases=plan.aliases,
        )  # fmt: skip
        if callbacks:
            raise NotImplementedError(
                f"jit({plan.name}): host callbacks are not supported in programs over several "
                "devices yet; call the function on single-device arrays."
            )
        exe = _shards.compile_spmd(self.text, list(mesh.devices.flat))
        params = _shards.parameter_shardings(exe, len(kept_avals))
        chosen = [
            s
            if s is not None
            else spec_from_hlo(h, mesh, a.ndim)
            if mesh.size > 1
            else PartitionSpec()
            for s, h, a in zip(kept_specs, params, kept_avals, strict=True)
        ]
        self.executable = SpmdExecutable(
            exe, self.text, mesh, out_avals, list(zip(kept_avals, chosen, strict=True))
        )
        # Over Explicit axes a computed result's spec is part of its type, one entry
        # per dimension (P('x', None)), as JAX; given out_shardings stay as given.
        self.executable.out_shardings = typed_out_shardings(
            mesh, self.executable.out_shardings, out_avals, constrained_out_specs(closed)
        )
        self.out_shardings: list[Any] = [
            g if g is not None else s
            for g, s in zip(out_given, self.executable.out_shardings, strict=True)
        ]
        self.executable.out_shardings = [
            g if isinstance(g, NamedSharding) else s
            for g, s in zip(out_given, self.executable.out_shardings, strict=True)
        ]
        self.in_shardings: list[Any] = [None] * len(plan.in_avals)
        for i, spec in zip(plan.kept, chosen, strict=True):
            self.in_shardings[i] = NamedSharding(mesh, spec)

    def run(self, flat: Sequence[ArrayLike]) -> list[Array]:
        """Run on the flat arguments; each is moved to its sharding when it is not there."""
        donates = any(a is not None for a in self.plan.aliases)
        for x in flat:
            if isinstance(x, Array) and x.is_deleted():
                # As JAX: ValueError from a jit that donates, else RuntimeError.
                raise (_donated_error if donates else _deleted_error)(x.aval)
        bufs = []
        for i in self.plan.kept:
            x, sharding = flat[i], self.in_shardings[i]
            if not (
                isinstance(x, ShardedArray)
                and (x.sharding == sharding or _equivalent(x.sharding, sharding, x.aval.ndim))
            ):  # P('x') and P('x', None) lay a rank-2 array out alike
                x = put_sharded(x, sharding)
            bufs.append(x._global)
        exe = self.executable
        outs = exe.executable.execute_sharded(bufs).consume_with_handlers(exe.handlers)
        results = [
            wrap_global(b, a, s)
            for b, a, s in zip(outs, exe.out_avals, exe.out_shardings, strict=True)
        ]
        return [
            _to_single(r, g) if isinstance(g, SingleDeviceSharding) else r
            for r, g in zip(results, self.out_shardings, strict=True)
        ]


def _to_single(x: Any, sharding: SingleDeviceSharding) -> Any:
    (out,) = device_put_impl(x, devices=(sharding,), srcs=(None,), copy_semantics=(None,))
    return out


def _pick_mesh(name: str, shardings: Sequence[Any], closed: ClosedJaxpr) -> Mesh | None:
    meshes = [s.mesh for s in shardings if isinstance(s, NamedSharding)]
    meshes += [_concrete(NamedSharding(m, PartitionSpec())).mesh for m in _meshes_of(closed)]
    mesh: Mesh | None = None
    for m in meshes:
        if mesh is None:
            mesh = m
        elif list(m.devices.flat) != list(mesh.devices.flat):
            raise ValueError(
                f"Received incompatible devices for jitted computation. jit({name}) has shardings "
                f"over device ids {mesh.device_ids.ravel().tolist()} and "
                f"{m.device_ids.ravel().tolist()}; give every argument, output and constraint "
                "shardings over one mesh."
            )
    return mesh


def _key(jitted: JitWrapped, args: tuple[Any, ...], kwargs: dict[str, Any], static: Any,
         flat: list[Any], in_tree: Any) -> Any:  # fmt: skip
    avals = tuple(get_aval(x) for x in flat)
    placed = tuple(x.sharding if isinstance(x, ShardedArray) else _committed(x) and x.device
                   for x in flat)  # fmt: skip
    donated = tuple(jitted._donation(args, kwargs)) if jitted._donates else ()
    return (in_tree, static, avals, placed, config.trace_key, donated, context_mesh(),
            concrete_mesh_var.get())  # fmt: skip


def stage(
    jitted: JitWrapped, args: tuple[Any, ...], kwargs: dict[str, Any], static: Hashable,
    flat: list[ArrayLike], in_tree: PyTreeDef,
) -> tuple[SpmdStage | None, list[NamedSharding | SingleDeviceSharding | None]]:  # fmt: skip
    """The compiled stage of a call (cached), after checking its arguments' shardings.

    Args:
      jitted: the jitted function.
      args, kwargs: the call's arguments.
      static: its static values.
      flat: its flat traced arguments.
      in_tree: their structure.

    Returns:
      ``(stage, in_leaves)``: the stage, or ``None`` when no sharding names a
      mesh; and the given in shardings per flat argument.

    Raises:
      ValueError: a committed argument's sharding differs from its in_sharding.
    """
    in_leaves = [_concrete(s) for s in jitted._in_sharding_leaves(args, kwargs)]
    for x, s in zip(flat, in_leaves, strict=True):
        if s is not None and _committed(x) and not _equivalent(x.sharding, s, get_aval(x).ndim):
            raise _mismatch(s, x)
    key = _key(jitted, args, kwargs, static, flat, in_tree)
    with _lock:
        table = _stages.setdefault(jitted._cache, {})
    hit = table.get(key)
    if hit is not None:
        return hit, in_leaves
    with jitted._cache.lock:
        jaxpr, consts, out_tree = jitted._trace(args, kwargs)
        jaxpr = _drop_dead_code(jaxpr)
        out_given = [_concrete(s) for s in jitted._out_sharding_leaves(out_tree)]
        placed = [
            s if s is not None else x.sharding if isinstance(x, ShardedArray) else None
            for x, s in zip(flat, in_leaves, strict=True)
        ]
        mesh = _pick_mesh(jitted._name, [*placed, *out_given], jaxpr)
        if mesh is None:
            return None, in_leaves
        in_specs = [s.spec if isinstance(s, NamedSharding) else None for s in placed]
        avals = [get_aval(x) for x in flat]
        donated = jitted._donation(args, kwargs)
        plan = make_plan(
            jitted._name, jaxpr, consts, out_tree, avals, donated,
            keep_unused=jitted.keep_unused, device=mesh.devices.flat[0], committed=True,
        )  # fmt: skip
        hit = SpmdStage(plan, mesh, in_specs, out_given)
        table[key] = hit
    return hit, in_leaves


def call(
    jitted: JitWrapped, args: tuple[Any, ...], kwargs: dict[str, Any], static: Hashable,
    flat: list[ArrayLike], in_tree: PyTreeDef, remember: Callable[[FastCall], None] | None = None,
) -> Any:  # fmt: skip
    """Run one concrete call of a jitted function over its mesh (see the module's notes).

    Args:
      jitted, args, kwargs, static, flat, in_tree: the call, as :func:`stage`
        takes it.
      remember: given the fast path's call for calls like this one, when
        there is one (``None``: no fast path).

    Returns:
      The output pytree.
    """
    hit, in_leaves = stage(jitted, args, kwargs, static, flat, in_tree)
    if hit is not None:
        out = tree_unflatten(hit.plan.out_tree, hit.run(flat))
        if remember is not None and context_mesh() is None and concrete_mesh_var.get() is None:
            fast = _fast_entry(hit, flat)
            if fast is not None:
                remember(fast)
        return out
    # No mesh: single-device shardings (or none) place the arguments, jit_p runs there.
    placed = [
        _to_single(x, s) if isinstance(s, SingleDeviceSharding) and not _committed(x) else x
        for x, s in zip(flat, in_leaves, strict=True)
    ]
    out = jitted._bind(args, kwargs, static, placed, in_tree)
    leaves, out_tree = tree_flatten(out)
    given = jitted._out_sharding_leaves(out_tree)
    moved = [
        _to_single(x, s) if isinstance(s, SingleDeviceSharding) else x
        for x, s in zip(leaves, given, strict=True)
    ]
    return tree_unflatten(out_tree, moved)


def fast_sharded_call(
    exe: SpmdExecutable,
    consts: Sequence[ArrayLike],
    specs: Sequence[PartitionSpec],
    wrap: Callable[[list[ShardedArray]], _R],
    kept: Sequence[int] | None = None,
    outside_mesh_context: bool = False,
) -> FastCall:
    """The jit fast path's call of an SPMD executable on sharded leaves.

    The leaves must be :class:`ShardedArray` laid out as the executable's
    inputs after ``consts`` (the fast key's signatures, which name each
    sharding, guarantee it); anything else raises, and the caller takes its
    full path.

    Args:
      exe: the compiled program.
      consts: the values passed before the leaves (moved to the mesh once).
      specs: every input's spec, the constants' first.
      wrap: makes the call's result from the output arrays.
      kept: which leaves the program takes (default: all).
      outside_mesh_context: whether the call raises under a mesh context
        (``set_mesh``), where its shardings may resolve otherwise.

    Returns:
      ``call(leaves)``: the result, its arrays laid out as ``exe.out_shardings``.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> from tessela_lowering.sharding import Mesh, NamedSharding, PartitionSpec
      >>> mesh = Mesh(np.array(tl.devices()[:1]), ("x",))
      >>> x = tl.device_put(np.ones(2, np.float32), NamedSharding(mesh, PartitionSpec("x")))
      >>> f = tl.jit(lambda a: a * 2)
      >>> _ = f(x)  # the first call compiles and fills the fast path
      >>> f(x)  # later calls run through fast_sharded_call
      Array([2., 2.], dtype=float32)
    """
    const_bufs = [
        c._global
        if isinstance(c, ShardedArray) and c.sharding.spec == s and c.sharding.mesh == exe.mesh
        else put_sharded(c, NamedSharding(exe.mesh, s))._global
        for c, s in zip(consts, specs, strict=False)
    ]
    outs = list(zip(exe.out_avals, exe.out_shardings, strict=True))
    sigs = [signature(a, s, True) for a, s in outs]
    new = object.__new__
    n = len(outs)

    def finish(bufs: list[Buffer]) -> _R:
        arrays: list[ShardedArray] = list(map(new, itertools.repeat(ShardedArray, n)))
        for out, buf, (aval, sharding), sig in zip(arrays, bufs, outs, sigs):  # noqa: B905
            out._global = buf
            out._named = sharding
            out._gathered = None
            out.aval = aval
            out._committed = True
            out._npy = None
            out._sig = sig
        return wrap(arrays)

    run = _xla.runner(exe.executable, exe.handlers, finish)
    global_of = operator.attrgetter("_global")  # AttributeError but for a ShardedArray
    if outside_mesh_context or kept is not None:
        take = (lambda leaves: leaves) if kept is None else _taker(kept)
        get_context, get_concrete = context_mesh, concrete_mesh_var.get

        def call(leaves: Sequence[object]) -> _R:
            if outside_mesh_context and (get_context() is not None or get_concrete() is not None):
                raise LookupError("a mesh context: the full path resolves the shardings")
            return run([*const_bufs, *map(global_of, take(leaves))])

        return call
    if const_bufs:
        return lambda leaves: run([*const_bufs, *map(global_of, leaves)])
    return lambda leaves: run(list(map(global_of, leaves)))


def _taker(kept: Sequence[int]) -> Callable[[Sequence[Any]], Sequence[Any]]:
    if len(kept) == 1:
        (i,) = kept
        return lambda leaves: (leaves[i],)
    if not kept:
        return lambda leaves: ()
    return operator.itemgetter(*kept)


def _fast_entry(hit: SpmdStage, flat: Sequence[ArrayLike]) -> FastCall | None:
    # The fast path's call of a stage, when every argument it takes is a
    # ShardedArray already laid out as its in sharding, no result moves to one
    # device, and nothing is donated (those calls check and delete buffers).
    plan = hit.plan
    if any(a is not None for a in plan.aliases) or any(
        isinstance(s, SingleDeviceSharding) for s in hit.out_shardings
    ):
        return None
    kept = plan.kept
    if not _sharded.laid_out_as((flat[i] for i in kept), (hit.in_shardings[i] for i in kept)):
        return None
    out_tree = plan.out_tree
    wrap: Callable[[list[ShardedArray]], Any] = (
        operator.itemgetter(0) if out_tree == _LEAF else functools.partial(tree_unflatten, out_tree)
    )
    return fast_sharded_call(
        hit.executable, (), (), wrap, kept=list(plan.kept), outside_mesh_context=True
    )
