"""scripts/ci-recipe, the CI recipe of docs/ci.md, run as a user runs it: from their own folder, with the
binary in FAKEENTRA_BINARY (this checkout's build, or the one Tests/fakeentra_build.py picks). The default
command runs the example API's tests from FakeEntra's checkout; a command after `--` runs in the folder the
script was called from, with the server's URL and CA in its environment."""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests"))
import fakeentra_build  # noqa: E402,F401  (picks the fakeentra binary)

RECIPE = ROOT / "scripts" / "ci-recipe"
TIMEOUT = 180   # the default run starts the server and runs the example's tests: ~10 s here


def recipe(*args, cwd, env=None, script=RECIPE):
    return subprocess.run([str(script), *args], cwd=cwd, env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=TIMEOUT)


def explain(run):
    return f"exit {run.returncode}\n--- stdout\n{run.stdout[-3000:]}\n--- stderr\n{run.stderr[-3000:]}"


@pytest.fixture
def my_app(tmp_path):
    """A user's project folder, away from FakeEntra's checkout, with a test script of its own that records
    where it ran and what it was given."""
    folder = tmp_path / "my-app"
    folder.mkdir()
    tests = folder / "run-tests.sh"
    tests.write_text('#!/bin/sh\nset -e\npwd -P > ran-in\nprintf %s "$FAKEENTRA_URL" > url\n'
                     'curl -sf "$FAKEENTRA_URL/_fakeentra/health" > health\n')
    tests.chmod(0o755)
    return folder


def test_the_default_command_runs_the_example_api_tests_from_the_checkout(tmp_path):
    run = recipe(cwd=tmp_path)
    assert run.returncode == 0, explain(run)
    assert "ci-recipe: FakeEntra ready at https://127.0.0.1:" in run.stdout, explain(run)
    assert " passed" in run.stdout and "failed" not in run.stdout, explain(run)


def test_your_command_runs_in_the_folder_you_called_the_recipe_from(my_app):
    # `./run-tests.sh` only resolves in the caller's folder; it must see the server, trusted without -k.
    run = recipe("--", "./run-tests.sh", cwd=my_app)
    assert run.returncode == 0, explain(run)
    assert (my_app / "ran-in").read_text().strip() == str(my_app.resolve())
    assert (my_app / "url").read_text().startswith("https://127.0.0.1:")
    assert json.loads((my_app / "health").read_text()), "the health answer was empty"


def test_a_relative_fakeentra_binary_is_relative_to_your_folder(my_app):
    (my_app / "tools").mkdir()
    (my_app / "tools" / "fakeentra").symlink_to(os.path.abspath(os.environ["FAKEENTRA_BINARY"]))
    run = recipe("--", "./run-tests.sh", cwd=my_app, env={"FAKEENTRA_BINARY": "tools/fakeentra"})
    assert run.returncode == 0, explain(run)
    assert (my_app / "ran-in").read_text().strip() == str(my_app.resolve())


def test_your_commands_exit_status_is_the_recipes(my_app):
    run = recipe("--", "sh", "-c", "exit 3", cwd=my_app)
    assert run.returncode == 3, explain(run)


@pytest.fixture
def checkout_without_setup(tmp_path):
    """A copy of the script in a checkout where scripts/setup never ran (no .venv), and a `swift` on the
    PATH that only notes it was called: a build must not start before the check."""
    checkout = tmp_path / "fakeentra"
    (checkout / "scripts").mkdir(parents=True)
    shutil.copy2(RECIPE, checkout / "scripts" / "ci-recipe")
    stub = tmp_path / "stub-bin"
    stub.mkdir()
    (stub / "swift").write_text(f'#!/bin/sh\necho "$@" >> {tmp_path}/swift-called\nexit 97\n')
    (stub / "swift").chmod(0o755)
    env = {"PATH": f"{stub}:{os.environ['PATH']}"}
    env_without_binary = {k: v for k, v in os.environ.items() if k != "FAKEENTRA_BINARY"}
    return checkout, {**env_without_binary, **env}, tmp_path / "swift-called"


def test_without_setup_the_default_command_says_to_run_setup_before_building(checkout_without_setup, tmp_path):
    checkout, env, swift_called = checkout_without_setup
    run = subprocess.run([str(checkout / "scripts" / "ci-recipe")], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode == 1, explain(run)
    assert f"{checkout}/.venv/bin/python is missing" in run.stderr, explain(run)
    assert f"run {checkout}/scripts/setup first" in run.stderr, explain(run)
    assert not swift_called.exists(), "the recipe started a build before finding .venv missing"


@pytest.mark.parametrize("args", [["--"], ["npm", "test"]], ids=["nothing after --", "no --"])
def test_a_command_line_it_cannot_run_is_refused_with_the_usage(checkout_without_setup, tmp_path, args):
    checkout, env, swift_called = checkout_without_setup
    run = subprocess.run([str(checkout / "scripts" / "ci-recipe"), *args], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode == 2, explain(run)
    assert "usage: scripts/ci-recipe [-- COMMAND [ARG]…]" in run.stderr, explain(run)
    assert not swift_called.exists()


def test_a_step_that_fails_after_the_start_leaves_no_server_behind(my_app, tmp_path):
    # A curl that cannot reach the server (a CA the machine's curl does not take, say): the recipe stops
    # at its own health check, and the server it started stops with it.
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "curl").write_text("#!/bin/sh\necho 'curl: (60) SSL certificate problem' >&2\nexit 60\n")
    (tools / "curl").chmod(0o755)
    binary = os.environ["FAKEENTRA_BINARY"]
    def servers():
        listed = subprocess.run(["pgrep", "-f", f"{binary} serve --port 0 --certs /tmp"], capture_output=True, text=True).stdout
        return set(listed.split())
    before = servers()
    run = recipe("--", "./run-tests.sh", cwd=my_app, env={"PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"})
    assert run.returncode == 60, explain(run)
    deadline = time.monotonic() + 10
    while servers() - before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not servers() - before, "the server outlived the recipe"
