"""The ns-3 program's cache (pertlab.validate.ns3build): a binary is linked to the ns-3 wheel's
libraries by their path, so a wheel in another place (another checkout's environment) gets its
own binary, and removing that place leaves the others working. Found when a cached binary linked
against a deleted checkout's environment failed every `validate ns3` run (exit 127)."""

from __future__ import annotations

import subprocess

import pytest

from pertlab.validate import ns3build

pytestmark = pytest.mark.skipif(ns3build.missing() is not None, reason=f"ns-3: {ns3build.missing()}")


def _loads(binary) -> subprocess.CompletedProcess:
    """Run the program just far enough to print its options (ns-3's --PrintHelp): that needs every
    library it is linked to."""
    return subprocess.run([str(binary), "--PrintHelp"], capture_output=True, text=True, timeout=60)


def test_a_wheel_in_another_place_gets_its_own_binary(tmp_path, monkeypatch):
    real = ns3build._wheel_dir()
    elsewhere = tmp_path / "other-env" / "ns3"
    elsewhere.parent.mkdir()
    elsewhere.symlink_to(real, target_is_directory=True)
    monkeypatch.setenv("PERTLAB_NS3_CACHE", str(tmp_path / "cache"))
    built = {}
    try:
        for name, wheel in (("elsewhere", elsewhere), ("real", real)):
            ns3build.program.cache_clear()
            monkeypatch.setattr(ns3build, "_wheel_dir", lambda wheel=wheel: wheel)
            built[name] = ns3build.program()
    finally:
        ns3build.program.cache_clear()
    assert built["elsewhere"] != built["real"]
    assert _loads(built["elsewhere"]).returncode == 0
    # The other environment goes away: its binary cannot load ns-3 any more, the real one can.
    elsewhere.unlink()
    gone = _loads(built["elsewhere"])
    assert gone.returncode != 0 and "error while loading shared libraries" in gone.stderr
    assert _loads(built["real"]).returncode == 0
