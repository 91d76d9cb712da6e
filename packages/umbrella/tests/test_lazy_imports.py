"""``import tessela`` leaves the heavy submodules unimported until they are used."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Imported only when first used: each must be absent after a plain `import tessela`.
LAZY = (
    "tessela.numpy",
    "tessela.random",
    "tessela.nn",
    "tessela.scipy",
    "tessela.image",
    "tessela.profiler",
    "tessela.stages",
    "tessela.experimental",
    "tessela.flatten_util",
    "tessela.ad_checkpoint",
    "tessela.ops",
    "tessela.dlpack",
    "tessela.version",
    "tessela_numpy",
    "tessela_numpy.linalg",
    "tessela_numpy.fft",
    "tessela._jax_alias",
    "tessela.core",
    "tessela.custom_batching",
    "tessela.custom_derivatives",
    "tessela.debug",
    "tessela.dtypes",
    "tessela.errors",
    "tessela.lax",
    "tessela.monitoring",
    "tessela.sharding",
    "tessela.tree",
    "tessela.tree_util",
    "tessela.typing",
    "tessela._closure",
    "tessela._debug_sharding",
    "tessela._debugger",
    "tessela._lax_extra",
    "tessela._shard_map",
    "tessela._toplevel",
    "tessela_lowering.sharding",
    "tessela_lowering.spmd",
    "tessela_prng._binomial",
    "tessela_prng._continuous",
    "tessela_prng._discrete",
    "tessela_prng._gamma",
    "tessela_prng._sampling",
    "cmd",
    "pprint",
    "http.server",
    "importlib.abc",
    "importlib.metadata",
)


def _fresh(code: str) -> object:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_import_tessela_does_not_import_the_lazy_modules() -> None:
    # Modules the bare interpreter already has (site hooks may import some
    # standard-library ones) are not for `import tessela` to avoid.
    listing = f"print(json.dumps([m for m in {list(LAZY)!r} if m in sys.modules]))"
    before = _fresh("import json, sys\n" + listing)
    loaded = _fresh("import json, sys, tessela\n" + listing)
    assert isinstance(before, list) and isinstance(loaded, list)
    assert [m for m in loaded if m not in before] == []
    assert not any(m.startswith("tessela") for m in before)


def test_the_eager_api_is_there_without_the_lazy_modules() -> None:
    loaded = _fresh(
        "import json, sys, numpy as np, tessela as tx\n"
        "f = tx.jit(lambda x: (x * 2 + 1).sum())\n"
        "g = tx.grad(lambda x: (x ** 2).sum())(np.float32(3.0))\n"
        "print(json.dumps([float(f(np.ones(3))), float(g), 'tessela.scipy' in sys.modules]))"
    )
    assert loaded == [9.0, 6.0, False]


def test_prng_keys_are_registered_without_tessela_random() -> None:
    loaded = _fresh(
        "import json, sys, tessela, tessela_prng\n"
        "k = tessela.jit(lambda k: k)(tessela_prng.key(0))\n"
        "print(json.dumps([type(k).__name__, 'tessela.random' in sys.modules]))"
    )
    assert loaded == ["KeyArray", False]


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("import tessela; print(tessela.scipy.special.__name__)", "tessela.scipy.special"),
        ("from tessela import nn; print(nn.__name__, callable(nn.relu))", "tessela.nn True"),
        ("import tessela.random; print(tessela.random.__name__)", "tessela.random"),
        ("import tessela; print(tessela.random.key(0).shape)", "()"),
        ("import tessela; print(tessela.numpy.sum(tessela.numpy.ones(3)))", "3.0"),
        ("from tessela import install_jax_alias as f; print(f.__module__)", "tessela._jax_alias"),
        ("import tessela; print(tessela.JaxAliasError.__mro__[1].__name__)", "RuntimeError"),
        ("import tessela; print(tessela.pmap.__module__)", "tessela._pmap"),
    ],
)
def test_attribute_access_imports_the_submodule(code: str, expected: str) -> None:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == expected


# Each step of the script below reads one lazy name (or imports one lazy
# submodule) and records what it got and which of these modules it loaded.
_FIRST_USE_SCRIPT = """
import json, sys
import numpy as np
watched = ["tessela.debug", "tessela._debugger", "tessela.lax", "tessela.sharding",
           "tessela.dtypes", "tessela._toplevel", "tessela._closure", "tessela._shard_map",
           "tessela.tree_util", "tessela_prng._continuous"]
steps = []
def step(label, value):
    steps.append([label, value, [m for m in watched if m in sys.modules]])
import tessela
step("import", None)
import tessela.debug
step("import tessela.debug", tessela.debug.__name__)
f = tessela.jit(lambda x: (tessela.debug.print("x={x}", x=x), x * 2)[1])
step("debug.print under jit", float(f(np.float32(1.5))))
from tessela import debug
step("breakpoint", (debug is tessela.debug, debug.breakpoint.__module__))
step("lax", float(tessela.lax.add(1.0, 2.0)))
step("P", tessela.P is tessela.sharding.PartitionSpec)
step("float0", str(tessela.float0) == str(tessela.dtypes.float0))
step("disable_jit", tessela.disable_jit.__module__)
step("custom_gradient", tessela.custom_gradient.__module__)
step("shard_map", tessela.shard_map.__module__)
from tessela.tree_util import tree_leaves
step("tree_util", tree_leaves({"a": 1, "b": (2, 3)}))
step("random", tessela.random.uniform(tessela.random.key(0), (2,)).shape[0])
print(json.dumps(steps))
"""


def test_first_use_of_each_lazy_name_imports_only_its_module() -> None:
    steps = _fresh(_FIRST_USE_SCRIPT)
    assert isinstance(steps, list)
    got = {label: (value, loaded) for label, value, loaded in steps}
    assert got["import"] == (None, [])
    assert got["import tessela.debug"] == ("tessela.debug", ["tessela.debug"])
    value, loaded = got["debug.print under jit"]
    assert value == 3.0 and "tessela._debugger" not in loaded
    value, loaded = got["breakpoint"]
    assert value == [True, "tessela._debugger"] and "tessela._debugger" in loaded
    value, loaded = got["lax"]
    assert value == 3.0 and "tessela.lax" in loaded and "tessela.sharding" not in loaded
    assert got["P"][0] is True and "tessela.sharding" in got["P"][1]
    assert got["float0"][0] is True and "tessela.dtypes" in got["float0"][1]
    value, loaded = got["disable_jit"]
    assert value == "tessela._toplevel" and "tessela._closure" not in loaded
    assert got["custom_gradient"][0] == "tessela._closure"
    value, loaded = got["shard_map"]
    assert value == "tessela._shard_map" and "tessela.tree_util" not in loaded
    assert got["tree_util"][0] == [1, 2, 3]
    value, loaded = got["random"]
    assert value == 2 and "tessela_prng._continuous" in loaded


def test_lazy_names_are_listed_and_unknown_names_raise() -> None:
    import tessela

    names = dir(tessela)
    lazy = ("nn", "scipy", "random", "numpy", "install_jax_alias", "lax", "debug", "P")
    for name in ("jit", "grad", *lazy):
        assert name in names
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        _ = tessela.no_such_name  # type: ignore[attr-defined]
    assert tessela.stages.__name__ == "tessela.stages"
