"""The command line: list, play (bots and a scripted person), bench, evaluate, demo, errors."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from city_envs import cli
from tests.terminal import command, environment, run_on_terminal, screen_lines


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_list_names_every_game_and_option(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0
    assert "citadels" in out and "2-7 players" in out
    assert "classic_variant" in out and "max_rounds" in out


@pytest.mark.parametrize("players", [2, 5])
def test_play_with_bots_only_reaches_the_end(capsys, players):
    seats = ",".join(["heuristic"] + ["random"] * (players - 1))
    code, out, _ = run(capsys, "play", "citadels", "--players", str(players), "--seats", seats, "--seed", "3")
    assert code == 0
    assert "final scores:" in out and "<- winner" in out


def test_bots_moves_never_show_secret_choices(capsys):
    code, out, _ = run(capsys, "play", "citadels", "--players", "4", "--seats", "random,random,random,random")
    assert code == 0
    assert "chooses a character" in out
    assert "keep King" not in out and "keep Assassin" not in out  # picks are secret


def test_a_person_plays_to_the_end_and_bad_input_reprompts(monkeypatch, capsys):
    answers = io.StringIO("nonsense\n999\n" + "0\n" * 5000)
    monkeypatch.setattr("sys.stdin", answers)
    code, out, _ = run(capsys, "play", "citadels", "--players", "2", "--seats", "human,random", "--seed", "1")
    assert code == 0
    assert out.count("please type a number") == 2
    assert "you are seat 0; hand:" in out
    assert "final scores:" in out


def test_quitting_abandons_the_game(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    code, out, _ = run(capsys, "play", "citadels", "--players", "3", "--seats", "human,random,random")
    assert code == 1 and "abandoned" in out


def test_bench_reports_every_figure(capsys, tmp_path):
    path = tmp_path / "bench.json"
    code, out, _ = run(capsys, "bench", "citadels", "--players", "3", "--seconds", "0.2", "--json", str(path))
    assert code == 0 and "AEC agent-steps/s" in out
    import json

    figures = json.loads(path.read_text())
    for key in (
        "decisions_per_s",
        "aec_steps_per_s",
        "games_per_s",
        "decisions_per_game",
        "observation_us",
        "legal_actions_us",
        "clone_us",
    ):
        assert figures[key] > 0, key
    assert "search_iteration_us" not in figures


@pytest.mark.slow
def test_bench_search_adds_the_search_iterations_cost(capsys, tmp_path, monkeypatch):
    from city_envs import bench

    monkeypatch.setattr(bench, "NATIVE_SEARCH_REPEATS", 1)
    path = tmp_path / "bench.json"
    code, out, _ = run(
        capsys, "bench", "metropolys", "--players", "2", "--seconds", "0.1", "--search", "--json", str(path)
    )
    figures = json.loads(path.read_text())
    assert code == 0 and figures["search_iteration_us"] > 0 and "ISMCTS iteration" in out
    if figures.get("native_search_iteration_us") is not None:
        assert "Python / native ISMCTS iteration" in out
        low, high = figures["native_search_ratio_vs_python_interval"]
        assert low <= figures["native_search_ratio_vs_python"] <= high


def test_evaluate_prints_win_rates(capsys):
    code, out, _ = run(
        capsys, "evaluate", "citadels", "--players", "2", "--agents", "heuristic,random", "--games", "4", "--seed", "1"
    )
    assert code == 0
    assert "heuristic" in out and "random" in out


def test_evaluate_writes_reports_with_worker_processes(capsys, tmp_path):
    code, out, _ = run(
        capsys,
        "evaluate",
        "blue_moon_city",
        "--players",
        "2",
        "--agents",
        "heuristic,random",
        "--games",
        "4",
        "--jobs",
        "2",
        "--out",
        str(tmp_path / "run"),
    )
    assert code == 0 and "rating" in out
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [
        "matches.csv",
        "matches.jsonl",
        "pairwise.png",
        "ratings.png",
        "report.md",
        "results.json",
    ]


class Quitter:
    """A user's agent class (`tests.test_cli:Quitter`) that gives up at its first decision."""

    def __init__(self, seed=None) -> None:
        self.seed = seed

    def act(self, info_set) -> int:
        raise SystemExit("agent gave up")


def test_evaluate_fails_with_the_reasons_when_a_match_failed(capsys):
    quit_spec = "tests.test_cli:Quitter"
    code, out, err = run(capsys, "evaluate", "citadels", "--agents", f"{quit_spec},random", "--games", "2")
    assert code == 1
    assert f"| {quit_spec} | " in out and "failed matches: 2" in out
    assert "2 of 2 matches failed" in err and "match 1 (seed " in err
    assert f"({quit_spec}): SystemExit: agent gave up" in err


def test_resume_needs_the_run_folder(capsys):
    code, _, err = run(capsys, "evaluate", "citadels", "--games", "2", "--resume")
    assert code == 2 and "--resume" in err


def test_evaluate_killed_leaves_no_workers_and_resume_matches_an_uninterrupted_run(capsys, tmp_path):
    """SIGKILL of `evaluate --jobs 2` mid-run: its workers end with it, the finished matches are on disk,
    and `--resume` then gives the results.json of a run that was never stopped."""
    psutil = pytest.importorskip("psutil")
    args = ["evaluate", "urban_sprawl", "--agents", "heuristic,random", "--games", "16", "--seed", "5", "--jobs", "2"]
    killed = subprocess.Popen(
        [sys.executable, "-m", "city_envs.cli", *args, "--out", str(tmp_path / "killed")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    log = tmp_path / "killed" / "matches.jsonl"
    deadline = time.monotonic() + 180
    while not (log.exists() and len(log.read_text().splitlines()) >= 4) and time.monotonic() < deadline:
        time.sleep(0.02)
    workers = psutil.Process(killed.pid).children(recursive=True)
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait()
    assert len(workers) == 2
    _gone, alive = psutil.wait_procs(workers, timeout=10)
    assert not alive, f"orphaned workers: {alive}"
    finished = len(log.read_text().splitlines()) - 1
    assert 3 <= finished < 16, "the run was not stopped in the middle"

    code, _, _ = run(capsys, *args, "--out", str(tmp_path / "killed"), "--resume")
    assert code == 0
    assert len(log.read_text().splitlines()) == 17
    code, _, _ = run(capsys, *args, "--out", str(tmp_path / "whole"))
    assert code == 0
    for name in ("results.json", "matches.csv"):
        assert (tmp_path / "killed" / name).read_text() == (tmp_path / "whole" / name).read_text()


def test_demo_plays_a_rendered_match_and_evaluates(capsys, tmp_path):
    image = tmp_path / "demo.png"
    code, out, _ = run(capsys, "demo", "citadels", "--players", "3", "--games", "4", "--image", str(image))
    assert code == 0
    assert "final scores:" in out and image.stat().st_size > 1000


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "citadels", "--players", "9"], "supports 2, 3, 4, 5, 6, 7 players"),
        (["play", "chess", "--players", "2"], "known games: citadels"),
        (["play", "citadels", "--players", "2", "--option", "max_rounds=0"], "max_rounds"),
        (["play", "citadels", "--players", "2", "--option", "colour=red"], "unknown option"),
        (["play", "citadels", "--players", "2", "--seats", "human"], "--seats names 1 seats"),
        (["play", "citadels", "--players", "2", "--seats", "random,genius"], "unknown agent 'genius'"),
    ],
)
def test_bad_input_exits_2_with_the_reason(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err


def test_options_read_values_as_the_config_files_write_them(capsys):
    """`--option classic_variant=true` (TOML) and `=True` (Python) are one value; a list of names stays text."""
    for flag in ("true", "True"):
        code, out, _ = run(
            capsys,
            "play",
            "citadels",
            "--players",
            "4",
            "--seats",
            "random,random,random,random",
            "--seed",
            "3",
            "--option",
            f"classic_variant={flag}",
        )
        assert code == 0 and "final scores:" in out
    code, _, err = run(
        capsys,
        "play",
        "metropolys",
        "--players",
        "2",
        "--seats",
        "random,random",
        "--option",
        "removed_districts=south,west",
    )
    assert code == 0, err
    code, _, err = run(capsys, "play", "citadels", "--players", "2", "--option", "classic_variant")
    assert code == 2 and "--option 'classic_variant' is not of the form KEY=VALUE" in err


# ===== checks before any work ===================================================================
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "citadels", "--agents", "foo,random", "--games", "2"], "unknown agent 'foo'"),
        (["evaluate", "chess", "--games", "2"], "unknown game 'chess'"),
        (["evaluate", "citadels", "--option", "colour=red"], "unknown option(s) colour"),
        (["evaluate", "citadels", "--players", "9"], "supports 2, 3, 4, 5, 6, 7 players, not 9"),
        (
            ["evaluate", "citadels", "--players", "5", "--agents", "ppo,random,random,random,random"],
            "no PPO baseline for citadels with 5 players",
        ),
        (["evaluate", "citadels", "--agents", "ppo:no/such/model.zip,random"], "no policy file at no/such/model.zip"),
        (["evaluate", "citadels", "--agents", "random"], "names 1 agents for a 2-player game"),
        (["evaluate", "citadels", "--agents", "ismcts:iters=x,random"], "bad value in agent parameter"),
        (["evaluate", "citadels", "--agents", "no_such_module_x:Bot,random"], "cannot import module"),
        (["demo", "metropolys", "--players", "7"], "metropolys supports 2, 3, 4 players, not 7"),
        (["train", "chess"], "unknown game 'chess'"),
        (["bench", "citadels", "--option", "max_rounds=0"], "max_rounds"),
    ],
)
def test_every_command_checks_its_input_before_any_work(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err and err.startswith(f"city-envs {argv[0]}: error: ") and err.count("\n") == 1, err


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "citadels", "--games", "0"],
        ["evaluate", "citadels", "--jobs", "-1"],
        ["bench", "citadels", "--seconds", "0"],
    ],
)
def test_counts_and_durations_must_be_positive(capsys, argv):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(argv)
    assert exit_info.value.code == 2 and "must be" in capsys.readouterr().err


def test_ppo_without_torch_is_refused_before_any_match(capsys, monkeypatch):
    from city_envs.agents import policy_agent

    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now raises ImportError
    monkeypatch.setattr(policy_agent, "_POLICIES", {})
    code, _, err = run(capsys, "evaluate", "citadels", "--agents", "ppo,random", "--games", "2")
    assert code == 2 and "ppo agents need the train extra (torch is not installed)" in err


USER_AGENT = '''
class FirstLegal:
    """Plays the lowest legal action id; `offset` picks the next ones instead."""

    def __init__(self, seed, offset=0):
        self.seed, self.offset = seed, offset

    def act(self, info_set):
        legal = info_set.legal_action_ids()
        return legal[min(self.offset, len(legal) - 1)]


class NoAct:
    def __init__(self, seed):
        pass
'''


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "my_city_bots.py").write_text(USER_AGENT)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "my_city_bots"
    sys.modules.pop("my_city_bots", None)


def test_a_users_agent_class_plays_with_its_parameters(capsys, user_module):
    from city_envs.agents.registry import make_agent

    agent = make_agent(f"{user_module}:FirstLegal:offset=2", "citadels", seed=7)
    assert (type(agent).__name__, agent.seed, agent.offset) == ("FirstLegal", 7, 2)
    spec = f"{user_module}:FirstLegal:offset=1"
    code, out, _ = run(capsys, "evaluate", "metropolys", "--agents", f"{spec},random", "--games", "2")
    assert code == 0 and spec in out
    code, out, _ = run(capsys, "play", "metropolys", "--players", "2", "--seats", f"random,{spec}", "--quiet")
    assert code == 0 and "final scores:" in out


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("{m}:Missing", "has no class 'Missing'"),
        ("{m}:NoAct", "has no act(info_set) method"),
        ("{m}:FirstLegal:depth=3", "unexpected keyword argument 'depth'"),
        ("{m}:FirstLegal:offset", "bad parameter 'offset'"),
        ("{m}:FirstLegal:seed=3", "seed is given"),
    ],
)
def test_a_bad_user_agent_is_refused_with_the_reason(capsys, user_module, spec, message):
    code, _, err = run(capsys, "evaluate", "citadels", "--agents", spec.format(m=user_module) + ",random")
    assert code == 2 and message in err, err


def test_help_shows_the_defaults(capsys):
    with pytest.raises(SystemExit):
        cli.main(["evaluate", "--help"])
    out = " ".join(capsys.readouterr().out.split())  # help text is wrapped to the terminal width
    assert "(default: heuristic,random)" in out and "(default: 100)" in out and "(default: 2)" in out


# ===== pipes and Ctrl-C, as a shell runs the command ============================================
def test_a_closed_output_pipe_ends_quietly():
    read_end, write_end = os.pipe()
    os.close(read_end)  # like `| head -1` once head has gone: every write fails
    try:
        result = subprocess.run(command("list"), stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert result.returncode == 1 and result.stderr == ""


def test_ctrl_c_ends_quietly_with_exit_130():
    # A terminal's Ctrl-C reaches a program whose SIGINT is not ignored; a runner started in the
    # background of a shell passes SIGINT on ignored, so the child gets the default back first.
    process = subprocess.Popen(
        command("play", "citadels", "--players", "2", "--seats", "human,random"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        seen = ""
        while "your decision" not in seen:  # the game is about to wait for the person
            line = process.stdout.readline()
            assert line, process.stderr.read()
            seen += line
        os.killpg(process.pid, signal.SIGINT)  # what the terminal sends on Ctrl-C
        process.wait(timeout=60)  # stdin stays open: closing it could end the game first (no more input)
        err = process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130 and "Traceback" not in err, err


# ===== progress on long work, as a terminal and as a pipe see it ================================
def test_evaluate_on_a_terminal_shows_counts_and_the_time_left_then_the_whole_time():
    # a search with a budget in seconds makes each match last several of the bars' refreshes (a tenth of a
    # second): random matches on the native engine can all end before the first refresh shows an estimate
    agents = "ismcts:seconds=0.005,random"
    code, written = run_on_terminal(command("evaluate", "citadels", "--agents", agents, "--games", "6"))
    lines = screen_lines(written)
    assert code == 0, written
    bars = [line for line in lines if line.startswith("citadels 2p, ismcts") and "/6 matches" in line]
    assert bars and all(line.endswith("left") for line in bars), lines
    assert re.search(r"\d:\d\d:\d\d left", " ".join(bars)), bars  # an estimate once matches have ended
    assert re.fullmatch(r"6 matches in \d+ s", lines[-1]), lines


def test_quiet_keeps_a_terminal_free_of_bars():
    code, written = run_on_terminal(
        command("evaluate", "citadels", "--agents", "random,random", "--games", "20", "--quiet")
    )
    assert code == 0 and "matches left" not in written and "━" not in written and "\x1b[2K" not in written


def test_output_that_is_not_a_terminal_stays_clean():
    result = subprocess.run(
        command("evaluate", "citadels", "--agents", "random,random", "--games", "20"),
        capture_output=True,
        text=True,
        env=environment(),
        timeout=300,
    )
    assert result.returncode == 0 and result.stderr == ""
    assert "\x1b" not in result.stdout and "━" not in result.stdout
    assert result.stdout.splitlines()[-1].startswith("20 matches in ")


def test_help_names_train_the_main_job_as_the_readme_does(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    commands = " ".join(capsys.readouterr().out.split())
    assert "train the main job:" in commands and "demo the main job" not in commands


def test_list_shows_option_help_in_words(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0 and "RECONSTRUCTED" not in out and "INVEST" not in out


@pytest.mark.parametrize(
    "command", [["layout", "citadels", "--docs"], ["benchmark", "tables", "benchmarks"], ["bench", "--all", "--docs"]]
)
@pytest.mark.parametrize("page", ["missing", "folder", "fifo"])
def test_a_docs_page_that_is_not_a_regular_file_is_refused_in_one_line(tmp_path, capsys, command, page):
    """A FIFO blocked these commands forever; a folder or a missing page ended them in a traceback."""
    path = tmp_path / page
    if page == "folder":
        path.mkdir()
    elif page == "fifo":
        os.mkfifo(path)
    assert cli.main([*command, str(path)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.endswith(f"{path} is not a regular file" + (" (it does not exist)" if page == "missing" else ""))
    assert len(error.splitlines()) == 1


def test_a_path_the_system_refuses_is_one_line_not_a_traceback(tmp_path, capsys):
    """A name longer than the file system allows made `Path.is_file` raise (ENAMETOOLONG) deep inside."""
    assert cli.main(["layout", "citadels", "--docs", str(tmp_path / ("a" * 5000))]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("city-envs layout: error: [Errno") and "too long" in error and len(error.splitlines()) == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--port", "99999"], "is not a port number"),
        (["--port", "-1"], "is not a port number"),
        (["--host", "999.1.1.1"], "'999.1.1.1' is not an IP address"),
        (["--host", "::zz"], "is not an IP address"),
        (["--host", "192.0.2.1"], "cannot listen on 192.0.2.1"),  # an address of another machine
        (["--port", "in-use"], "cannot listen on 127.0.0.1"),
        (["--host", "127.0.0.1\x00"], "holds a blank or a control character"),  # bound, then uvicorn's traceback
    ],
)
def test_serve_refuses_an_address_it_cannot_listen_on_in_one_line(capsys, monkeypatch, argv, message):
    pytest.importorskip("uvicorn")
    import socket

    from city_envs.web import app

    monkeypatch.setattr(app, "serve", lambda *args, **kwargs: pytest.fail("the server started"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        argv = [str(taken.getsockname()[1]) if part == "in-use" else part for part in argv]
        code, _, err = run(capsys, "serve", *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_train_refuses_a_config_nested_too_deeply_in_one_line(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    config = tmp_path / "deep.toml"
    config.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    code, _, err = run(capsys, "train", "citadels", "--config", str(config), "--out", str(tmp_path / "run"))
    assert code == 2 and "nest too deeply" in err and len(err.strip().splitlines()) == 1, err
