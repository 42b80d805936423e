"""`--doc PAGE` and `--from-json FILE`, as every study takes them: fill the page's generated section from
the study's JSON, as the study runs or, with `--from-json`, without running anything."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from city_envs.core.markdown import section_names
from city_envs.core.settings import read_document


def add_doc_options(parser: argparse.ArgumentParser, section: str, source: str) -> None:
    """The two options, `source` naming the study's JSON in their help."""
    parser.add_argument("--doc", help=f"fill this page's <!-- tables:{section} --> section from {source}")
    parser.add_argument("--from-json", dest="from_json", help=f"run nothing: write --doc from this {source}")


def write_from_json(args: argparse.Namespace, section: str, write_doc: Callable[[str, str], None]) -> bool:
    """Refuse a `--doc` page without the section, and `--from-json` without `--doc` (one ValueError each);
    with `--from-json`, write the page from it and return True (the study then runs nothing)."""
    if args.doc and section not in section_names(read_document(args.doc)):
        raise ValueError(f"{args.doc} has no <!-- tables:{section} --> section to fill")
    if not args.from_json:
        return False
    if not args.doc:
        raise ValueError("--from-json only writes a --doc page")
    write_doc(args.doc, args.from_json)
    print(f"wrote {section} into {args.doc} from {args.from_json}")
    return True
