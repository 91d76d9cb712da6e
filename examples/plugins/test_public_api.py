"""The example plugins beside this file use only public Tessela names.

``nox -s plugins`` runs this file in each plugin's session, with
``TESSELA_PLUGIN`` naming the plugin to read (all of them when unset).

Each plugin is imported from its source folder, and its sources (``src`` and
``tests``) are read with ``ast``: no import of a private module of a Tessela
package (``tessela_tracer._core``), no import of an underscore name from one
(``from tessela_tracer import _x``), no underscore attribute of a Tessela
module or object (``extend._x``, ``tracer._trace``, ``getattr(t, "_trace")``).
An underscore attribute counts as Tessela's when a Tessela class or module
defines it (``_trace``, ``_aval``, ...) or when it is read off a name that a
Tessela import bound.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import tessela  # noqa: F401  (installs the XLA eager backend)
from tessela_tracer.extend import Primitive, register_abstract_eval

PLUGINS = Path(__file__).resolve().parent
TESSELA_PACKAGES = (
    "tessela",
    "tessela_autodiff",
    "tessela_batching",
    "tessela_lowering",
    "tessela_numpy",
    "tessela_prng",
    "tessela_pytree",
    "tessela_tracer",
)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_tessela(module: str) -> bool:
    return module.split(".")[0] in TESSELA_PACKAGES


def _sources(package: str) -> Iterator[Path]:
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations, package
    for location in spec.submodule_search_locations:
        yield from sorted(Path(location).rglob("*.py"))


def _defined_private_attributes(tree: ast.AST) -> set[str]:
    """Underscore names a module's classes define: ``self._x = ...``, slots, class attributes."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.add(stmt.name)
                targets = stmt.targets if isinstance(stmt, ast.Assign) else []
                if isinstance(stmt, ast.AnnAssign):
                    targets = [stmt.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        names.add(t.id)
                        if t.id == "__slots__" and isinstance(stmt, ast.Assign):
                            names.update(
                                c.value
                                for c in ast.walk(stmt.value)
                                if isinstance(c, ast.Constant) and isinstance(c.value, str)
                            )
    return {n for n in names if _private(n)}


def _tessela_private_attributes() -> frozenset[str]:
    names: set[str] = set()
    for package in TESSELA_PACKAGES:
        for path in _sources(package):
            names |= _defined_private_attributes(ast.parse(path.read_text(), str(path)))
    return frozenset(names)


TESSELA_PRIVATE = _tessela_private_attributes()


def violations(source: str, filename: str = "<plugin>") -> list[str]:
    """Every touch of a private Tessela name in ``source``, as ``file:line: what``."""
    tree = ast.parse(source, filename)
    bound: set[str] = set()  # local names bound by a Tessela import
    found: list[str] = []

    def report(node: ast.AST, what: str) -> None:
        found.append(f"{filename}:{getattr(node, 'lineno', 0)}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_tessela(alias.name):
                    if any(_private(part) for part in alias.name.split(".")):
                        report(node, f"imports private module {alias.name}")
                    bound.add((alias.asname or alias.name).split(".")[0])
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and node.module
            and _is_tessela(node.module)
        ):
            if any(_private(part) for part in node.module.split(".")):
                report(node, f"imports from private module {node.module}")
            for alias in node.names:
                if _private(alias.name):
                    report(node, f"imports private name {alias.name} from {node.module}")
                bound.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in bound:
                report(node, f"reads private attribute {node.attr} of Tessela's {root.id}")
            elif node.attr in TESSELA_PRIVATE:
                report(node, f"touches {node.attr}, a private attribute of Tessela objects")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and node.args[1].value in TESSELA_PRIVATE
        ):
            report(node, f"{node.func.id} of {node.args[1].value}, a private Tessela attribute")
    return found


def _plugin_dirs() -> list[Path]:
    chosen = os.environ.get("TESSELA_PLUGIN")
    found = sorted(p.parent for p in PLUGINS.glob("*/pyproject.toml"))
    return [p for p in found if chosen in (None, p.name)]


def _plugin_packages(plugin: Path) -> list[Path]:
    return sorted(p.parent for p in (plugin / "src").glob("*/__init__.py"))


# ----------------------------------------------------------------- the checker itself


def test_checker_flags_each_kind_of_private_use() -> None:
    bad = textwrap.dedent(
        """
        import tessela_tracer._core
        from tessela_lowering._hlo import lower
        from tessela_tracer import _errors
        from tessela_tracer import extend as ext
        from tessela_tracer.extend import Tracer

        class MyTracer(Tracer):
            def __init__(self, trace):
                self._trace = trace

        def f(t):
            return ext._secret, t._trace, getattr(t, "_trace"), Tracer._x
        """
    )
    found = violations(bad)
    for what in (
        "private module tessela_tracer._core",
        "private module tessela_lowering._hlo",
        "private name _errors",
        "private attribute _secret of Tessela's ext",
        "private attribute _x of Tessela's Tracer",
        "getattr of _trace",
    ):
        assert any(what in v for v in found), (what, found)
    assert sum("touches _trace" in v for v in found) == 2


def test_checker_accepts_public_use_and_the_plugins_own_privates() -> None:
    good = textwrap.dedent(
        """
        import tessela as tx
        from tessela_tracer.extend import Tracer, trace_of
        from my_plugin._rules import rule

        class MyTracer(Tracer):
            __slots__ = ("_lo_bound",)

            def __init__(self, trace, lo):
                super().__init__(trace)
                self._lo_bound = lo

        def f(t):
            return trace_of(t), t._lo_bound, tx.__version__, rule
        """
    )
    assert violations(good) == []


# ----------------------------------------------------------------- the plugins


def test_there_are_example_plugins() -> None:
    names = {p.parent.name for p in PLUGINS.glob("*/pyproject.toml")}
    assert {"interval", "logcosh"} <= names
    assert _plugin_dirs(), f"TESSELA_PLUGIN={os.environ.get('TESSELA_PLUGIN')!r} names no plugin"


@pytest.mark.parametrize("plugin", [p.name for p in _plugin_dirs()])
def test_plugin_touches_no_private_tessela_name(plugin: str) -> None:
    root = PLUGINS / plugin
    files = sorted((root / "src").rglob("*.py")) + sorted((root / "tests").rglob("*.py"))
    assert files
    found = [
        v for path in files for v in violations(path.read_text(), str(path.relative_to(PLUGINS)))
    ]
    assert found == []


@pytest.mark.parametrize("plugin", [p.name for p in _plugin_dirs()])
def test_plugin_imports_and_exports_what_it_declares(
    plugin: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = PLUGINS / plugin
    monkeypatch.syspath_prepend(str(root / "src"))
    packages = _plugin_packages(root)
    assert packages
    for package in packages:
        module = importlib.import_module(package.name)
        assert Path(module.__file__ or "").resolve().is_relative_to(root.resolve())
        for name in getattr(module, "__all__", ()):
            assert hasattr(module, name), f"{package.name}.{name}"
        assert not any(_private(n) for n in getattr(module, "__all__", ()))
    assert sys.modules[packages[0].name] is not None


# ----------------------------------------------------------------- a plugin primitive, eagerly


def test_a_plugin_primitive_without_implementation_names_the_register_fix() -> None:
    # With the backend installed, installing it is not the fix: a register_* call is.
    p = Primitive("plugin_without_impl")
    register_abstract_eval(p, lambda x: x)
    with pytest.raises(NotImplementedError) as info:
        p.bind(1.0)
    msg = str(info.value)
    assert "'plugin_without_impl'" in msg and "Install" not in msg
    assert "register_impl(prim, rule)" in msg and "register_lowering(prim, rule)" in msg
