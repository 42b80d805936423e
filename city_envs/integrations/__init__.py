"""Adapters for other frameworks, each in its own module and imported only when used, so that
`import city_envs` never needs them. Install the matching extra: `pip install "city-envs[rllib]"`,
`[openspiel]`, `[tianshou]`, `[torchrl]` or `[supersuit]`. Recipes: docs/integrations.md."""
