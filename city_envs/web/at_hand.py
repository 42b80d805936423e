"""The game at hand, for the play and replay pages: each game's rules summary as HTML, the tooltips
of the choice buttons (the texts of the cards and characters a button's own text names), the legend
beside the board and why a choice a person would expect is missing. The games give the texts
(`Game.rules_summary`, `card_texts`, `legend`, `missing_choices`, from each package's `present.py`
and `summary.md`); this module puts them on the page.

What it shows is public, or belongs to the seats named by the caller: the choice buttons' own texts
(which name only what their seat may see), the public table, and the hands of `seats`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from city_envs.core.game import Game
from city_envs.core.registry import GAMES, game_class

Notes = list[tuple[str, str]]


# ----- rules summaries ----------------------------------------------------------------------------
def summary_text(game_name: str) -> str:
    """The rules summary of a game (its package's summary.md), as Markdown; KeyError for an unknown game."""
    if game_name not in GAMES:
        raise KeyError(game_name)
    return game_class(game_name, "python").rules_summary()


def markdown_html(text: str) -> str:
    """Markdown as HTML with raw HTML switched off: any tag in the text shows as text, never as markup."""
    import markdown

    converter = markdown.Markdown(extensions=[], output_format="html")
    converter.preprocessors.deregister("html_block")
    converter.inlinePatterns.deregister("html")
    return converter.convert(text)


@functools.lru_cache(maxsize=len(GAMES))
def summary_html(game_name: str) -> str:
    return markdown_html(summary_text(game_name))


# ----- the texts of the cards, by the name a button or the board uses -------------------------------
@functools.lru_cache(maxsize=len(GAMES))
def catalogue(game_name: str) -> tuple[dict[str, str], re.Pattern | None]:
    """Every card, character or token text of a game by its name, and a pattern finding those names
    as whole words (longest first, case as written: Citadels' district "Keep" is not the verb "keep")."""
    texts = game_class(game_name, "python").card_texts() if game_name in GAMES else {}
    if not texts:
        return texts, None
    names = sorted(texts, key=len, reverse=True)
    return texts, re.compile(r"(?<![\w-])(" + "|".join(re.escape(name) for name in names) + r")(?![\w-])")


def action_notes(game: Game, items: Sequence[tuple[int, str]]) -> dict[int, str]:
    """The tooltip of each choice button: the texts of the cards, characters or tokens its own text
    names (a button names only what its seat may see, so this adds nothing hidden)."""
    texts, pattern = catalogue(game.name)
    notes = {}
    for action, text in items:
        if pattern is None:
            break
        named = list(dict.fromkeys(pattern.findall(text)))
        if named:
            notes[action] = " · ".join(f"{name}: {texts[name]}" for name in named)
    return notes


# ----- the legend, and why a choice is missing -------------------------------------------------------
def legend(game: Game, seats: Sequence[int]) -> Notes:
    """(name, text) of the characters, cards and tokens on the public table and in the hands of
    `seats` (the viewing seat; every seat for a replay's full view)."""
    return game.legend(seats)


def missing_choices(game: Game, seat: int) -> list[str]:
    """One line per choice a rule removes that a person would expect, for `seat` when it is deciding,
    from the public state and that seat's own hand."""
    return game.missing_choices(seat)
