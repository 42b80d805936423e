"""`city-envs serve`: a local web app to play any game against any bot and to replay saved games and
arena matches (needs the `web` extra). The top layer, beside the command line: it may use agents and
training, and nothing below imports it."""
