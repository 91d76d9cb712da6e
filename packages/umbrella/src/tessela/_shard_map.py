"""``tessela.shard_map``: a per-device function mapped over the blocks of a mesh.

``shard_map(f, mesh=mesh, in_specs=..., out_specs=...)(*args)`` splits each
argument into blocks as its ``PartitionSpec`` says, runs ``f`` on each
device's blocks with the mesh axes bound as named axes (so ``psum(x, "x")``,
``all_gather``, ``axis_index`` ... communicate along them), and puts the
output blocks together as ``out_specs`` says.

Called on concrete arrays it runs on the mesh's devices: the per-device
function is lowered inside an ``sdy.manual_computation`` and its collectives
become XLA collectives (:func:`tessela_lowering.shard_map_call`). Under a
transformation (``jit``, ``grad``, ``vmap``) it is expressed with ``vmap``
over the mesh axes, which gives the same values and composes with every
transformation.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from tessela_batching import vmap
from tessela_lowering.sharding import Mesh, PartitionSpec, get_mesh
from tessela_lowering.spmd import local_aval, shard_map_call, shard_map_runner
from tessela_pytree import tree_flatten, tree_unflatten
from tessela_tracer import EvalTrace, Tracer, get_aval, get_current_trace, lax, trace_to_jaxpr
from tessela_tracer.extend import axis_frame
from tessela_tracer.typing import Array

__all__ = ["shard_map"]


class _Infer:
    def __repr__(self) -> str:
        return "Infer"


Infer = _Infer()
"""``in_specs`` default: each argument's spec is read from its sharding."""


def _broadcast_specs(specs: Any, tree: Any, what: str) -> list[PartitionSpec]:
    """One spec per leaf of ``tree``: ``specs`` is a prefix of its structure."""
    if specs is None or isinstance(specs, PartitionSpec):
        spec = PartitionSpec() if specs is None else specs
        return [spec] * len(tree_flatten(tree)[0])
    if isinstance(specs, (tuple, list)) and isinstance(tree, (tuple, list)):
        if len(specs) != len(tree):
            raise ValueError(
                f"shard_map {what} has {len(specs)} entries for a structure of {len(tree)}; "
                f"give one PartitionSpec per {'argument' if what == 'in_specs' else 'output'} "
                "(or one for all)."
            )
        return [
            s for sub, t in zip(specs, tree, strict=True) for s in _broadcast_specs(sub, t, what)
        ]
    if isinstance(specs, dict) and isinstance(tree, dict) and specs.keys() == tree.keys():
        return [s for k in tree for s in _broadcast_specs(specs[k], tree[k], what)]
    raise ValueError(
        f"shard_map {what} {specs!r} does not match the structure {tree!r}: it must be a "
        "PartitionSpec, or a tuple/list/dict of them shaped like the values (a prefix)."
    )


def _axis_frames(mesh: Mesh) -> contextlib.ExitStack:
    stack = contextlib.ExitStack()
    for name, size in mesh.shape.items():
        stack.enter_context(axis_frame(name, size))
    return stack


def _split(x: Any, spec: PartitionSpec, mesh: Mesh) -> tuple[Any, list[Hashable]]:
    """``x`` with one leading axis per mesh axis its spec uses (mesh order), then its block."""
    sizes = mesh.shape
    shape = get_aval(x).shape
    new_shape: list[int] = []
    labels: list[Any] = []
    for d, n in enumerate(shape):
        axes = spec.axes_of(d)
        parts = 1
        for a in axes:
            new_shape.append(sizes[a])
            labels.append(a)
            parts *= sizes[a]
        new_shape.append(n // parts)
        labels.append(("block", d))
    present = [a for a in mesh.axis_names if a in labels]
    perm = [labels.index(a) for a in present]
    perm += [i for i, label in enumerate(labels) if isinstance(label, tuple)]
    return lax.transpose(lax.reshape(x, tuple(new_shape)), tuple(perm)), present


def _check_out_spec(spec: PartitionSpec, ndim: int, mesh: Mesh, i: int) -> None:
    if len(spec) > ndim:
        raise ValueError(
            f"shard_map out_specs entry {spec} for output {i} has {len(spec)} entries, but the "
            f"function returns an array of rank {ndim}; give at most one entry per dimension."
        )
    for d in range(len(spec)):
        for a in spec.axes_of(d):
            if a not in mesh.axis_names:
                raise ValueError(
                    f"shard_map out_specs entry {spec} for output {i} names the axis {a!r}, which "
                    f"the mesh {mesh.axis_names} does not have; use one of the mesh's axis names."
                )


def _join(y: Any, spec: PartitionSpec, mesh: Mesh) -> Any:
    """Blocks with one leading axis per mesh axis (mesh order) put together as ``spec`` says."""
    names = list(mesh.axis_names)
    sizes = mesh.shape
    used = {a for d in range(len(spec)) for a in spec.axes_of(d)}
    for i in reversed(range(len(names))):
        if names[i] not in used:  # replicated over this axis: every block is the same
            y = lax.index_in_dim(y, 0, i, keepdims=False)
    kept = [a for a in names if a in used]
    local = get_aval(y).shape[len(kept) :]
    perm: list[int] = []
    shape: list[int] = []
    for d, n in enumerate(local):
        axes = spec.axes_of(d)
        perm += [kept.index(a) for a in axes]
        perm.append(len(kept) + d)
        parts = 1
        for a in axes:
            parts *= sizes[a]
        shape.append(n * parts)
    return lax.reshape(lax.transpose(y, tuple(perm)), tuple(shape))


def _emulate(
    flat_fun: Callable[..., list[Any]],
    mesh: Mesh,
    in_specs: Sequence[PartitionSpec],
    out_specs_of: Callable[[], Sequence[PartitionSpec]],
    flat_args: Sequence[Any],
) -> list[Any]:
    split = [_split(x, s, mesh) for x, s in zip(flat_args, in_specs, strict=True)]
    fun: Callable[..., Any] = flat_fun
    for name in reversed(mesh.axis_names):
        in_axes = tuple(0 if name in present else None for _, present in split)
        fun = vmap(fun, in_axes=in_axes, axis_name=name, axis_size=mesh.shape[name])
    outs = fun(*(x for x, _ in split))
    specs = out_specs_of()
    for i, (y, s) in enumerate(zip(outs, specs, strict=True)):
        _check_out_spec(s, get_aval(y).ndim - len(mesh.axis_names), mesh, i)
    return [_join(y, s, mesh) for y, s in zip(outs, specs, strict=True)]


class _ShardMapped:
    def __init__(
        self,
        f: Callable[..., Any],
        mesh: Mesh | None,
        in_specs: Any,
        out_specs: Any,
    ) -> None:
        self._f = f
        self._mesh = mesh
        self._in_specs = in_specs
        self._out_specs = out_specs
        self._traced: dict[Any, Any] = {}
        functools.update_wrapper(self, f)

    def _mesh_now(self) -> Mesh:
        mesh = self._mesh if self._mesh is not None else get_mesh()
        if mesh.empty:
            raise ValueError(
                "shard_map needs a mesh: pass mesh=tessela.make_mesh(...) or call it inside "
                "`with tessela.set_mesh(mesh):`."
            )
        return mesh

    def _specs_in(self, args: tuple[Any, ...], mesh: Mesh) -> list[PartitionSpec]:
        if self._in_specs is Infer:
            specs = []
            for x in tree_flatten(args)[0]:
                sharding = getattr(x, "sharding", None)
                spec = getattr(sharding, "spec", None)
                same = getattr(sharding, "mesh", None) == mesh
                specs.append(spec if isinstance(spec, PartitionSpec) and same else PartitionSpec())
            return specs
        given = self._in_specs
        return _broadcast_specs(
            tuple(given) if isinstance(given, list) else given, args, "in_specs"
        )

    def runner(self, *args: Any) -> Callable[..., Any] | None:
        """After an eager call on ``args``: a function for later calls of their layout.

        For callers that key calls on their arguments' signatures (``pmap``):
        it runs the compiled program on the arguments' buffers, without
        flattening, checking or moving them. ``None`` unless ``args`` are
        sharded arrays already laid out as this call's in specs say.
        """
        mesh = self._mesh_now()
        flat, in_tree = tree_flatten(args)
        if list(args) != flat:  # top-level arrays only
            return None
        in_specs = self._specs_in(args, mesh)
        hit = self._traced.get((in_tree, tuple(map(get_aval, flat)), tuple(in_specs), mesh))
        if hit is None:
            return None
        closed, out_tree, specs_out = hit
        run = shard_map_runner(closed, mesh, in_specs, specs_out, flat)
        if run is None:
            return None
        return lambda *later: tree_unflatten(out_tree, run(later))

    def __call__(self, *args: Any) -> Any:
        mesh = self._mesh_now()
        flat, in_tree = tree_flatten(args)
        in_specs = self._specs_in(args, mesh)
        avals = [get_aval(x) for x in flat]
        key = (in_tree, tuple(avals), tuple(in_specs), mesh)
        hit = self._traced.get(key)
        # The blocks' shapes (and the check that each spec divides its argument)
        # are needed unless this call's layout was already traced.
        local = (
            [
                local_aval(a, mesh, s, f"argument {i}")
                for i, (a, s) in enumerate(zip(avals, in_specs, strict=True))
            ]
            if hit is None
            else []
        )
        out_tree_box: list[Any] = []

        def flat_fun(*xs: Array) -> list[Any]:
            out = self._f(*tree_unflatten(in_tree, list(xs)))
            leaves, tree = tree_flatten(out)
            if not out_tree_box:
                # The output's structure with avals for leaves (what out_specs
                # is matched against): keeping the tracers themselves would
                # leak them past the trace that made them.
                out_tree_box.append((tree, tree_unflatten(tree, [get_aval(x) for x in leaves])))
            return leaves

        def out_specs() -> list[PartitionSpec]:
            _tree, example = out_tree_box[0]
            return _broadcast_specs(self._out_specs, example, "out_specs")

        eager = type(get_current_trace()) is EvalTrace and not any(
            isinstance(x, Tracer) for x in flat
        )
        if not eager:
            outs = _emulate(flat_fun, mesh, in_specs, out_specs, flat)
            return tree_unflatten(out_tree_box[0][0], outs)
        if hit is None:
            with _axis_frames(mesh):
                closed = trace_to_jaxpr(flat_fun, local)
            specs_out = tuple(out_specs())
            for i, (v, s) in enumerate(zip(closed.jaxpr.outvars, specs_out, strict=True)):
                _check_out_spec(s, v.aval.ndim, mesh, i)
            hit = (closed, out_tree_box[0][0], specs_out)
            self._traced[key] = hit
        closed, out_tree, specs_out = hit
        outs = shard_map_call(closed, mesh, in_specs, specs_out, flat, name="shmap_body")
        return tree_unflatten(out_tree, outs)


def shard_map(
    f: Callable[..., Any] | None = None,
    /,
    *,
    out_specs: Any,
    in_specs: Any = Infer,
    mesh: Mesh | None = None,
    axis_names: frozenset[Hashable] | set[Hashable] = frozenset(),
    check_vma: bool = True,
) -> Any:
    """Map ``f`` over the blocks of arrays split across ``mesh``.

    Args:
      f: the per-device function (when omitted, ``shard_map`` returns a decorator).
      out_specs: how the output blocks make each output (a PartitionSpec, or
        a tuple/list/dict of them shaped like the outputs). An axis it does not
        name means the blocks are equal along it.
      in_specs: how each argument is split into blocks (default: read from
        each argument's ``NamedSharding``, unsplit otherwise).
      mesh: the devices (default: the mesh of ``tessela.set_mesh``).
      axis_names: accepted for JAX's signature (every mesh axis is manual).
      check_vma: accepted for JAX's signature (outputs are not checked).

    Returns:
      The mapped function.

    Example:
      >>> import numpy as np
      >>> import tessela as tx
      >>> from tessela.sharding import PartitionSpec as P
      >>> mesh = tx.make_mesh((1,), ("x",))
      >>> f = shard_map(lambda b: tx.lax.psum(b.sum(), "x"), mesh=mesh, in_specs=P("x"),
      ...               out_specs=P())
      >>> f(np.arange(4.0, dtype=np.float32))
      Array(6., dtype=float32)
    """
    del axis_names, check_vma
    if f is None:
        return lambda g: shard_map(g, out_specs=out_specs, in_specs=in_specs, mesh=mesh)
    return _ShardMapped(f, mesh, in_specs, out_specs)


def _experimental_shard_map(
    f: Callable[..., Any],
    mesh: Mesh,
    in_specs: Any,
    out_specs: Any,
    check_rep: bool = True,
    auto: frozenset[Hashable] = frozenset(),
) -> Any:
    """``jax.experimental.shard_map.shard_map``: :func:`shard_map` with positional arguments.

    Args:
      f: the per-device function.
      mesh: the devices.
      in_specs: how each argument is split.
      out_specs: how the outputs are put together.
      check_rep: accepted for JAX's signature (outputs are not checked).
      auto: accepted for JAX's signature; must be empty.

    Returns:
      The mapped function.

    Example:
      >>> import numpy as np
      >>> import tessela as tx
      >>> from tessela.sharding import PartitionSpec as P
      >>> mesh = tx.make_mesh((1,), ("x",))
      >>> _experimental_shard_map(lambda b: b * 2, mesh, P("x"), P("x"))(np.ones(2, np.float32))
      Array([2., 2.], dtype=float32)
    """
    del check_rep
    if auto:
        raise NotImplementedError(
            "shard_map(auto=...) is not supported: every mesh axis is manual; leave auto empty."
        )
    return shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs)
