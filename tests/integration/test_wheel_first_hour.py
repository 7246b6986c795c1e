"""The first hour, as a pip user lives it (issue 20's "Done when").

A fresh virtual environment (no system site-packages) with only the wheel built
from this checkout (and pytest) installed goes through the first steps of the
page PyPI shows (README.pypi.md): `wpfprobe demo`; the app and the pytest test
that page gives, written to a new folder and run with the venv's pytest from
another working directory, the venv not activated; the same test against the
app with its handler broken (a clear failure, within 5 s of the exception);
an app that cannot start; then `wpfprobe launch`, `tree` and `stop`. Nothing may
print a traceback, and nothing may need the repository: every command runs
outside it, with no PYTHONPATH, and the venv's wpfprobe is the one installed.

The wheel is built once per test session; pip may take the dependencies from
its cache.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPI_README = ROOT / "README.pypi.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
DEADLINE = 180

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the venv's layout and Xvfb: Linux")


def _blocks(kind: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(PYPI_README.read_text(encoding="utf-8")) if lang == kind]


def _files_from_the_readme() -> dict[str, str]:
    """The python blocks that name their file on their first line (``# copier.py``)."""
    out = {}
    for body in _blocks("python"):
        first = body.partition("\n")[0]
        if first.startswith("# ") and first.endswith(".py"):
            out[first[2:].strip()] = body
    return out


@pytest.fixture(scope="session")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel of this checkout and pytest, nothing else."""
    where = tmp_path_factory.mktemp("pip-user")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(where / "dist"), str(ROOT)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (wheel,) = (where / "dist").glob("wpfprobe-*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(where / "venv")], check=True, timeout=300)
    python = where / "venv" / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel), "pytest"],
        capture_output=True, text=True, timeout=900, check=False, env=_clean_env(where / "home"),
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    return where / "venv"


def _clean_env(home: Path) -> dict[str, str]:
    """The environment of someone who never saw the repository: no PYTHONPATH, no venv of ours on the PATH,
    no display (wpfprobe starts its own), a home of their own."""
    ours = {str(ROOT / ".venv" / "bin"), os.path.dirname(sys.executable)}
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p not in ours)
    drop = {"PYTHONPATH", "VIRTUAL_ENV", "DISPLAY", "PYTHONHOME", "WPFPROBE_HOME"}
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("PYTEST")}
    return {**env, "PATH": path or "/usr/bin:/bin", "WPFPROBE_HOME": str(home)}


@pytest.fixture
def user(tmp_path: Path, venv: Path) -> Iterator[dict[str, Path]]:
    """A pip user's machine: a project folder, another folder to work from, a wpfprobe home."""
    paths = {"project": tmp_path / "copier", "elsewhere": tmp_path / "elsewhere", "home": tmp_path / "home"}
    for path in paths.values():
        path.mkdir()
    yield paths
    # Whatever a failed step left running.
    for process in psutil.process_iter(["cmdline"]):
        if str(paths["project"]) in " ".join(process.info["cmdline"] or []):
            process.kill()


def _run(
    argv: list[str], *, cwd: Path, env: dict[str, str], timeout: float = DEADLINE
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert "Traceback" not in done.stdout + done.stderr, f"{argv}:\n{done.stdout}\n{done.stderr}"
    return done


def test_from_pip_install_to_a_passing_test_a_clear_failure_and_wpfprobe_stop(
    venv: Path, user: dict[str, Path]
) -> None:
    bin_ = venv / "bin"
    env = _clean_env(user["home"])
    activated = {**env, "PATH": f"{bin_}{os.pathsep}{env['PATH']}", "VIRTUAL_ENV": str(venv)}

    # The installed package, not the checkout.
    where = _run(
        [str(bin_ / "python"), "-c", "import wpfprobe; print(wpfprobe.__file__)"], cwd=user["elsewhere"], env=env
    )
    assert where.stdout.startswith(str(venv)), where.stdout

    # First steps: the page's shell block, in the activated venv.
    (first_steps,) = [b for b in _blocks("sh") if b.strip().startswith("wpfprobe demo")]
    demo = _run(["bash", "-c", first_steps], cwd=user["elsewhere"], env=activated)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert 'Label#greetingLabel "Hello, Ada"' in demo.stdout and "stopped the app." in demo.stdout

    # Your first test: the page's app and test, written as a new project, run from elsewhere with the
    # venv's pytest, the venv not activated (`python` on the PATH is not the venv's).
    files = _files_from_the_readme()
    assert set(files) == {"copier.py", "tests/test_copier.py"}
    for name, body in files.items():
        (user["project"] / name).parent.mkdir(parents=True, exist_ok=True)
        (user["project"] / name).write_text(body, encoding="utf-8")
    passed = _run([str(bin_ / "pytest"), str(user["project"] / "tests"), "-q", "-p", "no:cacheprovider"],
                  cwd=user["elsewhere"], env=env)  # fmt: skip
    assert passed.returncode == 0 and "1 passed" in passed.stdout, passed.stdout + passed.stderr

    # The same test against the app with its handler broken: a clear failure, soon after the exception.
    app = files["copier.py"]
    broken = app.replace(
        "    copied.Text = source.Text",
        "    open(os.environ['RAISED_AT'], 'w').write(repr(__import__('time').time()))\n    raise ValueError('copy failed on purpose')",
    )
    assert broken != app
    (user["project"] / "copier.py").write_text(broken, encoding="utf-8")
    test = files["tests/test_copier.py"].replace(
        '    wpfprobe_app.click("#copyButton")',
        '    try:\n        wpfprobe_app.click("#copyButton")\n    finally:\n'
        '        open(os.environ["FAILED_AT"], "w").write(repr(__import__("time").time()))',
    )
    (user["project"] / "tests" / "test_copier.py").write_text("import os\n" + test, encoding="utf-8")
    stamps = {"RAISED_AT": str(user["elsewhere"] / "raised"), "FAILED_AT": str(user["elsewhere"] / "failed")}
    failed = _run([str(bin_ / "pytest"), str(user["project"] / "tests"), "-q", "-p", "no:cacheprovider"],
                  cwd=user["elsewhere"], env={**env, **stamps})  # fmt: skip
    out = failed.stdout
    assert failed.returncode == 1 and "1 failed" in out, out + failed.stderr
    errors = [line[1:].strip() for line in out.splitlines() if line.startswith("E ")]
    assert errors[0].startswith("AssertionError: exception: ValueError escaped an event handler"), out
    assert errors[0].endswith("copy failed on purpose"), out
    assert [e.split(":")[0] for e in errors[1:5]] == ["at step 2", "evidence", "ticket", "replay"], out
    assert "pytest_plugin.py" not in out  # no frames of the plugin
    ticket = Path(user["elsewhere"] / errors[3].split()[1])
    assert (ticket / "ticket.md").is_file() and (ticket / "trace.html").is_file()
    raised, reported = (float(Path(stamps[k]).read_text()) for k in ("RAISED_AT", "FAILED_AT"))
    assert 0 <= reported - raised < 5, f"the failure came {reported - raised:.1f} s after the exception"

    # An app that cannot start: the test's setup error, its cause in two lines, no traceback.
    (user["project"] / "copier.py").write_text("import pythonnet_is_misspelled\n" + app, encoding="utf-8")
    setup = _run([str(bin_ / "pytest"), str(user["project"] / "tests"), "-q", "-p", "no:cacheprovider"],
                 cwd=user["elsewhere"], env=env)  # fmt: skip
    assert setup.returncode == 1 and "1 error" in setup.stdout, setup.stdout
    lines = setup.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("wpfprobe: the app did not start:"))
    assert "exited with status 1 before its UI came up" in lines[at]
    assert lines[at + 1].startswith("cause: ModuleNotFoundError: No module named 'pythonnet_is_misspelled'")

    # Look around and stop it, as the page shows, from the project folder with the venv not activated.
    (user["project"] / "copier.py").write_text(app, encoding="utf-8")
    launched = _run([str(bin_ / "wpfprobe"), "launch", "--allow", "interact", "--json", "--", "python", "copier.py"],
                    cwd=user["project"], env=env)  # fmt: skip
    assert launched.returncode == 0, launched.stderr
    facts = json.loads(launched.stdout)
    assert facts["appId"] == "copier"
    tree = _run([str(bin_ / "wpfprobe"), "tree", "copier"], cwd=user["elsewhere"], env=env)
    assert tree.returncode == 0 and "Button#copyButton" in tree.stdout, tree.stderr
    stopped = _run([str(bin_ / "wpfprobe"), "stop", "copier"], cwd=user["elsewhere"], env=env)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert not psutil.pid_exists(facts["pid"]) or psutil.Process(facts["pid"]).status() == psutil.STATUS_ZOMBIE
    assert list((user["home"] / "sessions").glob("*.json")) == []
    deadline = time.monotonic() + 10
    while _run([str(bin_ / "wpfprobe"), "ls", "--json"], cwd=user["elsewhere"], env=env).stdout.strip() != "[]":
        assert time.monotonic() < deadline, "the stopped app is still listed"
        time.sleep(0.2)
