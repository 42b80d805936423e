"""The agent spec (`agents/spec.py`): parsed once into a record that knows its policy file, its identity
for digests, its label and how to build itself; a bad spec is one ValueError; the web's form is restricted."""

from __future__ import annotations

import hashlib

import pytest

from city_envs.agents.citadels_heuristic import CitadelsHeuristicAgent
from city_envs.agents.ismcts import ISMCTSAgent
from city_envs.agents.policy_agent import baseline_path
from city_envs.agents.random_agent import RandomAgent
from city_envs.agents.spec import AgentSpec
from city_envs.evaluation.arena import lineup_label, policy_digests, portable_kind
from city_envs.evaluation.provenance import agent_files
from city_envs.evaluation.suite import Task


def test_each_kind_is_parsed_into_typed_options():
    assert AgentSpec.parse("random").kind == "random" and AgentSpec.parse("heuristic").kind == "heuristic"
    search = AgentSpec.parse("ismcts:iters=50:c=1.5:max_rollout=none")
    assert (search.kind, search.options) == ("ismcts", {"iters": 50, "c": 1.5, "max_rollout": None})
    guided = AgentSpec.parse("ismcts:net=ppo:iters=100:c_puct=2")
    assert (guided.kind, guided.policy, guided.options["iters"], guided.options["c_puct"]) == ("guided", None, 100, 2.0)
    assert AgentSpec.parse("ismcts:iters=3:net=runs/a.safetensors").policy == "runs/a.safetensors"
    ppo = AgentSpec.parse("ppo:runs/x.safetensors:sample")
    assert (ppo.kind, ppo.policy, ppo.flags) == ("ppo", "runs/x.safetensors", ("sample",))
    assert AgentSpec.parse("ppo:sample").policy is None
    user = AgentSpec.parse("mybots:Greedy:depth=3:greedy=true")
    assert (user.kind, user.module, user.cls) == ("user", "mybots", "Greedy")
    assert user.options == {"depth": 3, "greedy": True}


@pytest.mark.parametrize(
    "text, message",
    [
        ("genius", "unknown agent 'genius'"),
        ("random:1", "unknown agent 'random:1'"),
        ("heuristic:extra", "unknown agent"),
        ("ismcts:iters=lots", "bad value in agent parameter 'iters=lots': expected int"),
        ("ismcts:depth=3", "bad agent parameter 'depth=3'"),
        ("ismcts:net=ppo:c=2", "bad agent parameter 'c=2'"),
        ("ismcts:max_rollout=x", "expected int or none"),
        ("ppo:a.safetensors:b.safetensors", "one path at most"),
        ("mybots:Greedy:seed=3", "bad parameter 'seed=3'"),
        ("mybots:Greedy:depth", "expected key=value"),
    ],
)
def test_a_bad_spec_is_one_value_error(text, message):
    with pytest.raises(ValueError, match="^[^\n]*$") as error:
        AgentSpec.parse(text)
    assert message in str(error.value)


def test_the_policy_file_identity_and_label():
    assert AgentSpec.parse("ppo").policy_path("citadels", 2) == baseline_path("citadels", 2)
    assert AgentSpec.parse("ismcts:net=ppo").policy_path("metropolys", 4) == baseline_path("metropolys", 4)
    assert AgentSpec.parse("ismcts:iters=5").policy_path("citadels", 2) is None
    assert AgentSpec.parse("ppo").identity("ab") == "ppo:sha256=ab"
    assert AgentSpec.parse("ppo:x.safetensors:sample").identity("ab") == "ppo:sha256=ab:sample"
    assert AgentSpec.parse("ppo:sample").identity("ab") == "ppo:sha256=ab:sample"
    assert AgentSpec.parse("ismcts:net=/a/b.safetensors:iters=2").identity("ab") == "ismcts:net=sha256=ab:iters=2"
    assert AgentSpec.parse("ismcts:iters=2").identity("ab") == "ismcts:iters=2"
    assert AgentSpec.parse("ppo:runs/run1/model.safetensors:sample").label == "ppo:model"
    assert lineup_label(["ppo:/x/a.safetensors", "ppo:/y/a.safetensors:sample", "random"]) == "ppo:a v random"
    assert portable_kind("ismcts:net=/nowhere/deep/n.safetensors:iters=2") == "ismcts:net=n.safetensors:iters=2"
    assert portable_kind("not a spec: /x") == "not a spec: /x"


def test_build_makes_the_agent_the_spec_names():
    assert isinstance(AgentSpec.parse("random").build("citadels", 0), RandomAgent)
    assert isinstance(AgentSpec.parse("heuristic").build("citadels", 0), CitadelsHeuristicAgent)
    search = AgentSpec.parse("ismcts:seconds=0.5:c=1.2").build("citadels", 0)
    assert isinstance(search, ISMCTSAgent) and search.iters is None and search.exploration == 1.2


def test_the_web_form_takes_built_in_agents_only():
    assert AgentSpec.parse_built_in("ismcts:iters=5").kind == "ismcts"
    for text in ("os:system", "mybots:Greedy:x=1", "random:1"):
        with pytest.raises(ValueError, match="unknown agent"):
            AgentSpec.parse_built_in(text, "random or heuristic")
    for text in ("ppo:trust_pickle:/tmp/m.zip", "ppo:/tmp/m.zip:trust_pickle"):
        with pytest.raises(ValueError, match="trust_pickle"):
            AgentSpec.parse_built_in(text)


def test_a_guided_search_records_its_network(tmp_path):
    """benchmark.agent_files and the arena's digests name the network the search plays, the committed
    baseline's per task or the file the spec names."""
    tasks = [Task(game="metropolys", players=2), Task(game="citadels", players=2)]
    digest = lambda path: hashlib.sha256(path.read_bytes()).hexdigest()  # noqa: E731
    files = agent_files("ismcts:net=ppo:iters=100", tasks)
    assert files == {
        task.name: {"path": baseline_path(task.game, task.players).name, "sha256": digest(baseline_path(task.game, 2))}
        for task in tasks
    }
    own = tmp_path / "net.safetensors"
    own.write_bytes(baseline_path("metropolys", 2).read_bytes())
    assert agent_files(f"ismcts:net={own}:iters=5", tasks) == {"policy": {"path": own.name, "sha256": digest(own)}}
    assert policy_digests(["ismcts:net=ppo:iters=100"], "metropolys", 2) == {
        "ismcts:net=ppo:iters=100": digest(baseline_path("metropolys", 2))
    }
    assert agent_files("ismcts:iters=100", tasks) == {}
