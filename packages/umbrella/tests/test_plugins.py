"""Plugin discovery through the ``tessela.plugins`` entry point group."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import tessela as tx


@pytest.fixture
def fake_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    package = tmp_path / "fake_tessela_plugin"
    package.mkdir()
    (package / "__init__.py").write_text("LOADED = True\nNAME = 'fake'\n")
    info = tmp_path / "fake_tessela_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: fake-tessela-plugin\nVersion: 1.0\n"
    )
    (info / "entry_points.txt").write_text("[tessela.plugins]\nfake = fake_tessela_plugin\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "fake"
    sys.modules.pop("fake_tessela_plugin", None)


def test_installed_plugin_is_listed_and_loaded(fake_plugin: str) -> None:
    assert tx.plugins()[fake_plugin] == "fake_tessela_plugin"
    loaded = tx.load_plugins(fake_plugin)[fake_plugin]
    assert loaded.LOADED is True and loaded.__name__ == "fake_tessela_plugin"
    assert fake_plugin in tx.load_plugins()


def test_unknown_plugin_names_what_is_installed(fake_plugin: str) -> None:
    with pytest.raises(KeyError, match="installed plugins: \\['fake'"):
        tx.load_plugins("nope")


def test_nothing_listed_without_plugins() -> None:
    assert "fake" not in tx.plugins()
