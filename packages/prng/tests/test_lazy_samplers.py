"""``import tessela_prng`` leaves the sampler modules unimported until a sampler is read."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest
import tessela_prng as tr

SAMPLER_MODULES = (
    "tessela_prng._binomial",
    "tessela_prng._continuous",
    "tessela_prng._discrete",
    "tessela_prng._gamma",
    "tessela_prng._sampling",
)


def test_samplers_load_on_first_use_in_a_fresh_interpreter() -> None:
    code = (
        "import json, sys\n"
        "import tessela_prng as r\n"
        f"mods = {list(SAMPLER_MODULES)!r}\n"
        "after_import = [m for m in mods if m in sys.modules]\n"
        "k = r.key(0)\n"
        "after_key = [m for m in mods if m in sys.modules]\n"
        "x = r.normal(k, (3,))\n"
        "after_normal = [m for m in mods if m in sys.modules]\n"
        "from tessela_prng import gamma\n"
        "print(json.dumps([after_import, after_key, after_normal, x.shape[0],\n"
        "                  gamma.__module__, 'gamma' in vars(r)]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    after_import, after_key, after_normal, size, gamma_module, bound = json.loads(
        out.strip().splitlines()[-1]
    )
    assert after_import == []
    assert after_key == []
    assert "tessela_prng._continuous" in after_normal
    assert "tessela_prng._gamma" not in after_normal
    assert (size, gamma_module, bound) == (3, "tessela_prng._gamma", True)


@pytest.mark.parametrize("name", tr.__all__)
def test_every_public_name_resolves_and_is_listed(name: str) -> None:
    value = getattr(tr, name)
    assert value is not None
    assert name in dir(tr)
    # Read once, a lazy name is bound on the package like an eager one.
    assert vars(tr)[name] is value


def test_lazy_samplers_are_the_modules_functions() -> None:
    from tessela_prng import _continuous, _discrete, _gamma

    assert tr.normal is _continuous.normal
    assert tr.randint is _discrete.randint
    assert tr.t is _gamma.t


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'no_such_sampler'"):
        _ = tr.no_such_sampler  # type: ignore[attr-defined]


@pytest.mark.parametrize("module", sorted(tr._SAMPLER_MODULES))
def test_every_sampler_a_module_exports_is_in_the_lazy_table(module: str) -> None:
    # The table repeats each module's ``__all__`` (reading them would import
    # the modules); a name added to a module but not to the table fails here.
    exported = importlib.import_module(f"tessela_prng.{module}").__all__
    assert sorted(exported) == sorted(tr._SAMPLER_MODULES[module])
    assert set(exported) <= set(tr.__all__)
