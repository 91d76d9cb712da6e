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
    "tessela.ops",
    "tessela.dlpack",
    "tessela.version",
    "tessela_numpy",
    "tessela_numpy.linalg",
    "tessela_numpy.fft",
    "tessela._jax_alias",
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


def test_lazy_names_are_listed_and_unknown_names_raise() -> None:
    import tessela

    names = dir(tessela)
    for name in ("nn", "scipy", "random", "numpy", "jit", "grad", "install_jax_alias"):
        assert name in names
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        _ = tessela.no_such_name  # type: ignore[attr-defined]
    assert tessela.stages.__name__ == "tessela.stages"
