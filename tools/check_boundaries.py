"""Import contracts for Tessela's package graph (see docs/architecture.md).

For every package under packages/ this checks, by reading the sources only:

1. its declared sibling dependencies are allowed by the package graph (its
   edges, or what they reach transitively);
2. every ``tessela_*`` module it imports belongs to itself or to a sibling it
   declares (a package never leans on what a dependency happens to pull in);
3. every third-party module it imports belongs to a declared dependency
   (runtime or an optional extra);
4. no product module imports ``jax`` (JAX is a test oracle only);
5. example plugins under examples/plugins import no private (``_name``)
   module of a Tessela package.

Usage: python tools/check_boundaries.py  (exit status 1 on any violation)
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The package graph of DESIGN.md: which siblings each distribution may
# declare. The umbrella may depend on every other package.
ALLOWED: dict[str, set[str]] = {
    "tessela-pytree": set(),
    "tessela-prng": set(),
    "tessela-tracer": {"tessela-pytree"},
    "tessela-batching": {"tessela-tracer"},
    "tessela-autodiff": {"tessela-tracer", "tessela-batching"},
    "tessela-lowering": {"tessela-tracer"},
    "tessela-numpy": {"tessela-tracer"},
}
UMBRELLA = "tessela"

# Distributions whose import name is not their normalised name.
IMPORT_NAMES: dict[str, set[str]] = {
    "attrs": {"attr", "attrs"},
    "typing-extensions": {"typing_extensions"},
    "array-api-strict": {"array_api_strict"},
    "ml-dtypes": {"ml_dtypes"},
    "hypothesis": {"hypothesis", "_hypothesis_pytestplugin"},
}
FORBIDDEN = {"jax"}


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _req_name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match, requirement
    return _normalize(match.group(1))


def _reachable(dist: str) -> set[str]:
    """Siblings ``dist`` may declare: its graph edges and what they reach.

    A package may name a transitive dependency directly (the batching package
    importing tessela_pytree, which the tracer already brings), but never a
    package outside its part of the graph.
    """
    seen: set[str] = set()
    todo = list(ALLOWED[dist])
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(ALLOWED.get(name, ()))
    return seen


def _import_names(dist: str) -> set[str]:
    return IMPORT_NAMES.get(dist, {dist.replace("-", "_")})


def _imported_modules(path: Path) -> set[tuple[str, int]]:
    """(dotted module, line) of every absolute import in ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[tuple[str, int]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add((node.module, node.lineno))
            found.update((f"{node.module}.{a.name}", node.lineno) for a in node.names)
    return found


def _imports(path: Path) -> set[tuple[str, int]]:
    return {(name.split(".")[0], line) for name, line in _imported_modules(path)}


def _check_plugins(errors: list[str]) -> int:
    """Example plugins may use Tessela's public modules only."""
    plugins = sorted((ROOT / "examples" / "plugins").glob("*/src"))
    for src in plugins:
        own = {p.name for p in src.iterdir() if p.is_dir()}
        for source in sorted(src.rglob("*.py")):
            for name, line in sorted(_imported_modules(source)):
                parts = name.split(".")
                if parts[0] in own or not parts[0].startswith("tessela"):
                    continue
                if parts[0] in FORBIDDEN or any(p.startswith("_") for p in parts[1:]):
                    errors.append(
                        f"{source.relative_to(ROOT)}:{line}: plugin imports private {name!r}; "
                        "use the public API (tessela_tracer.extend, the register_* functions)"
                    )
    return len(plugins)


def main() -> int:
    packages = {}
    for pyproject in sorted((ROOT / "packages").glob("*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text())["project"]
        packages[_normalize(project["name"])] = (pyproject.parent, project)
    sibling_import = {d: _import_names(d).pop() for d in packages}
    errors: list[str] = []
    for dist, (folder, project) in packages.items():
        runtime = {_req_name(r) for r in project.get("dependencies", [])}
        optional = {
            _req_name(r) for reqs in project.get("optional-dependencies", {}).values() for r in reqs
        }
        if dist == UMBRELLA:
            allowed_siblings = set(packages) - {UMBRELLA}
        elif dist in ALLOWED:
            allowed_siblings = _reachable(dist)
        else:
            errors.append(f"{folder}: {dist} is not in the package graph; add it to ALLOWED")
            continue
        declared_siblings = runtime & set(packages)
        for bad in sorted(declared_siblings - allowed_siblings):
            errors.append(f"{folder}/pyproject.toml: {dist} may not depend on {bad}")
        own = sibling_import[dist]
        sibling_ok = {sibling_import[d] for d in declared_siblings} | {own}
        third_ok = set().union(*(_import_names(d) for d in (runtime | optional) - set(packages)))
        stdlib = set(sys.stdlib_module_names) | {"__future__"}
        for source in sorted((folder / "src").rglob("*.py")):
            rel = source.relative_to(ROOT)
            for name, line in sorted(_imports(source)):
                where = f"{rel}:{line}"
                if name in FORBIDDEN:
                    errors.append(f"{where}: product code imports {name!r} (oracle only)")
                elif name.startswith("tessela"):
                    if name not in sibling_ok:
                        errors.append(
                            f"{where}: imports {name!r}, which {dist} does not declare; "
                            "declare the sibling in pyproject.toml if the graph allows it"
                        )
                elif name not in stdlib and name not in third_ok:
                    errors.append(f"{where}: imports {name!r}, not a declared dependency of {dist}")
    n_plugins = _check_plugins(errors)
    for error in errors:
        print(error, file=sys.stderr)
    print(f"checked {len(packages)} packages and {n_plugins} plugins: {len(errors)} violations")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
