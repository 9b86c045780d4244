"""``docs/rules.md``: every rule's documentation on one page, from the rule modules' docstrings
(what ``kernlint rule CODE`` prints), one section per code, so that a link can name a rule
(``docs/rules.md#kl101``, SARIF's ``helpUri``). ``tests/test_docs.py`` keeps the page in step
with the docstrings; ``python -m kernlint.rules.page > docs/rules.md`` writes it again.
"""

from __future__ import annotations

import re
from typing import List

from . import ALL, documentation


def anchor(code: str) -> str:
    """The anchor GitHub and most Markdown renderers give the heading ``## KL101``."""
    return code.lower()


def _markdown(doc: str) -> str:
    """A docstring's reST-style literals (``x``) as Markdown's (`x`), its sections one level down."""
    text = re.sub(r"(?<!`)``(?!`)([^`]+?)``(?!`)", r"`\1`", doc)  # not a ``` fence
    return re.sub(r"^## ", "#### ", text, flags=re.M)


def render() -> str:
    lines: List[str] = [
        "# Rules",
        "",
        "Generated from the rules' docstrings (`python -m kernlint.rules.page > docs/rules.md`); "
        "`kernlint rule CODE` prints the same text.",
        "",
        "| code | name | fix |",
        "| --- | --- | --- |",
    ]
    for module in ALL:
        fix = "yes" if module.FIXABLE else "—"
        lines.append(f"| [{module.CODE}](#{anchor(module.CODE)}) | {module.NAME} | {fix} |")
    for module in ALL:
        doc = documentation(module.CODE)
        title, _, body = doc.partition("\n")
        lines += ["", f"## {module.CODE}", "", f"**{module.NAME}**" + (" (fixable)" if module.FIXABLE else ""),
                  "", _markdown(body.strip())]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render(), end="")
