"""The documentation a user reads: the README's topics each fit a screen, its rules table is a
table, its links lead somewhere, nothing points outside the repository, and docs/rules.md is
what the rules' docstrings say."""
import re

import pytest

from conftest import ROOT
from kernlint import rules
from kernlint.rules.page import anchor, render

README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))


def sections(text: str):
    """(heading, lines) of each `## ` section."""
    found = re.split(r"^(## .*)$", text, flags=re.M)
    return list(zip(found[1::2], (body.strip("\n").splitlines() for body in found[2::2])))


def test_the_rules_page_is_what_the_docstrings_say():
    assert (ROOT / "docs" / "rules.md").read_text() == render(), \
        "docs/rules.md is stale: python -m kernlint.rules.page > docs/rules.md"


def test_each_readme_topic_fits_a_screen():
    for heading, lines in sections(README.read_text()):
        assert len(lines) <= 50, f"{heading}: {len(lines)} lines; move the detail to docs/"
        paragraphs = "\n".join(lines).split("\n\n")
        prose = [p for p in paragraphs if not p.lstrip().startswith(("```", "|", "<!--"))]
        assert all(len(p.splitlines()) <= 10 for p in prose), heading


def test_the_readme_has_each_topic_a_user_looks_for():
    headings = [heading[3:] for heading, _ in sections(README.read_text())]
    for topic in ("Install", "Use", "Configuration", "pre-commit", "Editors", "Rules", "How it works",
                  "Benchmarks", "Development"):
        assert topic in headings


def test_the_rules_table_has_one_row_per_rule_and_nothing_inside_it():
    [body] = [lines for heading, lines in sections(README.read_text()) if heading == "## Rules"]
    start = body.index("| code | name | what it finds | fix |")
    rows = []
    for line in body[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    assert [row.split("|")[1].strip() for row in rows] == [module.CODE for module in rules.ALL]
    assert all(row.count(" | ") >= 3 for row in rows)


@pytest.mark.parametrize("path", [README, *DOCS], ids=lambda p: p.name)
def test_links_lead_to_files_and_sections_that_exist(path):
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)  # code is not links
    text = re.sub(r"`[^`\n]*`", "", text)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if target.startswith(("http://", "https://")):
            continue
        file, _, fragment = target.partition("#")
        where = (path.parent / file).resolve() if file else path
        assert where.exists(), f"{path.name}: {target}"
        assert str(where).startswith(str(ROOT)), f"{path.name}: {target} leaves the repository"
        if fragment and where.suffix == ".md":
            headings = re.findall(r"^#+ (.*)$", where.read_text(), flags=re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}
            assert fragment in slugs, f"{path.name}: {target}"


def test_nothing_points_outside_the_repository_or_asks_the_user_to_guess():
    texts = {p: p.read_text() for p in [README, *DOCS, *(ROOT / "kernlint").rglob("*.py")]}
    for path, text in texts.items():
        assert "DESIGN" not in text, path
    readme = README.read_text()
    assert "<this repository" not in readme and "<URL>" not in readme
    assert not re.search(r"pip install kernlint\b", readme)  # not on PyPI: from the clone
    for code in rules.BY_CODE:
        assert f"## {code}\n" in (ROOT / "docs" / "rules.md").read_text() and anchor(code) == code.lower()
