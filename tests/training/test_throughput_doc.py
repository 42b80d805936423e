"""The throughput benchmark's tables are made from their JSON (one section per JSON file; that the
committed ones are current, `tests/lab/test_sections.py`), and its command line's doors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from city_envs.training import throughput  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ROWS = [
    {
        "game": "metropolys",
        "players": 4,
        "steps": 8192,
        "reference_steps_per_s": 120,
        "default_steps_per_s": 600,
        "ratio": 5.0,
        "workers": {"2": 900},
        "workers_speedup": {"2": 1.5},
    },
    {
        "game": "big_city",
        "players": 4,
        "steps": 8192,
        "reference_steps_per_s": 1234,
        "default_steps_per_s": 2000,
        "ratio": 1.62,
        "workers": {"2": 2500},
        "workers_speedup": {"2": 1.25},
    },
]


def test_the_4_player_table_is_measured():
    assert (ROOT / "docs" / "throughput_4p.json").is_file()


def test_the_table_has_each_worker_count_beside_one_process():
    assert throughput.table(ROWS).splitlines() == [
        "| game (4 players, 8,192 steps each) | reference env steps/s | default (1 worker) env steps/s | ratio "
        "| 2 workers env steps/s | 2 workers / 1 worker |",
        "|---|---|---|---|---|---|",
        "| metropolys | 120 | 600 | 5.0x | 900 | 1.5x |",
        "| big_city | 1,234 | 2,000 | 1.62x | 2,500 | 1.25x |",
    ]


def test_from_json_rewrites_only_its_own_section(tmp_path):
    """A page holds one generated table per JSON file: writing one leaves the others as they are."""
    rows_4p = tmp_path / "throughput_4p.json"
    rows_4p.write_text(json.dumps(ROWS))
    rows_2p = tmp_path / "throughput_2p.json"
    rows_2p.write_text(json.dumps([{**row, "players": 2, "workers": {}, "workers_speedup": {}} for row in ROWS]))
    page = tmp_path / "page.md"
    sections = {
        name: f"<!-- tables:{throughput.section_name(name)} -->\n<!-- /tables:{throughput.section_name(name)} -->"
        for name in ("throughput_2p.json", "throughput_4p.json")
    }
    page.write_text(f"intro\n{sections['throughput_2p.json']}\nmiddle\n{sections['throughput_4p.json']}\noutro\n")
    assert throughput.main(["--from-json", str(rows_4p), "--doc", str(page)]) == 0
    text = page.read_text()
    assert text.startswith(f"intro\n{sections['throughput_2p.json']}\nmiddle\n") and text.endswith("\noutro\n")
    assert throughput.doc_section(ROWS, str(rows_4p)) in text and "[throughput_4p.json](throughput_4p.json)" in text
    assert throughput.main(["--from-json", str(rows_2p), "--doc", str(page)]) == 0
    text = page.read_text()
    assert throughput.doc_section(ROWS, str(rows_4p)) in text
    two = throughput.doc_section(json.loads(rows_2p.read_text()), str(rows_2p))
    assert two in text and text.index(two) < text.index("\nmiddle\n")
    assert (
        "| game (2 players, 8,192 steps each) | reference env steps/s | default (1 worker) env steps/s | ratio |" in two
    )
    assert "| big_city | 1,234 | 2,000 | 1.62x |\n" in two
    other = tmp_path / "other.json"
    other.write_text(json.dumps(ROWS))
    with pytest.raises(SystemExit):
        throughput.main(["--from-json", str(other), "--doc", str(page)])
    page.write_text("no markers\n")
    with pytest.raises(SystemExit):
        throughput.main(["--from-json", str(rows_4p), "--doc", str(page)])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--workers", "1,x"], "comma-separated worker counts"),
        (["--workers", "0,2"], "worker counts are 1 to 64"),
        (["--games", "metropolys", "--players", "9"], "--players 9: metropolys"),
        (["--doc", "x.md"], "--doc needs --out"),
        (["--from-json", "x.json"], "--from-json only writes a --doc"),
        (["--batch", "--workers", "1,2"], "--batch and --split measure one process, no --doc"),
        (["--batch", "--out", "x.json", "--doc", "x.md"], "--batch and --split measure one process, no --doc"),
        (["--split", "--workers", "1,2"], "--batch and --split measure one process, no --doc"),
        (["--split", "--batch"], "--batch, --split and --goal are three measurements"),
        (
            ["--out", "x.json", "--doc", "no/such/page.md"],
            "--doc no/such/page.md: no/such/page.md is not a regular file (it does not exist)",
        ),
        (["--out", "x.json", "--doc", str(ROOT / "README.md")], "README.md has no <!-- tables:x --> section"),
        (["--out", "x.json", "--doc", str(ROOT / "docs" / "training.md")], "training.md has no <!-- tables:x -->"),
    ],
)
def test_wrong_arguments_are_one_clear_error(argv, message, capsys):
    with pytest.raises(SystemExit):
        throughput.main(argv)
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_batch_mode_measures_selfplay_vec_env_beside_the_native_batch(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(throughput, "DEFAULT", {"n_envs": 2, "n_steps": 32, "batch_size": 32})
    out = tmp_path / "batch.json"
    assert throughput.main(["--batch", "--games", "citadels", "--steps", "64", "--out", str(out)]) == 0
    (row,) = json.loads(out.read_text())
    assert row["game"] == "citadels" and row["steps"] == 64
    assert row["selfplay_steps_per_s"] > 0 and row["batch_steps_per_s"] > 0
    assert "| game | SelfPlayVecEnv env steps/s | native batch env steps/s | ratio |" in capsys.readouterr().out


def test_split_mode_says_where_a_learning_steps_cpu_time_goes(monkeypatch, capsys, tmp_path):
    """On the default env (the native batch) with a snapshot in the pool: every part took time, and the
    parts with the rest make up the whole."""
    pytest.importorskip("sb3_contrib")
    from city_envs.core.vector import batch_available

    if not batch_available("citadels"):
        pytest.skip("the native engine is not built")
    monkeypatch.setattr(throughput, "DEFAULT", {"n_envs": 2, "n_steps": 16, "batch_size": 16})
    monkeypatch.setattr(throughput, "POOL", {"self": 1.0})
    out = tmp_path / "split.json"
    assert throughput.main(["--split", "--games", "citadels", "--steps", "32", "--out", str(out)]) == 0
    (row,) = json.loads(out.read_text())
    assert row["game"] == "citadels" and row["steps"] == 32 and row["steps_per_s"] > 0
    assert all(row["shares"][key] > 0 for key in throughput.SPLIT_PARTS)
    assert row["shares"]["snapshot_forward"] <= row["shares"]["env"]  # a part of it (equal once rounded, at most)
    parts = row["shares"]["env"] + row["shares"]["learner_forward"] + row["shares"]["update"] + row["shares"]["other"]
    assert parts == pytest.approx(1.0, abs=0.01)
    assert "| game | players | env steps/s | env | of it snapshot forwards |" in capsys.readouterr().out


GOAL_ROWS = [
    {
        "game": "metropolys",
        "players": 2,
        "steps": 8192,
        "candidate": {"n_epochs": 1},
        "issue_steps_per_s": 200,
        "default_steps_per_s": 400,
        "candidate_steps_per_s": 1000,
        "issue_cpu_ms_per_step": 5.0,
        "default_cpu_ms_per_step": 2.5,
        "candidate_cpu_ms_per_step": 1.0,
        "issue_update_cpu_ms_per_step": 3.0,
        "default_update_cpu_ms_per_step": 2.0,
        "candidate_update_cpu_ms_per_step": 0.5,
        "default_ratio": 2.0,
        "candidate_ratio": 5.0,
    },
    {
        "game": "citadels",
        "players": 4,
        "steps": 8192,
        "candidate": {"n_epochs": 1},
        "issue_steps_per_s": 500,
        "default_steps_per_s": 800,
        "candidate_steps_per_s": 1800,
        "issue_cpu_ms_per_step": 0.4,
        "default_cpu_ms_per_step": 0.25,
        "candidate_cpu_ms_per_step": 0.13,
        "default_ratio": 1.6,
        "candidate_ratio": 3.6,
    },
]


def test_the_goal_table_gives_both_ratios_to_the_issues_default_and_names_the_candidate(tmp_path):
    assert throughput.goal_table(GOAL_ROWS).splitlines() == [
        "| game | players | (a) issue default env steps/s | (b) today's default env steps/s "
        "| (c) candidate env steps/s | b/a | c/a | CPU ms per step a / b / c | of it PPO's update a / b / c "
        "| by CPU b/a | by CPU c/a |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        "| metropolys | 2 | 200 | 400 | 1,000 | 2.0x | 5.0x | 5.00 / 2.50 / 1.00 | 3.00 / 2.00 / 0.50 | 2.00x "
        "| 5.00x |",
        "| citadels | 4 | 500 | 800 | 1,800 | 1.6x | 3.6x | 0.40 / 0.25 / 0.13 | - / - / - | 1.60x | 3.08x |",
        "",
        "8,192 env steps each; the candidate: n_epochs = 1. By CPU time, today's default 1.60-2.00x and the "
        "candidate 3.08-5.00x the issue's default; at 5x or more: the candidate in metropolys 2p. Today's "
        "default spends 2.00-2.00 CPU ms a step in PPO's update alone, so with today's PPO settings even an env "
        "and rollouts that cost nothing would give at most 2.50-2.50x.",
    ]
    untimed = [{k: v for k, v in row.items() if "update" not in k} for row in GOAL_ROWS]  # measured before
    assert "PPO's update" not in throughput.goal_table(untimed)
    assert throughput.goal_table(untimed).splitlines()[2].endswith("| 5.00 / 2.50 / 1.00 | 2.00x | 5.00x |")
    source = tmp_path / "throughput_goal.json"
    source.write_text(json.dumps(GOAL_ROWS))
    page = tmp_path / "page.md"
    page.write_text("<!-- tables:throughput-goal -->\n<!-- /tables:throughput-goal -->\n")
    assert throughput.main(["--from-json", str(source), "--doc", str(page)]) == 0
    assert throughput.goal_table(GOAL_ROWS) in page.read_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--candidate", "n_epochs=1"], "--candidate is the recipe --goal measures"),
        (["--goal", "--split"], "three measurements"),
        (["--goal", "--workers", "1,2"], "--goal measures the trainer's own env"),
        (["--goal", "--games", "citadels", "--candidate", "n_epochs=0"], "n_epochs = 0"),
        (["--goal", "--games", "citadels", "--candidate", "no_such_key=1"], "--candidate"),
        (["--goal", "--games", "citadels", "--candidate", "n_epochs"], "not of the form KEY=VALUE"),
        (["--repeats", "3"], "--repeats repeats the --goal measurement"),
        (["--goal", "--repeats", "0"], "--repeats must be at least 1"),
    ],
)
def test_wrong_goal_arguments_are_one_clear_error(argv, message, capsys):
    with pytest.raises(SystemExit):
        throughput.main(argv)
    assert message in capsys.readouterr().err


def test_goal_mode_measures_the_issues_default_todays_and_a_candidate(monkeypatch, tmp_path):
    """Small configs (2 matches, rollouts of 16 steps): the issue's arm steps the Python engine, the others
    the trainer's env, and the candidate's overrides are recorded."""
    from city_envs.core import native
    from city_envs.training import config as config_module
    from city_envs.training import vec_env

    def small(game: str, **overrides):
        return config_module.load_config(game, **{"n_envs": 2, "n_steps": 16, "batch_size": 16, **overrides})

    engines = []
    made = vec_env.make_game

    def recording_make_game(*args, **kwargs):
        game = made(*args, **kwargs)
        engines.append(isinstance(game, native.NativeGame))
        return game

    monkeypatch.setattr(throughput, "load_config", small)
    monkeypatch.setattr(vec_env, "make_game", recording_make_game)
    out = tmp_path / "goal.json"
    argv = ["--goal", "--games", "citadels", "--steps", "32", "--candidate", "n_epochs=1", "--out", str(out)]
    assert throughput.main(argv) == 0
    (row,) = json.loads(out.read_text())
    assert row["candidate"] == {"n_epochs": 1} and row["steps"] == 32
    assert all(row[f"{arm}_steps_per_s"] > 0 and row[f"{arm}_cpu_ms_per_step"] > 0 for arm in throughput.GOAL_ARMS)
    assert row["default_ratio"] == pytest.approx(row["default_steps_per_s"] / row["issue_steps_per_s"], abs=0.02)
    assert engines and not any(engines)  # SelfPlayVecEnv's matches, all on the Python engine


def test_the_issues_arm_computes_the_entity_head_as_it_was_then_and_the_others_as_now(monkeypatch):
    """Arm (a) runs the entity head's old forward pass (the shared inputs copied to every entity), which gives
    the same logits as today's; arms (b) and (c) run today's."""
    import torch

    from city_envs.agents.entity_policy import EntityActionNet
    from city_envs.agents.policy_file import build_policy
    from city_envs.training import config as config_module

    config = config_module.load_config("metropolys", players=2)
    probe = throughput.make_game("metropolys", 2, seed=0)
    torch.manual_seed(0)
    policy = build_policy(
        probe.observation_shape, probe.num_actions, [32], "tanh", {**config.entity_head_spec(), "hidden": [16]}
    )
    net = policy.action_net
    with torch.no_grad():
        torch.nn.init.normal_(net.scorer[-1].weight)
        inputs = torch.cat([torch.randn(4, net.latent_dim), torch.rand(4, probe.observation_shape[0])], dim=1)
        assert torch.allclose(throughput.forward_as_at_issue(net, inputs), net(inputs), atol=1e-5)

    def small(game: str, **overrides):
        return config_module.load_config(game, **{"n_envs": 2, "n_steps": 16, "batch_size": 16, **overrides})

    calls: list[str] = []
    issue_forward, today_forward = throughput.forward_as_at_issue, EntityActionNet.forward

    def recording_issue(net, inputs):
        calls.append("issue")
        return issue_forward(net, inputs)

    def recording_today(net, inputs):
        calls.append("today")
        return today_forward(net, inputs)

    monkeypatch.setattr(throughput, "load_config", small)
    monkeypatch.setattr(throughput, "forward_as_at_issue", recording_issue)
    monkeypatch.setattr(EntityActionNet, "forward", recording_today)
    arms: list[list[str]] = []
    learn = throughput._learn_config

    def per_arm(*args, **kwargs):
        calls.clear()
        result = learn(*args, **kwargs)
        arms.append(sorted(set(calls)))
        return result

    monkeypatch.setattr(throughput, "_learn_config", per_arm)
    row = throughput.measure_goal("metropolys", 2, steps=32, candidate={"n_epochs": 1})
    assert arms == [["issue"], ["today"], ["today"]]
    for arm in throughput.GOAL_ARMS:  # PPO's update is part of each arm's CPU time, and timed
        assert 0 < row[f"{arm}_update_cpu_ms_per_step"] < row[f"{arm}_cpu_ms_per_step"]


def test_the_goal_rows_are_printed_as_the_table_they_make(monkeypatch, capsys):
    timed = [GOAL_ROWS[0], {**GOAL_ROWS[0], "game": "citadels"}]  # one measurement times every row
    measured = iter(timed)
    monkeypatch.setattr(throughput, "measure_goal", lambda *args: next(measured))
    assert throughput._goal_rows(["metropolys", "citadels"], 2, 8192, {"n_epochs": 1}) == timed
    assert capsys.readouterr().out.splitlines() == throughput.goal_table(timed).splitlines()[:4]


def test_repeats_take_the_arms_in_turns_sum_them_and_give_each_cpu_ratio_an_interval(monkeypatch, tmp_path):
    order: list[str] = []
    cpu_seconds = {"issue": [4.0, 4.4, 3.6], "default": [2.0, 2.0, 2.0], "candidate": [1.0, 1.1, 0.9]}

    def fake_learn(config, pool, as_at_issue):
        arm = "issue" if as_at_issue else ("candidate" if config.n_epochs == 1 else "default")
        order.append(arm)
        cpu = cpu_seconds[arm][sum(1 for a in order if a == arm) - 1]
        return 1000, 2 * cpu, cpu, cpu / 2  # steps, wall, CPU and update seconds

    monkeypatch.setattr(throughput, "_learn_config", fake_learn)
    row = throughput.measure_goal("citadels", 2, steps=1000, candidate={"n_epochs": 1}, repeats=3)
    assert order == ["issue", "default", "candidate", "candidate", "default", "issue", "issue", "default", "candidate"]
    assert row["repeats"] == 3 and row["issue_cpu_ms_per_step"] == 4.0 and row["candidate_cpu_ms_per_step"] == 1.0
    assert row["default_ratio"] == 2.0 and row["issue_update_cpu_ms_per_step"] == 2.0
    low, high = row["default_by_cpu_interval"]
    assert 1.8 <= low < 2.0 < high <= 2.2  # the issue's repeats spread, today's do not
    assert row["candidate_by_cpu_interval"] == [4.0, 4.0]  # its pairs drift together: their ratio holds
    table = throughput.goal_table([row])
    assert f"| 2.00x ({low:.2f}-{high:.2f}) | 4.00x (" in table
    assert "1,000 env steps each, 3 times in turns (in brackets, the 95% bootstrap interval" in table
    order.clear()
    once = throughput.measure_goal("citadels", 2, steps=1000, candidate={"n_epochs": 1})
    assert "default_by_cpu_interval" not in once and "times in turns" not in throughput.goal_table([once])
