"""Write flag_names.json: every config flag's aliases and environment variables.

Run in the Tessela environment (every package installed): ``python
generate_flag_names.py`` imports each package that defines flags and records,
for every flag, the aliases ``config.update`` accepts and the environment
variables that ``Config.define`` consulted, as ``define`` resolved them.
``test_flag_names.py`` checks the flags against this file, so that a change in
how ``define`` names flags keeps every flag's names.
"""

from __future__ import annotations

import importlib
import json
import pathlib
import sys
from types import FrameType
from typing import Any

MODULES = ("tessela_tracer", "tessela_lowering", "tessela_lowering.distributed", "tessela")
"""The packages (in import order) whose flags are recorded, where installed."""


def record(modules: tuple[str, ...] = MODULES) -> dict[str, dict[str, list[str]]]:
    """Import ``modules`` (those installed) and return each flag's aliases and variables.

    Args:
      modules: the modules to import, in order.

    Returns:
      ``{name: {"aliases": [...], "env": [...]}}`` for every flag defined.
    """
    env_of: dict[str, list[str]] = {}

    def watch(frame: FrameType, event: str, arg: Any) -> None:
        # The values ``define`` had when it returned: ``env`` as it consulted it.
        if event == "return" and frame.f_code.co_name == "define":
            names = frame.f_locals
            if "env" in names and isinstance(names.get("name"), str):
                env_of[names["name"]] = list(names["env"])

    sys.setprofile(watch)
    try:
        for module in modules:
            try:
                importlib.import_module(module)
            except ImportError:
                continue
    finally:
        sys.setprofile(None)
    config = importlib.import_module("tessela_tracer").config
    aliases_of: dict[str, list[str]] = {name: [] for name in config.flag_names()}
    for alias, name in config._aliases.items():
        if alias != name:
            aliases_of[name].append(alias)
    return {name: {"aliases": aliases_of[name], "env": env_of[name]} for name in sorted(aliases_of)}


def main() -> None:
    out = pathlib.Path(__file__).with_name("flag_names.json")
    out.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
