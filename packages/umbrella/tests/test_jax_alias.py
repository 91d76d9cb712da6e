"""The ``jax`` alias (``tessela.install_jax_alias``, ``python -m tessela.as_jax``), each case in a
fresh interpreter so that the alias never leaks into other tests."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def _run(code: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args, "-c", textwrap.dedent(code)]
        if not args
        else [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def _ok(code: str) -> str:
    proc = _run("import tessela\ntessela.install_jax_alias()\n" + textwrap.dedent(code))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_jax_names_resolve_to_tessela_objects() -> None:
    out = _ok(
        """
        import jax
        import jax.numpy as jnp
        from jax import lax, random, tree_util
        import jax.flatten_util, jax.scipy.special, jax.numpy.linalg
        import tessela, tessela.numpy, tessela.lax, tessela.random, tessela.tree_util
        assert jnp.sum is tessela.numpy.sum and jax.jit is tessela.jit
        assert lax.scan is tessela.lax.scan and random.key is tessela.random.key
        assert tree_util.tree_map is tessela.tree_util.tree_map
        assert jax.numpy is jnp and jax.numpy.linalg is jnp.linalg
        assert jax.numpy.linalg.norm is tessela.numpy.linalg.norm
        assert jax.flatten_util.ravel_pytree is tessela.flatten_util.ravel_pytree
        assert isinstance(jnp.ones(2), jax.Array)
        jax.config.update("jax_enable_x64", True)
        print(jnp.ones(2).dtype, tessela.config.read("jax_enable_x64"))
        print(jax.jit(jax.grad(lambda x: jnp.sin(x) * 2.0))(0.0))
        print(sorted(n for n in dir(jax.numpy) if n in ("sum", "mean", "_tessela_module")))
        """
    )
    assert out.split("\n")[:3] == ["float64 True", "2.0", "['mean', 'sum']"]


def test_missing_names_raise_naming_the_jax_name() -> None:
    out = _ok(
        """
        import jax, jax.numpy as jnp
        try:
            jnp.not_a_jax_name
        except AttributeError as err:
            print("A", err)
        try:
            from jax.lax import not_a_jax_name
        except ImportError as err:
            print("I", err)
        try:
            import jax.not_a_module
        except ModuleNotFoundError as err:
            print("M", err.name, err)
        print(hasattr(jax, "not_a_jax_name"))
        """
    )
    lines = out.splitlines()
    assert lines[0].startswith("A module 'jax.numpy' has no attribute 'not_a_jax_name'")
    assert "jax.numpy.not_a_jax_name" in lines[0]
    assert lines[1].startswith("I cannot import name 'not_a_jax_name' from 'jax.lax'")
    assert lines[2].startswith("M jax.not_a_module No module named 'jax.not_a_module'")
    assert "Tessela does not provide JAX's jax.not_a_module" in lines[2]
    assert lines[3] == "False"


def test_install_refuses_when_the_real_jax_is_imported(tmp_path: Path) -> None:
    fake = tmp_path / "jax"
    fake.mkdir()
    (fake / "__init__.py").write_text("REAL = True\n")
    proc = _run(
        """
        import jax
        import tessela
        try:
            tessela.install_jax_alias()
        except tessela.JaxAliasError as err:
            print(err)
        print(tessela.jax_alias_installed(), jax.REAL)
        """,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.splitlines()[:2]
    assert "the real JAX package is already imported" in first
    assert "python -m tessela.as_jax" in first
    assert second == "False True"


def test_install_is_idempotent_and_uninstall_forgets_the_modules() -> None:
    out = _ok(
        """
        import sys, tessela
        tessela.install_jax_alias()
        import jax.numpy
        from tessela._jax_alias import JaxAliasFinder
        print(sum(isinstance(f, JaxAliasFinder) for f in sys.meta_path))
        tessela.uninstall_jax_alias()
        print(tessela.jax_alias_installed(), [m for m in sys.modules if m.split(".")[0] == "jax"])
        """
    )
    assert out.splitlines() == ["1", "False []"]


def test_as_jax_runs_a_script_with_its_arguments(tmp_path: Path) -> None:
    (tmp_path / "helper_mod.py").write_text("VALUE = 3\n")
    script = tmp_path / "prog.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys
            import jax
            import jax.numpy as jnp
            import helper_mod
            print(__name__, sys.argv[1:], float(jax.jit(jnp.add)(1.0, helper_mod.VALUE)))
            """
        )
    )
    proc = _run("", "-m", "tessela.as_jax", str(script), "a", "--b")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "__main__ ['a', '--b'] 4.0"


def test_as_jax_runs_a_module_and_rejects_an_empty_command_line(tmp_path: Path) -> None:
    (tmp_path / "progmod.py").write_text("import sys, jax\nprint(jax.__name__, sys.argv[1:])\n")
    proc = _run("", "-m", "tessela.as_jax", "-m", "progmod", "x", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "jax ['x']"
    code = _run(
        "", "-m", "tessela.as_jax", "-c", "import sys, jax; print(jax.__name__, sys.argv)", "z"
    )
    assert code.returncode == 0, code.stderr
    assert code.stdout.strip() == "jax ['-c', 'z']"
    bad = _run("", "-m", "tessela.as_jax")
    assert bad.returncode == 2
    assert "usage: python -m tessela.as_jax" in bad.stderr


@pytest.mark.parametrize("name", ["jaxlib", "jaxtyping_like", "jax_extra"])
def test_other_top_level_names_are_not_aliased(name: str) -> None:
    out = _ok(
        f"""
        from tessela._jax_alias import JaxAliasFinder
        print(JaxAliasFinder().find_spec({name!r}, None))
        """
    )
    assert out.strip() == "None"
