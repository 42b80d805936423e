"""A baseline that continued another policy: publishing keeps the parent (its policy in the policy store,
its config and record in the baselines' lineage folder), the published config names it relative to its
own folder, and that config reruns from anywhere; the runs table shows the chain."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import tomli_w

pytest.importorskip("torch")

from city_envs import cli  # noqa: E402
from city_envs.agents import policy_agent  # noqa: E402
from city_envs.agents.policy_agent import baseline_path as committed_baseline  # noqa: E402
from city_envs.core.settings import read_toml  # noqa: E402
from city_envs.training import selfplay  # noqa: E402
from city_envs.training.baseline_tables import runs_table  # noqa: E402
from city_envs.training.config import TrainConfig, config_to_toml, load_config  # noqa: E402
from city_envs.training.evaluation import curve_row  # noqa: E402
from city_envs.training.lineage import keep_parent, lineage_chain  # noqa: E402
from city_envs.training.selfplay import train  # noqa: E402
from lab import privileged_ab  # noqa: E402  # imported here, before `baselines` patches BASELINES_DIR, which it binds
from tests.training.helpers import TINY  # noqa: E402

METROPOLYS_2P = committed_baseline("metropolys", 2)  # found before a test moves the baselines' folder


def quiet_evaluation(*args, **kwargs):  # the matches themselves are tested elsewhere
    return {
        kind: {"games": 4, "win_rate": 0.5, "ci95": [0.15, 0.85], "failures": 0} for kind in ("random", "heuristic")
    }


@pytest.fixture
def baselines(tmp_path, monkeypatch):
    folder = tmp_path / "baselines"
    monkeypatch.setattr(policy_agent, "BASELINES_DIR", folder)
    monkeypatch.setattr(selfplay, "evaluate_model", quiet_evaluation)
    monkeypatch.setattr(selfplay, "_evaluate_point", quick_point)
    return folder


def quick_point(config, path, stage, step, started):
    results = {"random": {"games": 2, "win_rate": 1.0, "ci95": [0.34, 1.0]}}
    results["heuristic"] = results["random"]
    return {**curve_row(stage, step, 0.0, results), "policy": str(path)}


def test_a_run_that_continued_the_baseline_keeps_it_and_reruns_from_its_published_config(
    tmp_path, baselines, monkeypatch
):
    train(TrainConfig("citadels", timesteps=64, **TINY), tmp_path / "first", log=lambda _: None)
    selfplay.publish_baseline(tmp_path / "first", games=4)
    first = policy_agent.baseline_path("citadels", 2).read_bytes()
    assert first == (tmp_path / "first" / "model.safetensors").read_bytes()
    continued = TrainConfig("citadels", timesteps=64, init_from=str(policy_agent.baseline_path("citadels", 2)), **TINY)
    train(continued, tmp_path / "second", log=lambda _: None)
    record = selfplay.publish_baseline(tmp_path / "second", games=4)

    kept = baselines / record["init_from"]
    digest = hashlib.sha256(first).hexdigest()
    assert record["init_from"] == f"policies/{digest}.safetensors" and kept.read_bytes() == first
    assert policy_agent.baseline_path("citadels", 2) == baselines / "policies" / f"{record['policy']}.safetensors"
    assert read_toml(baselines / "citadels_2p.toml")["init_from"] == record["init_from"]  # relative: ships in a wheel
    parent = baselines / "lineage" / f"citadels_2p_{digest[:12]}"
    assert read_toml(parent.with_suffix(".toml"))["init_from"] == ""  # the parent's own config and record came along
    assert json.loads(parent.with_suffix(".json").read_text())["policy"] == digest
    assert lineage_chain(baselines / "citadels_2p") == [parent, baselines / "citadels_2p"]

    monkeypatch.chdir(tmp_path / "first")  # another working directory: the config's folder is what counts
    config = load_config("citadels", baselines / "citadels_2p.toml")
    assert config.init_from == str(kept)
    summary = selfplay.retrain_baseline(baselines / "citadels_2p.toml", tmp_path / "rerun", log=lambda _: None)
    assert summary["timesteps"] == 64


def test_a_chain_of_runs_is_kept_whole_and_a_loop_is_refused(tmp_path):
    train(TrainConfig("citadels", timesteps=64, **TINY), tmp_path / "a", log=lambda _: None)
    b = TrainConfig("citadels", timesteps=64, init_from=str(tmp_path / "a" / "model.safetensors"), **TINY)
    train(b, tmp_path / "b", log=lambda _: None)
    kept = keep_parent(tmp_path / "b" / "model.safetensors", tmp_path / "baselines", "citadels_2p")
    assert (tmp_path / "baselines" / kept).read_bytes() == (tmp_path / "b" / "model.safetensors").read_bytes()
    parent = tmp_path / "baselines" / "lineage" / f"citadels_2p_{Path(kept).stem[:12]}"
    grandparent, _ = lineage_chain(parent)
    stored = parent.parent / read_toml(parent.with_suffix(".toml"))["init_from"]
    assert stored.read_bytes() == (tmp_path / "a" / "model.safetensors").read_bytes()
    assert read_toml(grandparent.with_suffix(".toml"))["init_from"] == ""
    for record_stem, run in ((parent, "b"), (grandparent, "a")):  # records made from the run folders
        record = json.loads(record_stem.with_suffix(".json").read_text())
        assert (
            record["training"]["timesteps"] == json.loads((tmp_path / run / "evaluation.json").read_text())["timesteps"]
        )

    config = read_toml(tmp_path / "a" / "config.toml")  # a run whose config names its own model: a loop
    config["init_from"] = "model.safetensors"
    (tmp_path / "a" / "config.toml").write_text(config_to_toml(TrainConfig(**config)))
    with pytest.raises(ValueError, match="comes back to it"):
        keep_parent(tmp_path / "a" / "model.safetensors", tmp_path / "elsewhere", "citadels_2p")
    with pytest.raises(ValueError, match="is not a file"):
        keep_parent(tmp_path / "missing.safetensors", tmp_path / "elsewhere", "citadels_2p")


def test_an_init_from_in_a_file_is_read_from_its_folder_and_an_override_from_the_working_directory(
    tmp_path, monkeypatch
):
    (tmp_path / "configs").mkdir()
    path = tmp_path / "configs" / "run.toml"
    path.write_text('game = "citadels"\ninit_from = "parents/start.safetensors"\npretrain = false\n')
    assert load_config("citadels", path).init_from == str(tmp_path / "configs" / "parents" / "start.safetensors")
    monkeypatch.chdir(tmp_path)
    overridden = load_config("citadels", path, init_from="mine.safetensors")
    assert overridden.init_from == str(tmp_path / "mine.safetensors")
    # a run folder's copy of the config (what publishing reads) names the same file, not one beside it
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "config.toml").write_text(config_to_toml(overridden))
    assert load_config("citadels", tmp_path / "run" / "config.toml").init_from == str(tmp_path / "mine.safetensors")
    relative = load_config("citadels", "configs/run.toml")  # a config named from the working directory
    assert relative.init_from == str(tmp_path / "configs" / "parents" / "start.safetensors")
    path.write_text(f'game = "citadels"\ninit_from = "{tmp_path / "abs.safetensors"}"\npretrain = false\n')
    assert load_config("citadels", path).init_from == str(tmp_path / "abs.safetensors")


def test_the_runs_table_shows_the_policy_a_baseline_continued_above_it(tmp_path, baselines, monkeypatch):
    from city_envs.training import baseline_tables

    evaluated = {**TINY, "eval_every": 64, "eval_games": 2}
    train(TrainConfig("citadels", timesteps=64, **evaluated), tmp_path / "first", log=lambda _: None)
    selfplay.publish_baseline(tmp_path / "first", games=4)
    continued = {**evaluated, "init_from": str(policy_agent.baseline_path("citadels", 2)), "privileged_critic": True}
    train(TrainConfig("citadels", timesteps=64, **continued), tmp_path / "second", log=lambda _: None)
    selfplay.publish_baseline(tmp_path / "second", games=4)
    monkeypatch.setattr(baseline_tables, "GAMES", ("citadels",))
    monkeypatch.setattr(baseline_tables, "PLAYER_COUNTS", (2,))
    rows = runs_table().splitlines()[2:]
    assert len(rows) == 2
    assert rows[0].startswith("| Citadels 2p, the start of the next row |")
    assert rows[1].startswith("| Citadels 2p (privileged critic, continues the previous policy) | — | 0k steps")


def test_publishing_a_finished_run_checks_it_first(tmp_path, baselines, capsys, monkeypatch):
    from city_envs.training import baseline_tables

    monkeypatch.setattr(baseline_tables, "PAGES", ())  # the checkout's pages stay as they are
    train(TrainConfig("citadels", timesteps=64, **TINY), tmp_path / "run", log=lambda _: None)
    for argv, message in [
        (["metropolys", "--from-run", str(tmp_path / "run")], "is a run of citadels with 2 players, not metropolys"),
        (["citadels", "--players", "4", "--from-run", str(tmp_path / "run")], "not citadels with 4"),
        (["citadels", "--from-run", str(tmp_path / "none")], "not a finished run: config.toml, model.safetensors"),
        (["citadels", "--from-run", str(tmp_path / "run"), "--out", "x"], "takes no --out"),
        (["citadels", "--from-run", str(tmp_path / "run"), "--reference"], "publishes no --from-run"),
        (["--tables", "--from-run", str(tmp_path / "run")], "no --reference or --from-run"),
    ]:
        assert cli.main(["baseline", *argv]) == 2
        assert message in capsys.readouterr().err
    assert not baselines.exists()
    start = tmp_path / "start.safetensors"
    start.write_bytes((tmp_path / "run" / "model.safetensors").read_bytes())
    continued = TrainConfig("citadels", timesteps=64, init_from=str(start), **TINY)
    train(continued, tmp_path / "continued", log=lambda _: None)
    start.unlink()  # the policy it continued is gone: refused before any match
    monkeypatch.setattr(selfplay, "evaluate_model", lambda *args, **kwargs: pytest.fail("evaluated"))
    assert cli.main(["baseline", "citadels", "--from-run", str(tmp_path / "continued")]) == 2
    assert f"continued {start}, which is gone" in capsys.readouterr().err
    monkeypatch.setattr(selfplay, "evaluate_model", quiet_evaluation)
    assert cli.main(["baseline", "citadels", "--from-run", str(tmp_path / "run"), "--games", "4"]) == 0
    assert (
        policy_agent.baseline_path("citadels", 2).read_bytes() == (tmp_path / "run" / "model.safetensors").read_bytes()
    )


def test_the_privileged_ab_warm_start_of_a_continued_baseline_is_its_first_policy_s(tmp_path, baselines, monkeypatch):
    train(TrainConfig("citadels", timesteps=64, **TINY), tmp_path / "first", log=lambda _: None)
    selfplay.publish_baseline(tmp_path / "first", games=4)
    continued = TrainConfig("citadels", timesteps=64, init_from=str(policy_agent.baseline_path("citadels", 2)), **TINY)
    train(continued, tmp_path / "second", log=lambda _: None)
    record = selfplay.publish_baseline(tmp_path / "second", games=4)
    monkeypatch.setattr(privileged_ab, "BASELINES", baselines)
    warm, *arms = privileged_ab.plan(tmp_path / "ab", "citadels_2p", 64, "warm")
    root = str(baselines / "lineage" / f"citadels_2p_{Path(record['init_from']).stem[:12]}.toml")
    assert warm.args[warm.args.index("--config") + 1] == root
    assert all(step.args[step.args.index("--config") + 1] == root for step in arms)
    first, *_ = privileged_ab.plan(tmp_path / "ab", "citadels_2p", 64, "baseline")
    assert first.args[first.args.index("--config") + 1] == str(baselines / "citadels_2p.toml")


@pytest.fixture
def finished_run(tmp_path, baselines, monkeypatch):
    """A finished run of citadels at 2 players, and a published baseline whose files must stay untouched."""
    from city_envs.training import baseline_tables

    monkeypatch.setattr(baseline_tables, "PAGES", ())  # the checkout's pages stay as they are
    train(TrainConfig("citadels", timesteps=64, **TINY), tmp_path / "run", log=lambda _: None)
    selfplay.publish_baseline(tmp_path / "run", games=4)
    return tmp_path / "run"


def published(baselines) -> dict:
    return {p.relative_to(baselines): p.read_bytes() for p in sorted(baselines.rglob("*")) if p.is_file()}


def set_config(run, **values) -> None:
    config = read_toml(run / "config.toml")
    (run / "config.toml").write_text(tomli_w.dumps({**config, **values}))


EVIL_TEACHER = "import pathlib\npathlib.Path(__file__).with_name('ran').write_text('x')\nclass Agent: pass\n"


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("pickle_teacher", "would run code named in a file"),
        ("module_teacher", "would run code named in a file"),
        ("init_from_outside", "lies outside the run folder"),
        ("init_from_not_a_policy", "is not a policy file"),
        ("evaluation_not_an_object", "not a run's evaluation"),
        ("evaluation_nested", "nests too deeply"),
        ("evaluation_negative_time", "not a count or time >= 0"),
        ("model_not_a_policy", "model.safetensors"),
        ("model_of_another_game", "but it is asked to play citadels"),
        ("curve_field_over_csv_limit", "is not a curve CSV"),
        ("curve_stage_script", "is not a curve's"),
        ("curve_negative_win_rate", "not a finite figure >= 0"),
        ("curve_png_link_out", "is not a regular file"),
    ],
)
def test_a_run_folder_decides_no_code_and_no_file_copied(finished_run, baselines, capsys, monkeypatch, case, message):
    run, before = finished_run, published(baselines)
    monkeypatch.chdir(run)
    monkeypatch.syspath_prepend(str(run))
    if case == "pickle_teacher":
        set_config(run, pretrain=True, teacher=f"ppo:{run / 'model.zip'}:trust_pickle", dagger_rounds=1)
    elif case == "module_teacher":
        (run / "evilteacher.py").write_text(EVIL_TEACHER)
        set_config(run, pretrain=True, teacher="evilteacher:Agent", dagger_rounds=1)
    elif case == "init_from_outside":
        outside = run.parent / "elsewhere.safetensors"
        outside.write_bytes((run / "model.safetensors").read_bytes())
        set_config(run, init_from=str(outside))
    elif case == "init_from_not_a_policy":
        (run / "parent.safetensors").write_text("root:x:0:0:root:/root:/bin/bash\n")
        set_config(run, init_from="parent.safetensors")
    elif case == "evaluation_not_an_object":
        (run / "evaluation.json").write_text("[1, 2]")
    elif case == "evaluation_nested":
        (run / "evaluation.json").write_text("[" * 100_000 + "]" * 100_000)
    elif case == "evaluation_negative_time":
        record = json.loads((run / "evaluation.json").read_text())
        (run / "evaluation.json").write_text(json.dumps({**record, "ppo_seconds": -5}))
    elif case == "model_not_a_policy":
        (run / "model.safetensors").write_text("root:x:0:0:root:/root:/bin/bash\n")
    elif case == "model_of_another_game":
        (run / "model.safetensors").write_bytes(METROPOLYS_2P.read_bytes())
    elif case.startswith("curve_") and case != "curve_png_link_out":
        header = ["stage", "step", "seconds", "win_rate_vs_random", "ci_low_vs_random", "games_vs_random"]
        row = ["ppo", "64", "1.0", "0.5", "0.2", "4"]
        lines = [",".join(header), ",".join(row)]
        if case == "curve_field_over_csv_limit":
            row[header.index("stage")] = "x" * 200_000
        elif case == "curve_stage_script":
            row[header.index("stage")] = "<script>alert(1)</script>"
        else:
            row[header.index("win_rate_vs_random")] = "-0.5"
        lines.append(",".join(row))
        (run / "curve.csv").write_text("\n".join(lines) + "\n")
    else:
        (run / "learning_curve.png").unlink(missing_ok=True)
        (run / "learning_curve.png").symlink_to("/etc/passwd")
    monkeypatch.setattr(selfplay, "evaluate_model", lambda *args, **kwargs: pytest.fail("evaluated"))
    assert cli.main(["baseline", "citadels", "--from-run", str(run)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (run / "ran").exists()
    assert published(baselines) == before  # nothing copied into the lineage, nothing overwritten


def test_publishing_is_all_or_nothing(finished_run, baselines, monkeypatch):
    before = published(baselines)
    second = finished_run.parent / "second"
    train(TrainConfig("citadels", timesteps=64, seed=1, **TINY), second, log=lambda _: None)

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(selfplay, "config_to_toml", broken)  # fails after the policy is written
    with pytest.raises(OSError, match="disk full"):
        selfplay.publish_baseline(second, games=4)
    assert published(baselines) == before
    assert not [p for p in baselines.iterdir() if p.name.startswith(".")]  # no temporary folder left
