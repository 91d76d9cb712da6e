"""Run real JAX clients' own test suites on Tessela (through the ``jax`` alias) or on JAX.

- optax 0.2.8's test suite, unmodified: ``pytest <optax package folder>``,
  with the ``jax`` alias installed for Tessela (the ``clients_jax_alias``
  plugin: what ``python -m tessela.as_jax`` does, in every xdist worker);
- data-apis/array-api-tests against ``tessela.numpy`` (or ``jax.numpy``),
  with the linalg and fft extensions reported apart, in 32-bit mode and with
  ``JAX_ENABLE_X64=1`` (the ``-x64`` suites, JAX's own array-api CI setting).

``--impl jax --save`` (run once in an environment with JAX 0.10.2 and optax)
writes ``clients_jax.json.gz`` beside this script: JAX's counts and the ids of
the tests that pass on JAX. ``--impl tessela`` (what ``nox -s clients`` runs)
prints Tessela's counts beside those, and how many of JAX's passing tests pass
here. Each suite runs in its own process; neither imports the other's ``jax``.

    python tools/run_clients.py --impl tessela --array-api-tests PATH [--max-examples 10]
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
SAVED = HERE / "clients_jax.json.gz"
SUITES = (
    "optax", "array-api", "array-api-linalg", "array-api-fft",
    "array-api-x64", "array-api-linalg-x64", "array-api-fft-x64",
)  # fmt: skip


def _outcomes(junit: pathlib.Path) -> tuple[dict[str, str], dict[str, str]]:
    """From a JUnit XML report: test id -> ``passed``/``failed``/``error``/``skipped``,
    and test id -> the message of each failure or error."""
    out: dict[str, str] = {}
    messages: dict[str, str] = {}
    if not junit.exists():
        return out, messages
    for case in ET.parse(junit).getroot().iter("testcase"):
        test_id = f"{case.get('classname', '')}::{case.get('name', '')}"
        out[test_id] = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                out[test_id] = "failed" if child.tag == "failure" else child.tag
                messages[test_id] = child.get("message", "")[:400]
                break
    return out, messages


def _pytest(
    args: list[str], env: dict[str, str], cwd: pathlib.Path, impl: str, workers: str
) -> dict[str, Any]:
    env = dict(env)
    # The plugins beside this script (the jax alias, the Hypothesis profile) import
    # from here, in pytest's process and in each xdist worker.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    alias = ["-p", "clients_jax_alias"] if impl == "tessela" else []
    split = ["-n", workers] if workers != "0" else []
    with tempfile.TemporaryDirectory() as tmp:
        junit = pathlib.Path(tmp) / "report.xml"
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            *alias,
            *split,
            f"--junitxml={junit}",
            *args,
        ]
        start = time.monotonic()
        proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
        seconds = time.monotonic() - start
        outcomes, messages = _outcomes(junit)
    counts = {
        k: sum(v == k for v in outcomes.values()) for k in ("passed", "failed", "error", "skipped")
    }
    tail = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else proc.stderr[-500:]
    return {
        "counts": counts, "seconds": round(seconds, 1), "outcomes": outcomes,
        "messages": messages, "summary": tail,
    }  # fmt: skip


def run_optax(impl: str, workers: str) -> dict[str, Any]:
    """optax's own tests (its ``*_test.py`` files), in a scratch folder."""
    spec = importlib.util.find_spec("optax")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("optax is not installed (pip install --no-deps optax==0.2.8)")
    folder = pathlib.Path(next(iter(spec.submodule_search_locations)))
    with tempfile.TemporaryDirectory() as cwd:
        # Rooted at the folder above the package, test ids read "optax._src.x_test.X::y"
        # wherever optax is installed.
        args = ["--continue-on-collection-errors", f"--rootdir={folder.parent}", str(folder)]
        return _pytest(args, dict(os.environ), pathlib.Path(cwd), impl, workers)


def run_array_api(
    impl: str, suite_dir: pathlib.Path, max_examples: int, part: str, workers: str
) -> dict[str, Any]:
    """array-api-tests on ``tessela.numpy`` or ``jax.numpy``: the core, or one extension.

    A ``-x64`` suite runs with ``JAX_ENABLE_X64=1``, as JAX's own array-api CI
    does: the suite draws float64 and int64 values, which 32-bit mode rounds.
    """
    env = dict(os.environ)
    if part.endswith("-x64"):
        part = part.removesuffix("-x64")
        env["JAX_ENABLE_X64"] = "1"
    env["ARRAY_API_TESTS_MODULE"] = "tessela.numpy" if impl == "tessela" else "jax.numpy"
    args = [f"--max-examples={max_examples}", "--hypothesis-seed=0", "-p", "clients_hypothesis"]
    if part == "array-api":
        args += ["--disable-extension", "linalg", "--disable-extension", "fft", "array_api_tests"]
    else:
        ext = part.rsplit("-", 1)[1]
        args += [f"array_api_tests/test_{ext}.py"]
    with tempfile.TemporaryDirectory() as tmp:
        # A scratch copy: the suite writes its Hypothesis database and reports into its folder.
        work = pathlib.Path(tmp) / "array-api-tests"
        shutil.copytree(suite_dir, work)
        return _pytest(args, env, work, impl, workers)


def _normalized(test_id: str) -> str:
    """A test id without the folder it was installed in (``...site-packages.optax._src...``)."""
    at = test_id.find("optax.")
    return test_id[at:] if at >= 0 else test_id


def _row(name: str, result: dict[str, Any] | None, jax: dict[str, Any] | None) -> str:
    def fmt(r: dict[str, Any] | None) -> str:
        if r is None:
            return "not run".ljust(28)
        c = r["counts"]
        total = sum(c[k] for k in ("passed", "failed", "error"))
        pct = 100.0 * c["passed"] / total if total else 0.0
        return f"{c['passed']:5d}/{total:<5d} ({pct:5.1f}%)".ljust(28)

    line = f"{name:18s} {fmt(result)} {fmt(jax)}"
    if result is not None and jax is not None:
        jax_passed = {_normalized(k) for k in jax.get("passed_ids", ())}
        here = {_normalized(k) for k, v in result["outcomes"].items() if v == "passed"}
        both = len(jax_passed & here)
        share = 100.0 * both / len(jax_passed) if jax_passed else 0.0
        line += f" {both}/{len(jax_passed)} ({share:.1f}%) of JAX's passing tests pass"
    if result is not None:
        line += f"  [{result['seconds']:.0f} s]"
    return line


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--impl", choices=("tessela", "jax"), default="tessela")
    parser.add_argument(
        "--suites", default=",".join(SUITES), help="comma-separated: " + ", ".join(SUITES)
    )
    parser.add_argument("--array-api-tests", type=pathlib.Path, default=None)
    parser.add_argument("--max-examples", type=int, default=10)
    parser.add_argument(
        "--workers",
        default="0",
        help="pytest-xdist workers per suite (-n): a number, or auto; 0 runs in one process",
    )
    parser.add_argument(
        "--save", action="store_true", help="(with --impl jax) write clients_jax.json.gz"
    )
    parser.add_argument("--failures", action="store_true", help="list the failing test ids")
    parser.add_argument(
        "--report", type=pathlib.Path, help="write every outcome and message as JSON"
    )
    parser.add_argument(
        "--require",
        type=pathlib.Path,
        help="a file of test ids that must pass (one per line, '<suite> <id>'); exit 1 if any fails",
    )
    parser.add_argument(
        "--record", type=pathlib.Path, help="write the ids that pass now, for --require"
    )
    parser.add_argument(
        "--min-passed",
        default="",
        help="SUITE=N,...: exit 1 when a suite passes fewer tests (for suites whose "
        "examples vary between runs, where --require would be flaky)",
    )
    args = parser.parse_args()
    suites = [s for s in args.suites.split(",") if s]
    results: dict[str, dict[str, Any]] = {}
    for suite in suites:
        if suite == "optax":
            results[suite] = run_optax(args.impl, args.workers)
        elif args.array_api_tests is None or not args.array_api_tests.exists():
            print(f"{suite}: skipped (no array-api-tests folder; pass --array-api-tests PATH)")
        else:
            results[suite] = run_array_api(
                args.impl, args.array_api_tests, args.max_examples, suite, args.workers
            )
    if args.save:
        saved = {
            name: {"counts": r["counts"], "seconds": r["seconds"], "max_examples": args.max_examples,
                   "passed_ids": sorted(k for k, v in r["outcomes"].items() if v == "passed")}
            for name, r in results.items()
        }  # fmt: skip
        if SAVED.exists():  # keep the suites not rerun this time
            with gzip.open(SAVED, "rt") as f:
                saved = {**json.load(f)["suites"], **saved}
        with gzip.open(SAVED, "wt") as f:
            json.dump({"impl": args.impl, "suites": saved}, f, indent=0, sort_keys=True)
        print(f"wrote {SAVED}")
    if args.report is not None:
        report = {
            n: {"outcomes": r["outcomes"], "messages": r["messages"]} for n, r in results.items()
        }
        args.report.write_text(json.dumps(report, indent=0))
    reference: dict[str, Any] = {}
    if SAVED.exists():
        with gzip.open(SAVED, "rt") as f:
            reference = json.load(f)["suites"]
    print(f"{'suite':18s} {args.impl + ' passed':28s} {'JAX 0.10.2 passed':28s}")
    for name, result in results.items():
        print(_row(name, result, reference.get(name)))
        if args.failures:
            for test_id, outcome in sorted(result["outcomes"].items()):
                if outcome in ("failed", "error"):
                    print(f"    {outcome}: {test_id}")
    passing = {
        f"{name} {_normalized(test_id)}"
        for name, result in results.items()
        for test_id, outcome in result["outcomes"].items()
        if outcome == "passed"
    }
    if args.record is not None:
        args.record.write_text("".join(f"{line}\n" for line in sorted(passing)))
        print(f"wrote {len(passing)} passing test ids to {args.record}")
    failed = False
    if args.require is not None:
        failed |= _check_required(args.require, results, passing)
    for item in filter(None, args.min_passed.split(",")):
        suite, _, floor = item.partition("=")
        got = results[suite]["counts"]["passed"] if suite in results else None
        if got is not None and got < int(floor):
            print(f"{suite}: {got} tests pass, fewer than the {floor} required")
            failed = True
    if failed:
        raise SystemExit(1)


def _check_required(
    path: pathlib.Path, results: dict[str, dict[str, Any]], passing: set[str]
) -> bool:
    """Name each test of ``path`` (of a suite that ran) that no longer passes; True if any."""
    required = {line for line in path.read_text().splitlines() if line.strip()}
    required = {line for line in required if line.split(" ", 1)[0] in results}
    lost = sorted(required - passing)
    print(f"{len(required) - len(lost)}/{len(required)} tests recorded as passing still pass")
    if lost:
        messages = {
            f"{name} {_normalized(k)}": m
            for name, r in results.items()
            for k, m in r["messages"].items()
        }
        for line in lost:
            print(f"    no longer passes: {line}\n        {messages.get(line, '')[:300]}")
    return bool(lost)


if __name__ == "__main__":
    main()
