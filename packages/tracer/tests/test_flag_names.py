"""Every config flag keeps the aliases and environment variables it had.

``golden/flag_names.json`` was written by ``golden/generate_flag_names.py``
before ``Config.define`` derived the names from a rule, with every package
installed; each flag defined here must still have exactly those names.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys
from typing import Any

import pytest
from generate_flag_names import MODULES
from tessela_tracer import Config, config
from tessela_tracer._config import derived_names

TABLE: dict[str, dict[str, list[str]]] = json.loads(
    (pathlib.Path(__file__).parent / "golden" / "flag_names.json").read_text()
)

TRACER_FLAGS = (
    "jax_enable_x64", "jax_numpy_rank_promotion", "jax_numpy_dtype_promotion",
    "jax_check_tracer_leaks", "jax_no_tracing", "jax_enable_checks", "jax_allow_f16_reductions",
    "jax_default_matmul_precision", "jax_traceback_filtering", "jax_default_prng_impl",
    "jax_num_cpu_devices", "jax_no_execution",
)  # fmt: skip


def _names(cfg: Config, name: str) -> dict[str, list[str]]:
    state = cfg.state(name)
    return {"aliases": list(state.aliases), "env": list(state.env)}


def test_flags_defined_here_keep_their_names() -> None:
    defined = config.flag_names()
    assert set(TRACER_FLAGS) <= set(defined)
    assert set(defined) <= set(TABLE)
    for name in defined:
        assert _names(config, name) == TABLE[name], name
        # ``update`` and attribute access accept exactly the recorded aliases.
        accepted = sorted(a for a, n in config._aliases.items() if n == name and a != name)
        assert accepted == sorted(TABLE[name]["aliases"]), name


_SCRIPT = """
import importlib, importlib.util, json, sys
for module in sys.argv[1:]:
    if importlib.util.find_spec(module.split(".")[0]) is not None:
        importlib.import_module(module)
from tessela_tracer import config
out = {}
for name in config.flag_names():
    state = config.state(name)
    out[name] = {"aliases": list(state.aliases), "env": list(state.env), "value": state.value}
print(json.dumps(out))
"""


def test_every_installed_packages_flags_keep_their_names() -> None:
    # Variables of names no flag reads any more must change nothing: a flag
    # without variables that read JAX_ENABLE_CUSTOM_PRNG=1 would raise here.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "TESSELA_"))}
    env |= {"JAX_NO_TRACING": "1", "JAX_ENABLE_CUSTOM_PRNG": "1", "JAX_NO_EXECUTION": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, *MODULES],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    got: dict[str, dict[str, Any]] = json.loads(done.stdout)
    assert got["jax_no_tracing"]["value"] is True  # read from its derived JAX_ variable
    assert got["jax_no_execution"]["value"] is False  # it reads no variable
    if importlib.util.find_spec("tessela") is not None:
        assert set(got) == set(TABLE)  # every package installed: every flag
        assert got["jax_enable_custom_prng"]["value"] is False
    assert set(TRACER_FLAGS) <= set(got) <= set(TABLE)
    for name, names in got.items():
        assert {"aliases": names["aliases"], "env": names["env"]} == TABLE[name], name


def test_define_derives_names_unless_given() -> None:
    cfg = Config()
    cfg.define("jax_some_flag", 1)
    cfg.define("other_flag", 2)
    cfg.define("jax_no_vars", 3, env=())
    cfg.define("jax_by_hand", 4, aliases=("by_hand",))
    cfg.define("jax_both", 5, aliases=("both",), env=("BOTH",))
    assert _names(cfg, "jax_some_flag") == {
        "aliases": ["tessela_some_flag"],
        "env": ["TESSELA_SOME_FLAG", "JAX_SOME_FLAG"],
    }
    assert _names(cfg, "other_flag") == {
        "aliases": ["tessela_other_flag"],
        "env": ["TESSELA_OTHER_FLAG", "JAX_OTHER_FLAG"],
    }
    assert _names(cfg, "jax_no_vars") == {"aliases": ["tessela_no_vars"], "env": []}
    assert _names(cfg, "jax_by_hand") == {"aliases": ["by_hand"], "env": []}
    assert _names(cfg, "jax_both") == {"aliases": ["both"], "env": ["BOTH"]}
    assert cfg.tessela_some_flag == 1
    with pytest.raises(AttributeError, match="Unrecognized config option"):
        cfg.read("tessela_by_hand")


def test_rule_names_most_flags() -> None:
    # The rule gives every flag's names except the few defined with their own.
    ruled = [n for n, names in TABLE.items() if derived_names(n) == (
        tuple(names["aliases"]), tuple(names["env"]))]  # fmt: skip
    assert len(ruled) > len(TABLE) // 2
    assert "jax_enable_x64" not in ruled  # also the bare ``enable_x64``
    assert derived_names("jax_enable_x64")[1] == tuple(TABLE["jax_enable_x64"]["env"])
