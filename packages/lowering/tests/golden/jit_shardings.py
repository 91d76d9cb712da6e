"""Output shardings and module annotations of jit with shardings, as JAX 0.10.2 gives them.

Run with JAX 0.10.2 (``XLA_FLAGS=--xla_force_host_platform_device_count=8
python jit_shardings.py jax > jit_shardings.txt``) it prints, for each case,
the mesh, the ``sdy.sharding`` (and ``tf.aliasing_output``) annotations of
``@main``'s arguments and results, the ``sdy.sharding_constraint`` ops of
``jit(f).lower(*args).as_text()``, the spec of each output of the call, and
whether each output equals its single-device (NumPy) value.
``tests/test_jit_shardings.py`` runs it with ``tessela`` (tessela-lowering,
tessela-tracer and tessela-numpy alone; 8 devices) and compares; the cases
under ``grad`` and ``vmap`` are the umbrella's
(``packages/umbrella/tests/golden/jit_shardings_transforms.py``). For ``reshard`` only the results are compared: JAX 0.10.2 types
arrays over ``Explicit`` axes with their shardings and annotates every
value of such programs, which Tessela's abstract values do not carry.
The cases after the errors are ``auto_axes``/``explicit_axes`` (the axis
types of the abstract mesh inside the function, each result's spec and its
mesh's axis types) and jit with shardings over ``Explicit`` axes (the
reported input and output specs).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

if sys.argv[1] == "jax":
    import jax
    from jax import lax
    from jax.sharding import AxisType, NamedSharding, auto_axes, explicit_axes, get_abstract_mesh
    from jax.sharding import PartitionSpec as P

    jit, devices, device_put = jax.jit, jax.devices, jax.device_put
    make_mesh, set_mesh, reshard = jax.make_mesh, jax.set_mesh, jax.sharding.reshard
    tree_leaves = jax.tree_util.tree_leaves
else:
    import tessela_lowering as tl
    import tessela_numpy  # noqa: F401  (the operators and methods of arrays)
    from tessela_lowering.sharding import (
        AxisType,
        NamedSharding,
        auto_axes,
        explicit_axes,
        get_abstract_mesh,
        make_mesh,
        reshard,
        set_mesh,
    )
    from tessela_lowering.sharding import PartitionSpec as P
    from tessela_pytree import tree_leaves
    from tessela_tracer import lax

    jit, devices, device_put = tl.jit, tl.devices, tl.device_put

SHARDING = re.compile(r"#sdy\.sharding<[^>]*>")
ALIAS = re.compile(r"tf\.aliasing_output = \d+")
CONSTRAINT = re.compile(r"sdy\.sharding_constraint %[\w#]+ (<[^>]*>)")
MESH = re.compile(r"sdy\.mesh @mesh = <\[[^\]]*\]>")


def annotations(text: str) -> list[str]:
    """The mesh, @main's argument/result annotations and the constraint ops of a module."""
    out = [m.group(0) for m in MESH.finditer(text)]
    main = next(line for line in text.splitlines() if "func.func public @main" in line)
    args, _, results = main.partition(") -> ")
    for i, part in enumerate(re.split(r"%arg\d+: ", args)[1:]):
        found = SHARDING.findall(part) + ALIAS.findall(part)
        out.append(f"arg{i}: {' '.join(found) or '-'}")
    for i, part in enumerate(results.split("tensor<")[1:]):
        out.append(f"result{i}: {' '.join(SHARDING.findall(part)) or '-'}")
    out += [f"constraint {m.group(1)}" for m in CONSTRAINT.finditer(text)]
    return out


def report(name: str, f: Callable[..., Any], args: tuple[Any, ...], want: list[np.ndarray],
           *, annotate: bool = True) -> None:  # fmt: skip
    print(f"# {name}")
    if annotate:
        for line in annotations(f.lower(*args).as_text()):
            print(line)
    outs = tree_leaves(f(*args))
    for out, expected in zip(outs, want, strict=True):
        print(f"out {out.sharding.spec} ok={np.allclose(np.asarray(out), expected)}")


devs = devices()
auto = make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
explicit = make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
x = np.arange(32, dtype=np.float32).reshape(8, 4)
y = np.linspace(-1.0, 1.0, 32, dtype=np.float32).reshape(8, 4)
s_xy = NamedSharding(auto, P("x", "y"))
s_x = NamedSharding(auto, P("x"))

report(
    "in and out shardings",
    jit(lambda a, b: a * 2 + b, in_shardings=(s_xy, None),
           out_shardings=NamedSharding(auto, P(None, "y"))),
    (x, y), [x * 2 + y],
)  # fmt: skip
with set_mesh(auto):
    report(
        "partition specs under set_mesh, two outputs",
        jit(lambda a, b: (a + b, a * b), in_shardings=(P("x"), None), out_shardings=None),
        (x, y), [x + y, x * y],
    )  # fmt: skip
    report(
        "out_shardings prefix over a dict",
        jit(lambda a: {"s": a.sum(0), "t": a.T}, out_shardings={"s": P(), "t": P("y", "x")}),
        (x,), [x.sum(0), x.T],
    )  # fmt: skip
    report(
        "with_sharding_constraint, an unconstrained dimension",
        jit(lambda a: lax.with_sharding_constraint(a * 2, P("x", P.UNCONSTRAINED)) + 1),
        (x,), [x * 2 + 1],
    )  # fmt: skip
report(
    "with_sharding_constraint by NamedSharding, then a reduction",
    jit(lambda a: lax.with_sharding_constraint(a + 1, NamedSharding(auto, P(None, "y"))).sum(0)),
    (x,), [(x + 1).sum(0)],
)  # fmt: skip
committed = device_put(x, s_x)
report(
    "a committed argument keeps its sharding",
    jit(lambda a, b: a - b, in_shardings=(None, s_x)),
    (committed, y), [x - y],
)  # fmt: skip
report(
    "donation with shardings",
    jit(lambda a: a * 3, in_shardings=s_x, out_shardings=s_x, donate_argnums=0),
    (device_put(x, s_x),), [x * 3],
)  # fmt: skip
donated = device_put(x, s_x)
jit(lambda a: a * 3, in_shardings=s_x, out_shardings=s_x, donate_argnums=0)(donated)
print(f"donated argument deleted: {donated.is_deleted()}")
report(
    "reshard eagerly",
    lambda a: reshard(a, NamedSharding(explicit, P("x"))),
    (x,), [x], annotate=False,
)  # fmt: skip
with set_mesh(explicit):
    report(
        "reshard under jit",
        jit(lambda a: reshard(a * 2, P(None, "y"))),
        (x,), [x * 2], annotate=False,
    )  # fmt: skip
for what, call in [
    ("committed argument elsewhere", lambda: jit(lambda a: a, in_shardings=s_xy)(committed)),
    ("spec without a mesh", lambda: jit(lambda a: a, in_shardings=P("x"))(x)),
    ("kwargs", lambda: jit(lambda a: a, in_shardings=s_x)(a=x)),
    ("bad leaf", lambda: jit(lambda a: a, in_shardings=3)(x)),
    ("too few", lambda: jit(lambda a, b: a, in_shardings=(s_x,))(x, x)),
    ("indivisible", lambda: jit(lambda a: a, in_shardings=s_x)(np.ones(6, np.float32))),
    ("reshard over Auto", lambda: reshard(x, s_x)),
    ("constraint without a mesh", lambda: lax.with_sharding_constraint(x, P("x"))),
]:
    try:
        call()
        print(f"# {what}: no error")
    except Exception as err:
        print(f"# {what}")
        print(f"{type(err).__name__}: {str(err).splitlines()[0].split(' This error occurs')[0]}")


inside: list[str] = []


def twice_plus_one(a: Any) -> Any:
    inside.append(f"inside {get_abstract_mesh().axis_types}")
    return a * 2 + 1


def report_typed(name: str, f: Callable[..., Any], args: tuple[Any, ...], want: list[np.ndarray],
                 *, constraints: bool = False) -> None:  # fmt: skip
    """Inside axis types, constraint ops (when asked), each result's spec and mesh axis types."""
    print(f"# {name}")
    inside.clear()
    if constraints:
        for m in CONSTRAINT.finditer(f.lower(*args).as_text()):
            print(f"constraint {m.group(1)}")
    outs = tree_leaves(f(*args))
    print(inside[0] if inside else "inside -")
    for out, expected in zip(outs, want, strict=True):
        ok = np.allclose(np.asarray(out), expected)
        print(f"out {out.sharding.spec} {out.sharding.mesh.axis_types} ok={ok}")


xe = device_put(x, NamedSharding(explicit, P("x", "y")))
with set_mesh(explicit):
    report_typed("auto_axes eagerly", auto_axes(twice_plus_one, out_sharding=P("x")), (xe,),
                 [x * 2 + 1])  # fmt: skip
    report_typed("auto_axes under jit", jit(auto_axes(twice_plus_one, out_sharding=P(None, "y"))),
                 (xe,), [x * 2 + 1], constraints=True)  # fmt: skip
    report_typed("auto_axes of a reduction, out_sharding at the call",
                 lambda a: auto_axes(lambda b: b.sum(0))(a, out_sharding=P("y")), (xe,),
                 [x.sum(0)])  # fmt: skip
    report_typed("auto_axes over one axis",
                 auto_axes(twice_plus_one, axes="x", out_sharding=P("x")), (xe,),
                 [x * 2 + 1])  # fmt: skip
    report_typed("auto_axes as a decorator factory, two outputs",
                 auto_axes(out_sharding=(P("x"), P()))(lambda a: (twice_plus_one(a), a.sum())),
                 (xe,), [x * 2 + 1, x.sum()])  # fmt: skip
report_typed("auto_axes with a NamedSharding and no mesh in context",
             auto_axes(twice_plus_one, out_sharding=NamedSharding(explicit, P("x"))), (x,),
             [x * 2 + 1])  # fmt: skip
with set_mesh(auto):
    report_typed("explicit_axes eagerly", explicit_axes(twice_plus_one, in_sharding=P("x", "y")),
                 (x,), [x * 2 + 1])  # fmt: skip
    report_typed("explicit_axes under jit",
                 jit(explicit_axes(twice_plus_one, in_sharding=P("x", "y"))), (x,),
                 [x * 2 + 1])  # fmt: skip
    report_typed("explicit_axes over one axis, a reduction",
                 jit(explicit_axes(lambda a: a.sum(0), axes="y", in_sharding=P(None, "y"))),
                 (x,), [x.sum(0)])  # fmt: skip
s_ex = NamedSharding(explicit, P("x"))
committed_ex = device_put(x, s_ex)
for name, f in [
    ("a committed argument over Explicit axes", jit(lambda a: a * 2, in_shardings=s_ex)),
    ("out_shardings over Explicit axes", jit(lambda a: a * 2, in_shardings=s_ex, out_shardings=s_ex)),
    ("a reduction over Explicit axes", jit(lambda a: a.sum(1), in_shardings=s_ex)),
]:  # fmt: skip
    compiled = f.lower(committed_ex).compile()
    print(f"# {name}")
    print(f"input {compiled.input_shardings[0][0].spec} output {compiled.output_shardings.spec}")
    out = f(committed_ex)
    ok = np.allclose(np.asarray(out), x.sum(1) if out.ndim == 1 else x * 2)
    print(f"out {out.sharding.spec} {out.sharding.mesh.axis_types} ok={ok}")
MESH_REPR = re.compile(r"AbstractMesh\(.*?axis_types=\([^)]*\)[^)]*\)")
for what, context, call in [
    ("explicit_axes without a mesh", None,
     lambda: explicit_axes(twice_plus_one, in_sharding=P("x"))(x)),
    ("auto_axes without out_sharding", explicit, lambda: auto_axes(twice_plus_one)(xe)),
    ("auto_axes over another mesh", explicit, lambda: auto_axes(
        twice_plus_one, out_sharding=NamedSharding(make_mesh((8,), ("z",)), P("z")))(xe)),
]:  # fmt: skip
    try:
        if context is None:
            call()
        else:
            with set_mesh(context):
                call()
        print(f"# {what}: no error")
    except Exception as err:
        print(f"# {what}")
        print(f"{type(err).__name__}: {MESH_REPR.sub('<mesh>', str(err).splitlines()[0])}")
