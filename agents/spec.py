"""An agent spec, the one spelling of an agent everywhere (command line, arena, benchmark, trainer, web app):

- `random`, `heuristic`;
- `ismcts[:iters=N|:seconds=S][:c=X][:max_rollout=N|none][:rollout=random|heuristic][:bias=X]
  [:opponents=heuristic|search]`;
- `ismcts:net=PATH|ppo[:iters=N|:seconds=S][:c_puct=X][:temperature=T][:batch=K]`, the search guided
  by a policy file's actor and critic (`agents/guided_ismcts.py`);
- `ppo[:PATH][:sample][:trust_pickle]`, a policy file (by default the committed baseline of the game
  and player count; an SB3 `.zip` only with `:trust_pickle`, since opening one can run code);
- `module:Class[:key=value...]`, a class of the user's, built as `Class(seed=seed, key=value, ...)`.

`AgentSpec.parse(text)` reads a spec once (a bad one is one ValueError); the record knows the policy
file it plays (`policy_path`), its identity for digests (`identity`), its label and how to build itself
(`build`). `AgentSpec.parse_built_in` is the restricted form a web form may ask for: nothing that
imports code or unpickles a file.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from city_envs.agents.base import Agent
from city_envs.agents.heuristics import heuristic_class
from city_envs.agents.random_agent import RandomAgent
from city_envs.core.settings import parse_value

AGENT_KINDS = ("random", "heuristic", "ismcts", "ppo")
PPO_FLAGS = ("sample", "trust_pickle")


def _int_or_none(text: str) -> int | None:
    """An integer, or `none` for no limit (`max_rollout=none`: rollouts to the end)."""
    return None if text.lower() == "none" else int(text)


_int_or_none.__name__ = "int or none"
# `ismcts:key=value:...` parameters and their types
ISMCTS_PARAMS: dict[str, Callable[[str], object]] = {
    "iters": int,
    "seconds": float,
    "c": float,
    "max_rollout": _int_or_none,
    "rollout": str,
    "bias": float,
    "opponents": str,
}
# `ismcts:net=PATH|ppo:...`: the network-guided search and its parameters
GUIDED_ISMCTS_PARAMS: dict[str, Callable[[str], object]] = {
    "net": str,
    "iters": int,
    "seconds": float,
    "c_puct": float,
    "temperature": float,
    "batch": int,
}


def parse_params(spec: str, allowed: Mapping[str, Callable[[str], object]]) -> dict:
    """`key=value:key=value` to typed keyword arguments; unknown keys or bad values raise ValueError."""
    params = {}
    for part in filter(None, spec.split(":")):
        key, _, text = part.partition("=")
        if key not in allowed or not text:
            raise ValueError(f"bad agent parameter {part!r}; allowed: {', '.join(f'{k}=...' for k in allowed)}")
        try:
            params[key] = allowed[key](text)
        except ValueError:
            raise ValueError(f"bad value in agent parameter {part!r}: expected {allowed[key].__name__}") from None
    return params


def is_user_agent(text: str) -> bool:
    """Whether `text` names a class (`module:Class...`) rather than a built-in agent."""
    name, _, rest = text.partition(":")
    return name not in AGENT_KINDS and rest.partition(":")[0].isidentifier()


Kind = Literal["random", "heuristic", "ismcts", "guided", "ppo", "user"]


@dataclass(frozen=True)
class AgentSpec:
    """One parsed agent spec: `text` as given, its `kind`, typed `options` (the search's parameters or a
    user class's keyword arguments), the policy file it names (`policy`, None for the committed
    baseline), the ppo agent's `flags`, and a user agent's `module` and `cls`."""

    text: str
    kind: Kind
    options: dict[str, Any] = field(default_factory=dict, hash=False)
    policy: str | None = None
    flags: tuple[str, ...] = ()
    module: str = ""
    cls: str = ""

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        """The spec `text` spells; ValueError naming what is allowed for anything else."""
        if is_user_agent(text):
            return cls._parse_user(text)
        name, _, rest = text.partition(":")
        if name == "random" and not rest:
            return cls(text, "random")
        if name == "heuristic" and not rest:
            return cls(text, "heuristic")
        if name == "ismcts" and any(part.startswith("net=") for part in rest.split(":")):
            options = parse_params(rest, GUIDED_ISMCTS_PARAMS)
            net = str(options["net"])
            return cls(text, "guided", options, policy=None if net == "ppo" else net)
        if name == "ismcts":
            return cls(text, "ismcts", parse_params(rest, ISMCTS_PARAMS))
        if name == "ppo":
            parts = [part for part in rest.split(":") if part]
            flags = tuple(part for part in parts if part in PPO_FLAGS)
            paths = [part for part in parts if part not in PPO_FLAGS]
            if len(paths) > 1:
                raise ValueError(f"bad ppo spec {text!r}: one path at most, then flags {', '.join(PPO_FLAGS)}")
            return cls(text, "ppo", policy=paths[0] if paths else None, flags=flags)
        raise ValueError(f"unknown agent {text!r}; allowed: {', '.join(AGENT_KINDS)}, or module:Class[:key=value...]")

    @classmethod
    def _parse_user(cls, text: str) -> AgentSpec:
        module, _, rest = text.partition(":")
        class_name, _, spec = rest.partition(":")
        options: dict[str, object] = {}
        for part in filter(None, spec.split(":")):
            key, sep, value = part.partition("=")
            if not sep or not key.isidentifier() or key == "seed":
                raise ValueError(f"bad parameter {part!r} in agent {text!r}: expected key=value (seed is given)")
            options[key] = parse_value(value)
        return cls(text, "user", options, module=module, cls=class_name)

    @classmethod
    def parse_built_in(
        cls, text: str, allowed: str = "random, heuristic, ismcts[:...] or ppo[:PATH][:sample]"
    ) -> AgentSpec:
        """A built-in agent only, what a web form may ask for: no user class (importing code), no
        `trust_pickle` (unpickling a file); `allowed` says what is, in the refusal."""
        name, _, rest = text.partition(":")
        if not (name in ("ismcts", "ppo") or name in ("random", "heuristic") and not rest):
            raise ValueError(f"unknown agent {text!r}; allowed here: {allowed}")
        spec = cls.parse(text)
        if "trust_pickle" in spec.flags:
            raise ValueError(f"{text!r}: a pickled policy (trust_pickle) is refused here; allowed here: {allowed}")
        return spec

    # ----- files and identity ---------------------------------------------------------------------
    def plays_policy(self) -> bool:
        """Whether the agent plays a policy file (`ppo...` or the guided search's network)."""
        return self.kind in ("ppo", "guided")

    def policy_path(self, game_name: str, num_players: int) -> Path | None:
        """The policy file the agent plays in `game_name` at `num_players` (the committed baseline when
        the spec names none), or None for an agent without one."""
        if not self.plays_policy():
            return None
        if self.policy is not None:
            return Path(self.policy)
        from city_envs.agents.policy_agent import baseline_path

        return baseline_path(game_name, num_players)

    def with_policy(self, policy: str) -> str:
        """The spec's text with the policy file it names replaced by `policy` (added after `ppo` when it
        names none); the text itself for an agent without one."""
        parts = self.text.split(":")
        if self.kind == "guided":
            return ":".join(f"net={policy}" if part.startswith("net=") else part for part in parts)
        if self.kind != "ppo":
            return self.text
        if self.policy is None:
            return ":".join([parts[0], policy, *parts[1:]])
        return ":".join(policy if part == self.policy else part for part in parts)

    def identity(self, digest: str | None) -> str:
        """The spec with its policy file named by content (`sha256=...`) rather than path, so that a run
        compares the same files from another checkout or install; the text when there is no digest."""
        return self.with_policy(f"sha256={digest}") if digest and self.plays_policy() else self.text

    @property
    def label(self) -> str:
        """A short name for progress bars: a ppo agent's policy by its file's stem, not its whole path."""
        return f"ppo:{Path(self.policy).stem}" if self.kind == "ppo" and self.policy else self.text

    # ----- the agent ------------------------------------------------------------------------------
    def build(self, game_name: str, seed: int | np.random.Generator | None = None) -> Agent:
        """A fresh agent of this spec for `game_name`; ValueError for what the spec cannot play."""
        if self.kind == "random":
            return RandomAgent(seed)
        if self.kind == "heuristic":
            return heuristic_class(game_name)(seed)
        if self.kind == "guided":
            from city_envs.agents.guided_ismcts import GuidedISMCTSAgent

            params = dict(self.options)
            if "seconds" in params:
                params.setdefault("iters", None)
            return GuidedISMCTSAgent(seed, game=game_name, **params)
        if self.kind == "ismcts":
            from city_envs.agents.ismcts import ISMCTSAgent

            params = dict(self.options)
            if "c" in params:
                params["exploration"] = params.pop("c")
            if "seconds" in params:
                params.setdefault("iters", None)
            agent = ISMCTSAgent(seed, **params)
            if agent.needs_heuristic:
                heuristic_class(game_name)  # fail now, not at the first decision, for a game without one
            return agent
        if self.kind == "ppo":
            from city_envs.agents.policy_agent import PolicyAgent

            return PolicyAgent(
                self.policy, seed, greedy="sample" not in self.flags, trust_pickle="trust_pickle" in self.flags
            )
        return self._build_user(seed)

    def _build_user(self, seed: int | np.random.Generator | None) -> Agent:
        """The user's class, built as `Class(seed=seed, key=value, ...)`; its module must be importable
        (installed, on PYTHONPATH, or in the current directory). Every failure is a ValueError."""
        if str(Path.cwd()) not in sys.path and "" not in sys.path:
            sys.path.append(str(Path.cwd()))  # `python -m` finds modules of the current directory; so does the CLI
        try:
            module = importlib.import_module(self.module)
        except ImportError as error:
            raise ValueError(f"agent {self.text!r}: cannot import module {self.module!r} ({error})") from None
        cls = getattr(module, self.cls, None)
        if not isinstance(cls, type):
            raise ValueError(f"agent {self.text!r}: module {self.module!r} has no class {self.cls!r}")
        if isinstance(seed, np.random.Generator):
            seed = int(seed.integers(2**63))
        try:
            agent = cls(seed=seed, **self.options)
        except TypeError as error:
            raise ValueError(
                f"agent {self.text!r}: {self.cls}(seed=..., {', '.join(self.options)}) failed: {error}"
            ) from None
        if not callable(getattr(agent, "act", None)):
            raise ValueError(f"agent {self.text!r}: {self.cls} has no act(info_set) method")
        return agent
