"""RLlib (new API stack): every game as an RLlib multi-agent env, trained by PPO with action masking.

    python -m city_envs.integrations.rllib citadels --players 2 --iterations 5
    python -m city_envs.integrations.rllib citadels --players 2 --iterations 5 --address auto

`--address` (or `ray.init(address=...)`) is the only change between a laptop and a Ray cluster:
None starts a local Ray; "auto" joins the cluster this machine belongs to; "ray://<head>:10001"
connects to a remote head. All seats share one policy (self-play).
"""

from __future__ import annotations

import argparse
from typing import Any

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

import city_envs

SHARED_POLICY = "shared"
# RLlib's ActionMaskingTorchRLModule reads the tensor under "observations", the mask under "action_mask".
RLLIB_OBSERVATION_KEY = "observations"


def rllib_env(config: dict[str, Any]) -> PettingZooEnv:
    """An RLlib `MultiAgentEnv` from an env_config: {"game", "num_players", ...adapter and game options}.

    `illegal_action` defaults to "lose": RLlib's environment check steps one unmasked random action
    before training, and the masked module never chooses an illegal one afterwards (pass "raise" and
    `disable_env_checking=True` to have any illegal action stop the run instead).
    """
    options = dict(config)
    name = options.pop("game")
    num_players = options.pop("num_players")
    options.setdefault("illegal_action", "lose")
    env = city_envs.make_env(name, num_players, observation_key=RLLIB_OBSERVATION_KEY, **options)
    return PettingZooEnv(env)


def env_id(name: str) -> str:
    return f"city_envs/{name}"


def register(name: str) -> str:
    """Register the game's env creator with Ray Tune's registry (on every worker, via the config); its id."""
    city_envs.game_class(name)  # an unknown name fails here, before Ray starts anything
    register_env(env_id(name), rllib_env)
    return env_id(name)


def ppo_config(
    name: str,
    num_players: int,
    *,
    hidden: tuple[int, ...] = (256, 256),
    batch_size: int = 4000,
    minibatch_size: int = 512,
    epochs: int = 5,
    env_runners: int = 0,
    seed: int | None = None,
    **options: Any,
) -> PPOConfig:
    """PPO on the new API stack: one shared masked policy for every seat (self-play)."""
    env_config = {"game": name, "num_players": num_players, **options}
    rllib_env(env_config).close()  # bad player counts and options fail here with the game's own message
    return (
        PPOConfig()
        .environment(env=register(name), env_config=env_config)
        .multi_agent(
            policies={SHARED_POLICY},
            policy_mapping_fn=lambda agent_id, episode, **kwargs: SHARED_POLICY,
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    SHARED_POLICY: RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={"fcnet_hiddens": list(hidden), "vf_share_layers": False},
                    )
                }
            )
        )
        .env_runners(num_env_runners=env_runners)
        .training(train_batch_size_per_learner=batch_size, minibatch_size=minibatch_size, num_epochs=epochs)
        .debugging(seed=seed)
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=city_envs.GAMES)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--env-runners", type=int, default=1, help="sampling workers (default: %(default)s)")
    parser.add_argument("--address", default=None, help='Ray address: none = local, "auto", or "ray://<head>:10001"')
    args = parser.parse_args(argv)
    config = ppo_config(args.game, args.players, env_runners=args.env_runners)
    ray.init(address=args.address)
    algo = config.build_algo()
    for iteration in range(1, args.iterations + 1):
        result = algo.train()
        steps = result["env_runners"]["num_env_steps_sampled_lifetime"]
        print(f"iteration {iteration}: {steps} env steps sampled")
    checkpoint = algo.save().checkpoint
    assert checkpoint is not None, "a save reports its checkpoint (Ray types it Optional for other reports)"
    print(f"checkpoint: {checkpoint.path}")
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
