"""Figures in the prose of the docs that state a committed baseline's evaluation on seed 1000 are its
JSON's (`training/baselines/<game>_<n>p.json`, the heuristic's `<game>_<n>p_reference.json`, or an earlier
policy's record kept in `training/baselines/lineage/`): each is
found by the words before it and compared with `evaluation.<opponent>`'s `win_rate` and `ci95` at 3
decimals, so a figure edited by hand, or a baseline republished without its prose, fails here. Every
bold win rate with an interval in those pages is either one of them or a replaced run's, listed below."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from city_envs.agents.policy_agent import LINEAGE, baseline_stem
from city_envs.core.markdown import MARKER
from city_envs.training.baseline_tables import reference_path

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")))
FIGURE = re.compile(r"\*{0,2}(?P<rate>\d\.\d{3})(?: \((?P<low>\d\.\d{3})-(?P<high>\d\.\d{3})\))?")
BOLD = re.compile(r"\*\*(\d\.\d{3} \(\d\.\d{3}-\d\.\d{3}\))\*\*")


@dataclass(frozen=True)
class Claim:
    """The figure right after `before` (words as on the page, any line breaks) is `opponent`'s result in
    the committed record of `game` at `players` (the baseline's; with `reference` the heuristic's; with
    `earlier`, the record of the earlier policy of that SHA-256 prefix the baseline continued)."""

    page: str
    before: str
    game: str
    players: int
    opponent: str
    reference: bool = False
    earlier: str = ""

    def source(self) -> Path:
        if self.reference:
            return reference_path(self.game, self.players)
        stem = baseline_stem(self.game, self.players)
        if self.earlier:
            return stem.parent / LINEAGE / f"{stem.name}_{self.earlier}.json"
        return stem.with_suffix(".json")


TRAINING = "docs/training.md"
METROPOLYS_4P_WARM_START = "1b9c027cbcbb"  # the entity-head warm start the long PPO run continued
CLAIMS = (
    Claim(TRAINING, "6.3 min to its round-1 policy (the committed baseline) | ", "blue_moon_city", 2, "random"),
    Claim(TRAINING, "(0.980-0.998), seed 1000 | ", "blue_moon_city", 2, "heuristic"),
    Claim(TRAINING, "seed 3 (300 matches each). On seed 1000 it won ", "blue_moon_city", 2, "heuristic"),
    Claim(TRAINING, "and is the policy: ", "metropolys", 2, "heuristic"),
    Claim(TRAINING, "round 1 won a share of ", "metropolys", 4, "heuristic", earlier=METROPOLYS_4P_WARM_START),
    Claim(TRAINING, "(the flat warm start: 0.037), ", "metropolys", 4, "random", earlier=METROPOLYS_4P_WARM_START),
    Claim(TRAINING, "round 4 won a share of ", "blue_moon_city", 4, "heuristic"),
    Claim(TRAINING, "on seed 1000 (flat: 0.005), ", "blue_moon_city", 4, "random"),
    Claim(TRAINING, "0.30 on the run's seed; ", "urban_sprawl", 4, "heuristic"),
    Claim(TRAINING, "the heuristic itself wins ", "citadels", 4, "random", reference=True),
    Claim(TRAINING, "On seed 1000 it is level with the flat one: ", "big_city", 4, "heuristic"),
    Claim(TRAINING, "against three heuristics (0.161) and ", "big_city", 4, "random"),
    Claim(TRAINING, "It is the policy: on seed 1000 it won ", "citadels", 4, "heuristic"),
    Claim(TRAINING, "above the goal of 0.35, and ", "citadels", 4, "random"),
    Claim(TRAINING, "against random (the heuristic: ", "citadels", 4, "random", reference=True),
    Claim(TRAINING, "to lift its ", "metropolys", 4, "random", earlier=METROPOLYS_4P_WARM_START),
    Claim(TRAINING, "Its last policy won ", "metropolys", 4, "heuristic"),
    Claim(TRAINING, "against three heuristics on seed 1000 and ", "metropolys", 4, "random"),
    Claim(TRAINING, "towards its teacher's ", "metropolys", 4, "random", reference=True),
)
# bold seed-1000 figures of runs the committed baselines replaced: no JSON kept, figures as logged
REPLACED = {
    (TRAINING, "0.343 (0.298-0.390)"): "Citadels 4p, first run",
    (TRAINING, "0.313 (0.269-0.360)"): "Citadels 4p, mean margin",
    (TRAINING, "0.980 (0.961-0.990)"): "Citadels 4p, mean margin",
}


def words(text: str) -> str:
    """The page's prose, white space runs as one space (prose wraps anywhere) and its generated sections,
    checked by their own tests, left out."""
    return " ".join(MARKER.sub("", text).split())


def expected(claim: Claim) -> tuple[str, str]:
    """The claim's JSON figure at 3 decimals: the win rate, and the rate with its interval."""
    result = json.loads(claim.source().read_text())["evaluation"][claim.opponent]
    rate = f"{result['win_rate']:.3f}"
    return rate, f"{rate} ({result['ci95'][0]:.3f}-{result['ci95'][1]:.3f})"


def mismatches(claim: Claim, text: str) -> list[str]:
    """What is wrong with the claim's figures in the page's `text` (nothing: the page says what the JSON does)."""
    prose = words(text)
    starts = [m.end() for m in re.finditer(re.escape(claim.before), prose)]
    if not starts:
        return [f"{claim.page}: no {claim.before!r} (the words before a figure of {claim.source().name}) any more"]
    rate, interval = expected(claim)
    problems = []
    for start in starts:
        found = FIGURE.match(prose, start)
        figure = found[0].strip("*") if found else prose[start : start + 20]
        if not found or found["rate"] != rate or (found["low"] and figure != interval):
            problems.append(
                f"{claim.page}: {figure!r} after {claim.before!r} is not {claim.source().name}'s "
                f"evaluation.{claim.opponent}: {interval if found and found['low'] else rate}"
            )
    return problems


def page(name: str) -> str:
    return (ROOT / name).read_text()


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: f"{c.game}_{c.players}p-{c.opponent}-{c.before[:24]}")
def test_each_prose_figure_of_a_committed_baseline_is_its_json(claim):
    problems = mismatches(claim, page(claim.page))
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def test_every_bold_interval_figure_is_checked_or_a_replaced_runs():
    checked = {(c.page, expected(c)[1]) for c in CLAIMS}
    unknown = [
        (name, figure)
        for name in PAGES
        for figure in BOLD.findall(words(page(name)))
        if (name, figure) not in checked and (name, figure) not in REPLACED
    ]
    assert not unknown, f"bold figures neither checked against a JSON nor a replaced run's: {unknown}"
    assert all(figure in words(page(name)) for name, figure in REPLACED), "a replaced run's figure left its page"


@pytest.mark.parametrize("claim", CLAIMS[::4], ids=lambda c: f"{c.game}_{c.players}p-{c.opponent}")
def test_a_figure_edited_by_hand_is_named_with_its_json_value(claim):
    prose = words(page(claim.page))
    start = prose.index(claim.before) + len(claim.before)
    figure = FIGURE.match(prose, start)
    assert figure is not None
    last = figure.end("rate") - 1
    edited = prose[:last] + str((int(prose[last]) + 1) % 10) + prose[last + 1 :]
    (problem,) = mismatches(claim, edited)
    assert problem.startswith(f"{claim.page}: '{edited[figure.start() : figure.end()].strip('*')}'")
    assert f"{claim.source().name}'s evaluation.{claim.opponent}: {expected(claim)[0]}" in problem
    gone = prose.replace(claim.before, claim.before.upper())
    assert "any more" in mismatches(claim, gone)[0]
