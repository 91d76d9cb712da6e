"""Tessela's task runner.

Packages are discovered from ``packages/*/pyproject.toml``; a new package is
picked up by every session without edits here. ``nox`` with no arguments runs
everything CI runs. Sessions use the interpreter nox runs under.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
PACKAGES_DIR = ROOT / "packages"
# JAX is the oracle for golden data, conformance and benchmarks, never a
# dependency of a Tessela package.
ORACLE = ["jax==0.10.2", "jaxlib==0.10.2"]
# Package tests run on every core (one worker process each); a test needing a
# fresh process starts its own subprocess, so workers share no state. Each test
# module goes to one worker as a whole (``loadscope``): a golden comparison whose
# cases a module-scoped fixture or cache computes once is computed once.
XDIST = "pytest-xdist"
PARALLEL = ["-n", "auto", "--dist", "loadscope"]
# Test processes share one persistent compilation cache (under .nox/, so a
# fresh clone starts empty): a program one worker or session compiled, another
# loads (about 5 ms instead of 50-150 ms of XLA compilation).
TEST_ENV = {
    "JAX_COMPILATION_CACHE_DIR": str(ROOT / ".nox" / "_xla_cache"),
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
}

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = [
    "lint",
    "boundaries",
    "typecheck",
    "doctest",
    "isolated",
    "build",
    "plugins",
    "clients",
]


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _req_name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    if match is None:
        raise ValueError(f"cannot parse requirement {requirement!r}")
    return _normalize(match.group(1))


@dataclass(frozen=True)
class Package:
    folder: str
    path: Path
    dist: str
    version: str
    import_name: str
    dependencies: tuple[str, ...]
    extras: dict[str, tuple[str, ...]]

    def extra(self, name: str) -> list[str]:
        return list(self.extras.get(name, ()))


def _load_package(pyproject: Path) -> Package:
    data = tomllib.loads(pyproject.read_text())
    project = data["project"]
    wheel = data.get("tool", {}).get("hatch", {}).get("build", {})
    wheel_packages = wheel.get("targets", {}).get("wheel", {}).get("packages", [])
    if wheel_packages:
        import_name = Path(wheel_packages[0]).name
    else:
        import_name = _normalize(project["name"]).replace("-", "_")
    extras = project.get("optional-dependencies", {})
    return Package(
        folder=pyproject.parent.name,
        path=pyproject.parent,
        dist=_normalize(project["name"]),
        version=project["version"],
        import_name=import_name,
        dependencies=tuple(project.get("dependencies", [])),
        extras={k: tuple(v) for k, v in extras.items()},
    )


PACKAGES: dict[str, Package] = {
    p.parent.name: _load_package(p) for p in sorted(PACKAGES_DIR.glob("*/pyproject.toml"))
}
BY_DIST = {pkg.dist: pkg for pkg in PACKAGES.values()}
FOLDERS = list(PACKAGES)
# Example third-party plugins: installable packages outside packages/ that use
# only the public API.
PLUGINS: dict[str, Package] = {
    p.parent.name: _load_package(p)
    for p in sorted((ROOT / "examples" / "plugins").glob("*/pyproject.toml"))
}


def _siblings(pkg: Package, requirements: list[str] | tuple[str, ...]) -> list[Package]:
    return [BY_DIST[_req_name(r)] for r in requirements if _req_name(r) in BY_DIST]


def _closure(pkg: Package, extras: tuple[str, ...] = ()) -> list[Package]:
    """The package and every sibling it needs, dependencies first."""
    order: list[Package] = []
    seen: set[str] = set()

    def visit(p: Package, with_extras: tuple[str, ...]) -> None:
        if p.dist in seen:
            return
        seen.add(p.dist)
        reqs = list(p.dependencies)
        for extra in with_extras:
            reqs += p.extra(extra)
        for dep in _siblings(p, reqs):
            visit(dep, ())
        order.append(p)

    visit(pkg, extras)
    return order


def _third_party(requirements: list[str]) -> list[str]:
    return [r for r in requirements if _req_name(r) not in BY_DIST]


def _install_from_repo(
    session: nox.Session, pkg: Package, *, extras: tuple[str, ...] = ("test",)
) -> None:
    """Install ``pkg`` with ``extras`` and its siblings from this repository."""
    args: list[str] = []
    for dep in _closure(pkg, extras):
        target = str(dep.path)
        if dep is pkg and extras:
            present = [e for e in extras if e in pkg.extras]
            if present:
                target += f"[{','.join(present)}]"
        args += ["-e", target]
    session.install(*args)


# Wheels built by ``isolated`` sessions, one folder per package and digest of
# its sources: each session installs its siblings' wheels, and a sibling whose
# sources did not change since another session built it is not built again.
WHEEL_CACHE = ROOT / ".nox" / "_wheels"
# Top-level folders of a package that no wheel is built from.
_NOT_IN_WHEEL = {"tests", "benchmarks", "tools", "dist", "build"}


def _source_digest(pkg: Package) -> str:
    """A digest of every file a wheel of ``pkg`` may be built from (paths and bytes)."""
    digest = hashlib.sha256()
    for path in sorted(pkg.path.rglob("*")):
        rel = path.relative_to(pkg.path)
        folders = rel.parts[:-1]
        if (
            not path.is_file()
            or (folders and folders[0] in _NOT_IN_WHEEL)
            or any(p == "__pycache__" or p.startswith(".") for p in folders)
        ):
            continue
        digest.update(str(rel).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def _build_wheels(session: nox.Session, packages: list[Package], out: Path) -> list[Path]:
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for dep in packages:
        cached = WHEEL_CACHE / f"{dep.dist}-{_source_digest(dep)}"
        if cached.is_dir():
            session.log(f"{dep.dist}: sources unchanged, wheel from {cached}")
        else:
            # Built aside and renamed into place: the folder holds a whole wheel or is absent.
            partial = WHEEL_CACHE / f".{cached.name}-{os.getpid()}"
            shutil.rmtree(partial, ignore_errors=True)
            session.run(
                "uv", "build", "--quiet", "--wheel", "--out-dir", str(partial), str(dep.path)
            )
            try:
                partial.rename(cached)
            except OSError:  # another run put the same wheel there first
                shutil.rmtree(partial, ignore_errors=True)
        for wheel in cached.glob("*.whl"):
            shutil.copy2(wheel, out / wheel.name)
    return sorted(out.glob("*.whl"))


@nox.session
@nox.parametrize("package", FOLDERS)
def tests(session: nox.Session, package: str) -> None:
    """Run one package's tests with only its declared dependencies."""
    pkg = PACKAGES[package]
    _install_from_repo(session, pkg)
    session.install(XDIST)
    session.run(
        "pytest", "-q", *PARALLEL, str(pkg.path / "tests"), *session.posargs, env=TEST_ENV
    )  # fmt: skip


@nox.session
@nox.parametrize("package", FOLDERS)
def isolated(session: nox.Session, package: str) -> None:
    """Install wheels of a package and its sibling closure; test from outside the tree."""
    pkg = PACKAGES[package]
    tmp = Path(session.create_tmp()).resolve()
    session.install("uv")
    wheels = _build_wheels(session, _closure(pkg), tmp / "wheels")
    session.install(*map(str, wheels))
    # Nothing beyond the declared runtime dependencies may come in.
    site = session.run(
        "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", silent=True
    )
    session.run(
        sys.executable,
        str(ROOT / "tools" / "check_installed.py"),
        pkg.dist,
        str(site).strip(),
        external=True,
    )
    # Siblings that only the tests need (e.g. an XLA backend for eager
    # numerics) come as wheels too, after the check above.
    runtime = {p.dist for p in _closure(pkg)}
    test_siblings = [p for p in _closure(pkg, ("test",)) if p.dist not in runtime]
    if test_siblings:
        session.install(*map(str, _build_wheels(session, test_siblings, tmp / "test-wheels")))
    test_requirements = _third_party(pkg.extra("test"))
    if test_requirements:
        session.install(*test_requirements)
    session.install(XDIST)
    work = tmp / "run"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(pkg.path / "tests", work / "tests")
    # Tests that check the package's documentation against its code read it here.
    shutil.copy2(pkg.path / "README.md", work / "README.md")
    session.chdir(work)
    session.run(
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        *PARALLEL,
        "--rootdir",
        str(work),
        "tests",
        *session.posargs,
        env=TEST_ENV,
    )


@nox.session
@nox.parametrize("plugin", list(PLUGINS))
def plugins(session: nox.Session, plugin: str) -> None:
    """Run an example plugin's tests against the packages of this repository,
    and check that its sources touch only public Tessela names."""
    pkg = PLUGINS[plugin]
    _install_from_repo(session, pkg)
    public_api = ROOT / "examples" / "plugins" / "test_public_api.py"
    session.run(
        "pytest", "-q", str(pkg.path / "tests"), str(public_api), *session.posargs,
        env={"TESSELA_PLUGIN": plugin, **TEST_ENV},
    )  # fmt: skip


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check over the whole tree."""
    session.install("ruff==0.17.6")
    session.run("ruff", "check", str(ROOT))
    session.run("ruff", "format", "--check", str(ROOT))


@nox.session
@nox.parametrize("package", FOLDERS)
def typecheck(session: nox.Session, package: str) -> None:
    """mypy --strict over a package's sources, with its dependencies installed."""
    pkg = PACKAGES[package]
    # Optional modules (e.g. a hypothesis-based ``testing`` module) are typed too.
    _install_from_repo(session, pkg, extras=("test", "testing"))
    session.install("mypy==2.4.1")
    session.chdir(pkg.path)
    session.run("mypy", "--strict", f"src/{pkg.import_name}")


@nox.session(venv_backend="none")
def boundaries(session: nox.Session) -> None:
    """Import contracts of the package graph; no product module imports jax."""
    session.run(sys.executable, str(ROOT / "tools" / "check_boundaries.py"), external=True)


@nox.session
def doctest(session: nox.Session) -> None:
    """Run the examples in every package's public docstrings."""
    args: list[str] = []
    for pkg in PACKAGES.values():
        # Optional modules (a hypothesis-based ``testing`` module) need their extra.
        extras = [e for e in ("testing",) if e in pkg.extras]
        args += ["-e", str(pkg.path) + (f"[{','.join(extras)}]" if extras else "")]
    session.install(*args, "pytest", XDIST)
    for pkg in PACKAGES.values():
        session.run(
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            *PARALLEL,
            "--doctest-modules",
            "--rootdir",
            str(pkg.path),
            str(pkg.path / "src"),
            env=TEST_ENV,
        )


def _changelog_version(pkg: Package) -> str:
    for line in (pkg.path / "CHANGELOG.md").read_text().splitlines():
        match = re.match(r"##\s*\[?(\d+\.\d+\.\d+[^\]\s]*)\]?", line)
        if match:
            return match.group(1)
    raise ValueError(f"{pkg.path}/CHANGELOG.md has no '## [X.Y.Z]' heading")


@nox.session
@nox.parametrize("package", FOLDERS)
def build(session: nox.Session, package: str) -> None:
    """Build the sdist and wheel a release would upload and check them."""
    pkg = PACKAGES[package]
    head = _changelog_version(pkg)
    if head != pkg.version:
        session.error(
            f"{pkg.dist}: pyproject version {pkg.version} != CHANGELOG head {head}; "
            "add a CHANGELOG section for the new version"
        )
    session.install("uv", "twine")
    out = Path(session.create_tmp()).resolve() / "dist"
    shutil.rmtree(out, ignore_errors=True)
    session.run("uv", "build", "--quiet", "--out-dir", str(out), str(pkg.path))
    artifacts = sorted(str(p) for p in out.iterdir() if p.name.endswith((".whl", ".tar.gz")))
    session.run("twine", "check", "--strict", *artifacts)
    session.log(f"{pkg.dist} {pkg.version}: {', '.join(Path(a).name for a in artifacts)}")


@nox.session
@nox.parametrize("package", FOLDERS)
def bench(session: nox.Session, package: str) -> None:
    """Run a package's benchmarks side by side with JAX (printed ratios)."""
    _bench(session, package)


@nox.session(name="bench-lowering")
def bench_lowering(session: nox.Session) -> None:
    """tessela-lowering's benchmarks: per-call dispatch on 1 and 8 devices, the training loop."""
    _bench(session, "lowering")


def _bench(session: nox.Session, package: str) -> None:
    pkg = PACKAGES[package]
    _install_from_repo(session, pkg, extras=("bench",))
    session.install(*ORACLE)
    scripts = sorted((pkg.path / "benchmarks").glob("bench_*.py"))
    if not scripts:
        session.skip(f"{package} has no benchmarks yet")
    for script in scripts:
        session.run("python", str(script), *session.posargs)


def _golden_packages() -> list[Package]:
    return [p for p in PACKAGES.values() if (p.path / "tests/golden/generate.py").exists()]


@nox.session
@nox.parametrize("package", [p.folder for p in _golden_packages()])
def golden(session: nox.Session, package: str) -> None:
    """Regenerate a package's committed golden data with JAX 0.10.2.

    Runs ``tests/golden/generate.py --out tests/golden``, then every
    ``generate_*.py`` beside it (each writes its own file next to itself).
    """
    pkg = PACKAGES[package]
    session.install(*ORACLE, "numpy")
    golden_dir = pkg.path / "tests" / "golden"
    session.run("python", str(golden_dir / "generate.py"), "--out", str(golden_dir))
    for extra in sorted(golden_dir.glob("generate_*.py")):
        session.run("python", str(extra))


@nox.session
def conformance(session: nox.Session) -> None:
    """Regenerate golden data with a fresh JAX and run every package against it."""
    targets = _golden_packages()
    args: list[str] = []
    for pkg in PACKAGES.values():
        args += ["-e", str(pkg.path) + ("[test]" if "test" in pkg.extras else "")]
    session.install(*args, *ORACLE)
    tmp = Path(session.create_tmp()).resolve()
    for pkg in targets:
        out = tmp / pkg.folder
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        session.run("python", str(pkg.path / "tests/golden/generate.py"), "--out", str(out))
        session.run(
            "pytest",
            "-q",
            str(pkg.path / "tests"),
            *session.posargs,
            env={"TESSELA_GOLDEN_DIR": str(out)},
        )


@nox.session
def api_coverage(session: nox.Session) -> None:
    """Print Tessela's coverage of JAX 0.10.2's public names per module.

    ``packages/umbrella/tools/jax_api.json`` lists JAX's names (written by
    ``list_jax_api.py`` under JAX); ``--missing`` lists the absent ones.
    """
    session.install(*[str(pkg.path) for pkg in PACKAGES.values()])
    tools = PACKAGES["umbrella"].path / "tools"
    session.run("python", str(tools / "api_coverage.py"), *session.posargs)


# Hypothesis is pinned: array-api-tests draws its examples from it (seeded), and
# tools/clients_passing.txt records which tests pass on those examples.
CLIENT_REQUIREMENTS = [
    "absl-py", "cloudpickle", "scipy", "scikit-learn", "pytest", "hypothesis==6.170.17",
    "ndindex>=1.8", "pytest-json-report", XDIST,
]  # fmt: skip


@nox.session
def clients(session: nox.Session) -> None:
    """Real JAX clients' own test suites on Tessela, beside JAX's pass counts.

    optax 0.2.8's suite, unmodified, through ``python -m tessela.as_jax`` (optax
    is installed without its dependencies: no ``jax`` package comes in), and
    data-apis/array-api-tests against ``tessela.numpy`` (core, linalg, fft; in
    32-bit mode and with ``JAX_ENABLE_X64=1``, as JAX's own array-api CI runs it)
    from ``$ARRAY_API_TESTS_DIR`` or ``../shared/third_party/array-api-tests``.
    Fails when an optax test recorded in ``tools/clients_passing.txt`` no
    longer passes (rewrite that file with ``-- --record PATH`` after a fix), or
    when array-api-tests passes fewer tests than its floor. Arguments
    after ``--`` replace the defaults and go to ``run_clients.py``
    (``--max-examples 100``, ``--suites optax``, ``--failures``).
    """
    session.install(*[str(pkg.path) for pkg in PACKAGES.values()])
    session.install("--no-deps", "optax==0.2.8")
    session.install(*CLIENT_REQUIREMENTS)
    suite = Path(
        os.environ.get("ARRAY_API_TESTS_DIR", ROOT.parent / "shared/third_party/array-api-tests")
    )
    tools = PACKAGES["umbrella"].path / "tools"
    # optax's outcomes are the same on every run: each test recorded as passing must
    # pass; array-api-tests draws examples that vary a little between runs: counts.
    defaults = [
        "--max-examples", "10", "--workers", "auto",
        "--require", str(tools / "clients_passing.txt"),
        "--min-passed",
        "array-api=1150,array-api-linalg=25,array-api-x64=1275,array-api-linalg-x64=27,"
        "array-api-fft-x64=13",
    ]  # fmt: skip
    session.run(
        "python", str(tools / "run_clients.py"), "--impl", "tessela",
        "--array-api-tests", str(suite), *(session.posargs or defaults), env=TEST_ENV,
    )  # fmt: skip


@nox.session
def demo(session: nox.Session) -> None:
    """The main job: install the packages from this repository and run the demo."""
    args: list[str] = []
    for pkg in PACKAGES.values():
        args += [str(pkg.path)]
    session.install(*args)
    session.run("python", str(ROOT / "examples" / "demo.py"), *session.posargs)
