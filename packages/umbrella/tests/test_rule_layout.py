"""The family layout: every rule of a primitive lives in its family's file.

Every primitive is defined in ``tessela_tracer/_prims_<family>.py`` and named in
``tessela_tracer.primitives``. Autodiff, batching and lowering each have
exactly one ``_rules_<family>.py`` per family, and each rule is registered, at
import, from the file of its primitive's family. A fresh interpreter records,
for every registration call, the source file of the module-level statement
that made it (helpers such as ``defvectorized`` count for the file that calls
them).
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest
import tessela_autodiff
import tessela_batching
import tessela_lowering
import tessela_tracer
import tessela_tracer.primitives as P
from tessela_tracer import Primitive

# The registration functions of each table, and the package that owns them.
_RECORDER = r"""
import json, os, sys

KINDS = {
    "register_abstract_eval": "abstract_eval",
    "register_jvp": "jvp",
    "register_transpose": "transpose",
    "register_partial_eval": "partial_eval",
    "register_batching": "batching",
    "register_lowering": "lowering",
    "register_impl": "impl",
}
seen = []


def profile(frame, event, arg):
    if event != "call":
        return
    kind = KINDS.get(frame.f_code.co_name)
    if kind is None or "prim" not in frame.f_locals:
        return
    caller = frame.f_back
    while caller is not None and caller.f_code.co_name != "<module>":
        caller = caller.f_back
    if caller is None:
        return
    seen.append((kind, frame.f_locals["prim"].name, caller.f_code.co_filename))


sys.setprofile(profile)
import tessela  # noqa: E402,F401

sys.setprofile(None)
print(json.dumps(seen))
"""

PACKAGES = {
    "autodiff": tessela_autodiff,
    "batching": tessela_batching,
    "lowering": tessela_lowering,
}
# Which tables each package fills.
TABLES = {
    "autodiff": {"jvp", "transpose", "partial_eval"},
    "batching": {"batching"},
    "lowering": {"lowering"},
}


def _catalog() -> dict[str, Primitive]:
    return {k: v for k, v in vars(P).items() if k.endswith("_p") and isinstance(v, Primitive)}


@pytest.fixture(scope="module")
def registrations() -> list[tuple[str, str, str]]:
    out = subprocess.run(
        [sys.executable, "-c", _RECORDER], capture_output=True, text=True, check=True
    )
    return [tuple(r) for r in json.loads(out.stdout.strip().splitlines()[-1])]


def _rule_files(pkg: str) -> set[str]:
    src = pathlib.Path(PACKAGES[pkg].__file__).parent
    return {p.stem.removeprefix("_rules_") for p in src.glob("_rules_*.py")}


def _tracer_families() -> set[str]:
    src = pathlib.Path(tessela_tracer.__file__).parent
    return {p.stem.removeprefix("_prims_") for p in src.glob("_prims_*.py")}


def _families(registrations: list[tuple[str, str, str]]) -> dict[str, str]:
    """Each primitive's family: the tracer's ``_prims_<family>.py`` that gives its abstract eval."""
    src = str(pathlib.Path(tessela_tracer.__file__).parent)
    family: dict[str, str] = {}
    for kind, name, filename in registrations:
        path = pathlib.Path(filename)
        if kind == "abstract_eval" and filename.startswith(src) and path.stem.startswith("_prims_"):
            family.setdefault(name, path.stem.removeprefix("_prims_"))
    return family


def test_every_primitive_of_the_catalog_is_defined_in_one_family_file(registrations) -> None:
    src = str(pathlib.Path(tessela_tracer.__file__).parent)
    places: dict[str, set[str]] = {}
    for kind, name, filename in registrations:
        if kind == "abstract_eval":
            places.setdefault(name, set()).add(filename)
    wrong = sorted(
        (p.name, sorted(places.get(p.name, ())))
        for p in _catalog().values()
        if len(places.get(p.name, ())) != 1
        or not all(
            f.startswith(src) and pathlib.Path(f).stem.startswith("_prims_") for f in places[p.name]
        )
    )
    assert wrong == []


def test_the_catalog_names_every_primitive_the_packages_register(registrations) -> None:
    names = {p.name for p in _catalog().values()}
    # Primitives made inside docstring examples are not imported by `import tessela`.
    unknown = sorted({name for _, name, _ in registrations if name not in names})
    assert unknown == []


@pytest.mark.parametrize("pkg", sorted(PACKAGES))
def test_each_package_has_one_rule_file_per_family(pkg: str) -> None:
    assert _rule_files(pkg) == _tracer_families()


@pytest.mark.parametrize("pkg", sorted(PACKAGES))
def test_each_rule_is_registered_from_its_family_file(pkg: str, registrations) -> None:
    family = _families(registrations)
    root = str(pathlib.Path(PACKAGES[pkg].__file__).parent)
    misplaced = []
    for kind, name, filename in registrations:
        if kind not in TABLES[pkg] or name not in family:
            continue
        if not filename.startswith(root):
            misplaced.append((kind, name, filename))
        elif pathlib.Path(filename).name != f"_rules_{family[name]}.py":
            misplaced.append((kind, name, pathlib.Path(filename).name))
    assert misplaced == []


# Primitives without operands have nothing to batch or differentiate.
NO_OPERANDS = {"iota", "axis_index"}


@pytest.mark.parametrize(
    ("pkg", "kind", "exempt"),
    [
        ("batching", "batching", NO_OPERANDS),
        ("lowering", "lowering", set()),
        ("autodiff", "jvp", NO_OPERANDS | {"custom_lin"}),
    ],
)
def test_every_primitive_has_a_rule_where_one_is_needed(
    pkg: str, kind: str, exempt: set[str], registrations
) -> None:
    have = {name for k, name, _ in registrations if k == kind}
    missing = sorted(p.name for p in _catalog().values() if p.name not in have | exempt)
    assert missing == []
