"""Programs over the devices of a mesh, partitioned by XLA (Shardy).

A module compiled here carries the mesh (``sdy.mesh @mesh``) and, on each
argument, its ``#sdy.sharding`` (as JAX 0.10.2 emits them); XLA's partitioner
splits the program over the mesh's devices and propagates shardings to the
outputs, which come back as :class:`ShardedArray` with the
``NamedSharding`` that describes what XLA chose.

Eagerly, a primitive bound on a sharded array runs here: the first sharded
array made (or the first sharding constraint) installs :func:`eager_backend`
as the tracer's eager backend, which sends every call with a sharded operand
to :func:`apply_sharded`, a ``jit_p`` whose program holds sharding
constraints over a mesh (e.g. a jitted function with shardings under eager
``grad``) to that mesh, and every other call to the single-device backend
unchanged.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import ClosedJaxpr, Jaxpr, Primitive, ShapedArray, get_aval
from tessela_tracer import primitives as P
from tessela_tracer.extend import set_eager_backend
from tessela_tracer.sharding import AbstractMesh, constraint_hooks, constraints_bound
from tessela_tracer.typing import ArrayLike

from tessela_lowering import _hlo
from tessela_lowering._array import Array
from tessela_lowering._dispatch import apply_primitive
from tessela_lowering._lowering import (
    LoweringRuleContext,
    ModuleContext,
    has_lowering,
    lower_closed_jaxpr,
    lowering_rule,
)
from tessela_lowering._mesh import (
    Mesh,
    NamedSharding,
    PartitionSpec,
    constrained_out_specs,
    typed_out_shardings,
)
from tessela_lowering._sharded import (
    ShardedArray,
    _on_first,
    hlo_sharding_of,
    put_sharded,
    wrap_global,
)
from tessela_lowering._xla import (
    Executable,
    Value,
    _shards,
    device_platform,
    entry_function,
    func_dialect,
    ir,
    make_ir_context,
    module_text,
)

__all__ = [
    "SpmdExecutable",
    "apply_sharded",
    "build_spmd_module",
    "compile_jaxpr",
    "constraint_meshes",
    "eager_backend",
    "last_jit_run",
    "mesh_text",
    "run_jaxpr",
    "sdy_sharding",
    "spec_from_hlo",
]


def mesh_text(mesh: Mesh) -> str:
    """The ``sdy.mesh`` op naming ``mesh``'s axes, as JAX emits it.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> mesh_text(Mesh(np.array(tl.devices()[:1]).reshape(1, 1), ("x", "y")))
      'sdy.mesh @mesh = <["x"=1, "y"=1]>'
    """
    axes = ", ".join(f'"{n}"={s}' for n, s in zip(mesh.axis_names, mesh.axis_sizes, strict=True))
    return f"sdy.mesh @mesh = <[{axes}]>"


def sdy_sharding(spec: PartitionSpec, ndim: int) -> str:
    """The ``#sdy.sharding`` attribute of ``spec`` for an array of rank ``ndim``.

    Example:
      >>> sdy_sharding(PartitionSpec("x", ("a", "b")), 3)
      '#sdy.sharding<@mesh, [{"x"}, {"a", "b"}, {}]>'
    """
    dims = []
    for d in range(ndim):
        entry = spec[d] if d < len(spec) else None
        if entry is PartitionSpec.UNCONSTRAINED:
            dims.append("{?}")
        else:
            dims.append("{" + ", ".join(f'"{a}"' for a in spec.axes_of(d)) + "}")
    return f"#sdy.sharding<@mesh, [{', '.join(dims)}]>"


def build_spmd_module(
    name: str,
    mesh: Mesh,
    in_avals: Sequence[ShapedArray],
    in_specs: Sequence[PartitionSpec | None],
    out_avals: Sequence[ShapedArray],
    body: Callable[[ModuleContext, list[Value]], Sequence[Value]],
    *,
    platform: str,
    host_callbacks: list[Callable[..., Any]] | None = None,
    out_specs: Sequence[PartitionSpec | None] | None = None,
    aliases: Sequence[int | None] | None = None,
) -> str:
    """A module whose ``@main`` runs ``body`` over ``mesh``, arguments split as ``in_specs``.

    Args:
      name: the module's name (``jit_<name>``).
      mesh: the devices and their axes.
      in_avals: the arguments' abstract values (whole arrays).
      in_specs: how each argument is split over the mesh (``None``: no
        annotation, the partitioner chooses).
      out_avals: the results' abstract values (whole arrays).
      body: emits the program, given the module context and the arguments.
      platform: the platform compiled for.
      host_callbacks: receives the host callbacks the program calls.
      out_specs: how each result is split (``None`` entries, or no list: the
        partitioner chooses).
      aliases: per argument, the result that reuses its (donated) buffer.

    Returns:
      The module text, with the mesh and the arguments' shardings.
    """
    with make_ir_context() as context, ir.Location.unknown():
        _shards.load_sdy(context)
        module = ir.Module.create()
        attrs = module.operation.attributes
        attrs["sym_name"] = ir.StringAttr.get(f"jit_{name}")
        i32 = ir.IntegerType.get_signless(32)
        attrs["mhlo.num_partitions"] = ir.IntegerAttr.get(i32, max(mesh.size, 1))
        attrs["mhlo.num_replicas"] = ir.IntegerAttr.get(i32, 1)
        module.body.append(ir.Operation.parse(mesh_text(mesh)))
        in_types = [_hlo.tensor_type(a.shape, a.dtype) for a in in_avals]
        out_types = [_hlo.tensor_type(a.shape, a.dtype) for a in out_avals]
        arg_attrs: list[dict[str, ir.Attribute]] = []
        for i, (a, s) in enumerate(zip(in_avals, in_specs, strict=True)):
            attrs_i = (
                {} if s is None else {"sdy.sharding": ir.Attribute.parse(sdy_sharding(s, a.ndim))}
            )
            if aliases is not None and aliases[i] is not None:
                attrs_i["tf.aliasing_output"] = ir.IntegerAttr.get(i32, int(aliases[i]))  # type: ignore[arg-type]
            arg_attrs.append(attrs_i)
        block = entry_function(module, in_types, out_types, arg_attrs)
        if out_specs is not None and any(s is not None for s in out_specs):
            res = [
                ir.DictAttr.get(
                    {}
                    if s is None
                    else {"sdy.sharding": ir.Attribute.parse(sdy_sharding(s, a.ndim))}
                )
                for a, s in zip(out_avals, out_specs, strict=True)
            ]
            block.owner.attributes["res_attrs"] = ir.ArrayAttr.get(res)
        mctx = ModuleContext(module, platform, host_callbacks)
        mctx.unique_name("main")
        with ir.InsertionPoint(block):
            func_dialect.ReturnOp(list(body(mctx, list(block.arguments))))
        return module_text(module)


def _spec_candidates(mesh: Mesh, ndim: int) -> list[PartitionSpec]:
    big = [n for n, s in zip(mesh.axis_names, mesh.axis_sizes, strict=True) if s > 1]
    out: list[PartitionSpec] = []
    for order in itertools.permutations(big):
        for where in itertools.product(range(-1, ndim), repeat=len(order)):
            dims: list[list[Any]] = [[] for _ in range(ndim)]
            for axis, d in zip(order, where, strict=True):
                if d >= 0:
                    dims[d].append(axis)
            entries = [None if not a else a[0] if len(a) == 1 else tuple(a) for a in dims]
            while entries and entries[-1] is None:
                entries.pop()
            out.append(PartitionSpec(*entries))
    return out


def spec_from_hlo(hlo: _shards.XlaSharding, mesh: Mesh, ndim: int) -> PartitionSpec:
    """The partition spec over ``mesh`` that splits an array as XLA's ``hlo`` sharding does.

    Args:
      hlo: an HloSharding whose positions index the mesh's devices, row-major.
      mesh: the mesh.
      ndim: the array's rank.

    Returns:
      The spec (trailing unsplit dimensions left out, as JAX prints them).

    Raises:
      NotImplementedError: no spec over the mesh's axes gives that layout.
    """
    target = _shards.tile_map(hlo, ndim, mesh.size)
    if all(t == (0,) * ndim for t in target):
        return PartitionSpec()
    for spec in _spec_candidates(mesh, ndim):
        candidate = hlo_sharding_of(NamedSharding(mesh, spec), ndim)
        if _shards.tile_map(candidate, ndim, mesh.size) == target:
            return spec
    raise NotImplementedError(
        f"XLA laid out a result as {hlo}, which no partition spec over the mesh axes "
        f"{mesh.axis_names} describes; constrain the output's sharding explicitly."
    )


def _one_device_spec(
    aval: ShapedArray, inputs: Sequence[tuple[ShapedArray, PartitionSpec]]
) -> PartitionSpec:
    # Over one device XLA reports no layout (every spec is the same one); as
    # JAX's propagation does there, an output shaped as an input keeps its spec.
    for in_aval, spec in inputs:
        if in_aval.shape == aval.shape and len(spec):
            return spec
    return PartitionSpec()


class SpmdExecutable:
    """A compiled SPMD program, the layout of its outputs, and how to run it."""

    __slots__ = (
        "_in_shardings", "executable", "handlers", "mesh", "out_avals", "out_shardings", "text",
    )  # fmt: skip

    def __init__(
        self,
        executable: Executable,
        text: str,
        mesh: Mesh,
        out_avals: Sequence[ShapedArray],
        inputs: Sequence[tuple[ShapedArray, PartitionSpec]] = (),
    ) -> None:
        self.executable = executable
        self.text = text
        self.mesh = mesh
        self.out_avals = list(out_avals)
        devs = list(mesh.devices.flat)
        hlos = _shards.output_shardings(executable, len(self.out_avals))
        self.out_shardings = [
            NamedSharding(mesh, _one_device_spec(a, inputs))
            if mesh.size == 1
            else NamedSharding(mesh, spec_from_hlo(h, mesh, a.ndim))
            for h, a in zip(hlos, self.out_avals, strict=True)
        ]
        self.handlers = [
            _shards.sharded_result_handler(a, devs, h)
            for a, h in zip(self.out_avals, hlos, strict=True)
        ]
        self._in_shardings: dict[tuple[PartitionSpec, ...], list[NamedSharding]] = {}

    def __call__(
        self, args: Sequence[ArrayLike], in_specs: Sequence[PartitionSpec]
    ) -> list[ShardedArray]:
        """Run on ``args``; each is moved to the mesh as its spec says when it is not there."""
        specs = tuple(in_specs)
        shardings = self._in_shardings.get(specs)
        if shardings is None:
            shardings = [NamedSharding(self.mesh, spec) for spec in specs]
            self._in_shardings[specs] = shardings
        bufs = []
        for a, sharding in zip(args, shardings, strict=True):
            if not (isinstance(a, ShardedArray) and a.sharding == sharding):
                a = put_sharded(a, sharding)
            bufs.append(a._global)
        outs = self.executable.execute_sharded(bufs).consume_with_handlers(self.handlers)
        return [
            wrap_global(b, aval, sh)
            for b, aval, sh in zip(outs, self.out_avals, self.out_shardings, strict=True)
        ]


_cache: dict[Any, SpmdExecutable] = {}
_cache_lock = threading.Lock()


def _freeze(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    return value


def _compile(
    name: str,
    mesh: Mesh,
    text: str,
    callbacks: list[Any],
    out_avals: Any,
    inputs: Sequence[tuple[ShapedArray, PartitionSpec]],
    constrained: Sequence[PartitionSpec | None] | None = None,
) -> SpmdExecutable:
    if callbacks:
        raise NotImplementedError(
            f"{name}: host callbacks are not supported in programs over several devices yet; "
            "call the function on single-device arrays."
        )
    exe = _shards.compile_spmd(text, list(mesh.devices.flat))
    out = SpmdExecutable(exe, text, mesh, out_avals, inputs)
    out.out_shardings = typed_out_shardings(mesh, out.out_shardings, out.out_avals, constrained)
    return out


def _incompatible(
    what: str, i: int, a: ArrayLike, ids_a: list[int], j: int, b: ArrayLike, ids_b: list[int]
) -> ValueError:
    return ValueError(
        f"Received incompatible devices for {what}. Got argument {i} with shape "
        f"{get_aval(a).str_short()} and with device ids {ids_a} and argument {j} with shape "
        f"{get_aval(b).str_short()} and with device ids {ids_b}; put every argument on one "
        "mesh first, e.g. device_put(x, NamedSharding(mesh, spec)), or leave a value "
        "uncommitted (device_put(x) without a device) so that it is replicated over the mesh."
    )


def _common_mesh(args: Sequence[Any], what: str) -> Mesh:
    mesh: Mesh | None = None
    first = -1
    for i, a in enumerate(args):
        if isinstance(a, ShardedArray):
            m = a.sharding.mesh
            if mesh is None:
                mesh, first = m, i
            elif m is not mesh and list(m.devices.flat) != list(mesh.devices.flat):
                raise _incompatible(
                    what, first, args[first], mesh.device_ids.ravel().tolist(),
                    i, a, m.device_ids.ravel().tolist(),
                )  # fmt: skip
    if mesh is None:
        raise ValueError(f"{what}: no argument is sharded over a mesh.")
    ids: list[int] | None = None
    for i, a in enumerate(args):
        # A value committed to a device outside the mesh cannot join it. (JAX refuses any
        # committed single-device value; one on a mesh device is replicated here, so that
        # results of jit, which computes on the mesh's first device, combine with the mesh.)
        if type(a) is ShardedArray or not getattr(a, "committed", False):
            continue
        if ids is None:
            ids = mesh.device_ids.ravel().tolist()
        if a.device.id not in ids:
            raise _incompatible(what, first, args[first], ids, i, a, [a.device.id])
    return mesh


def _specs(args: Sequence[ArrayLike]) -> tuple[PartitionSpec, ...]:
    return tuple(a.sharding.spec if isinstance(a, ShardedArray) else PartitionSpec() for a in args)


def apply_sharded(
    prim: Primitive, args: Sequence[ArrayLike], params: dict[str, Any], /
) -> ShardedArray | list[ShardedArray]:
    """Run one primitive on operands of which some are sharded, partitioned by XLA.

    Unsharded operands are replicated over the mesh of the sharded ones; the
    results are split as XLA's sharding propagation decides, which is what
    JAX reports for the same operation.

    Args:
      prim: the primitive.
      args: its operands (at least one :class:`ShardedArray`).
      params: its parameters.

    Returns:
      A :class:`ShardedArray`, or a list of them for ``multiple_results`` primitives.

    Raises:
      ValueError: two operands are sharded over different devices.
    """
    if prim is P.slice_p and params.get("strides") is None:
        # As JAX: eagerly, a slice runs as a dynamic slice (one executable for
        # every offset), whose result XLA replicates along split dimensions.
        (x,) = args
        sizes = tuple(
            h - lo for lo, h in zip(params["start_indices"], params["limit_indices"], strict=True)
        )
        starts = [np.int32(i) for i in params["start_indices"]]
        return apply_sharded(P.dynamic_slice_p, (x, *starts), {"slice_sizes": sizes})
    mesh = _common_mesh(args, f"the {prim.name} operation")
    avals = tuple(get_aval(a) for a in args)
    specs = _specs(args)
    key = (prim, avals, _freeze(params), mesh, specs)
    entry = _cache.get(key)
    if entry is None:
        out = prim.abstract_eval(*avals, **params)
        out_avals = list(out) if prim.multiple_results else [out]
        platform = device_platform(mesh.devices.flat[0])
        rule = lowering_rule(prim, platform)
        if rule is None:
            raise NotImplementedError(
                f"no lowering rule for primitive {prim.name!r} on platform {platform!r}."
            )
        callbacks: list[Any] = []

        def body(mctx: ModuleContext, values: list[Value]) -> Sequence[Value]:
            ctx = LoweringRuleContext(mctx, prim, avals, out_avals)
            return list(rule(ctx, *values, **params))

        text = build_spmd_module(
            prim.name, mesh, avals, specs, out_avals, body,
            platform=platform, host_callbacks=callbacks,
        )  # fmt: skip
        entry = _compile(
            prim.name, mesh, text, callbacks, out_avals, list(zip(avals, specs, strict=True)),
            constrained_out_specs(params["jaxpr"]) if prim is P.jit_p else None,
        )  # fmt: skip
        with _cache_lock:
            _cache[key] = entry
    results = entry(args, specs)
    if prim is P.jit_p:
        _last.run = (entry, specs, args, results)
    return results if prim.multiple_results else results[0]


_last = threading.local()


def last_jit_run() -> (
    tuple[SpmdExecutable, tuple[PartitionSpec, ...], Sequence[ArrayLike], list[ShardedArray]] | None
):
    """The last ``jit_p`` this thread ran over a mesh: executable, input specs, operands, results.

    Reading it forgets it (the jit fast path reads it once after a full call).

    Returns:
      ``(executable, specs, operands, results)``, or ``None`` when none ran
      since the last read.

    Example:
      >>> last_jit_run() is None
      True
    """
    run: Any = getattr(_last, "run", None)
    _last.run = None
    return run  # type: ignore[no-any-return]


def compile_jaxpr(
    closed: ClosedJaxpr, mesh: Mesh, in_specs: Sequence[PartitionSpec], *, name: str = "main"
) -> SpmdExecutable:
    """Compile ``closed`` over ``mesh``, its inputs split as ``in_specs``.

    Args:
      closed: the program.
      mesh: the devices.
      in_specs: how each input is split.
      name: the module's name.

    Returns:
      The executable (cached per program, mesh and specs).
    """
    key = ("jaxpr", closed, mesh, tuple(in_specs))
    entry = _cache.get(key)
    if entry is not None:
        return entry
    in_avals = [v.aval for v in closed.jaxpr.invars]
    out_avals = [v.aval for v in closed.jaxpr.outvars]
    platform = device_platform(mesh.devices.flat[0])
    callbacks: list[Any] = []

    def body(mctx: ModuleContext, values: list[Value]) -> Sequence[Value]:
        return lower_closed_jaxpr(mctx, closed, values)

    text = build_spmd_module(
        name, mesh, in_avals, in_specs, out_avals, body, platform=platform,
        host_callbacks=callbacks,
    )  # fmt: skip
    entry = _compile(
        name, mesh, text, callbacks, out_avals, list(zip(in_avals, in_specs, strict=True)),
        constrained_out_specs(closed),
    )  # fmt: skip
    with _cache_lock:
        _cache[key] = entry
    return entry


def run_jaxpr(
    closed: ClosedJaxpr, args: Sequence[ArrayLike], *, name: str = "main"
) -> list[ShardedArray]:
    """Run ``closed`` on ``args`` (some sharded) over their mesh: jit on sharded arguments.

    Args:
      closed: the program.
      args: one value per input; the sharded ones fix the mesh and their
        own layout, the rest are replicated.
      name: the module's name.

    Returns:
      The outputs, split as XLA's propagation decides.
    """
    mesh = _common_mesh(args, f"jit({name})")
    specs = _specs(args)
    return compile_jaxpr(closed, mesh, specs, name=name)(args, specs)


def _sub_jaxprs(value: Any) -> list[Jaxpr]:
    if isinstance(value, ClosedJaxpr):
        return [value.jaxpr]
    if isinstance(value, Jaxpr):
        return [value]
    if isinstance(value, (tuple, list)):
        return [j for v in value for j in _sub_jaxprs(v)]
    return []


def _collect_meshes(jaxpr: Jaxpr, out: list[Mesh | AbstractMesh]) -> None:
    for eqn in jaxpr.eqns:
        if eqn.primitive is P.sharding_constraint_p:
            mesh = getattr(eqn.params["sharding"], "mesh", None)
            if mesh is not None and mesh.size > 1:
                out.append(mesh)
        for value in eqn.params.values():
            for sub in _sub_jaxprs(value):
                _collect_meshes(sub, out)


def constraint_meshes(closed: ClosedJaxpr) -> list[Mesh | AbstractMesh]:
    """The meshes (of more than one device) of the sharding constraints in ``closed``.

    Args:
      closed: a program (its nested programs are searched too).

    Returns:
      One mesh per constraint, in program order (empty when none was ever made).

    Example:
      >>> from tessela_tracer import lax, make_jaxpr
      >>> constraint_meshes(make_jaxpr(lax.neg)(1.0))
      []
    """
    out: list[Mesh | AbstractMesh] = []
    if constraints_bound[0]:
        _collect_meshes(closed.jaxpr, out)
    return out


def eager_backend(
    prim: Primitive, args: Sequence[ArrayLike], params: dict[str, Any], /
) -> Array | Sequence[Array]:
    """The eager backend once sharded arrays exist: :func:`apply_sharded` when one is an operand.

    A ``jit_p`` without sharded operands whose program constrains values over
    a mesh of devices runs over that mesh (its operands replicated).

    Args:
      prim: the primitive.
      args: its operands.
      params: its parameters.

    Returns:
      What :func:`apply_sharded` or the single-device backend returns.
    """
    for a in args:
        if type(a) is ShardedArray:
            return apply_sharded(prim, args, params)
    if prim is P.jit_p and constraints_bound[0]:
        meshes = [m for m in constraint_meshes(params["jaxpr"]) if isinstance(m, Mesh)]
        if meshes:
            specs = [PartitionSpec()] * len(args)
            exe = compile_jaxpr(params["jaxpr"], meshes[0], specs, name=params["name"])
            return exe(args, specs)
    out: Array | Sequence[Array] = apply_primitive(prim, args, params)
    return out


def _install() -> None:
    set_eager_backend(eager_backend, has_lowering)


_on_first.append(_install)
constraint_hooks.append(_install)
