"""``--output-format sarif``: SARIF 2.1.0 as GitHub code scanning reads it."""

from __future__ import annotations

import json
import os
import re
from typing import Dict, List, TextIO
from urllib.parse import quote

from .. import __version__, rules
from ..discovery import git_top
from ..engine import Report
from ..rules.page import anchor

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# Where each rule's helpUri points: the rules page (docs/rules.md, one section a code), relative to
# the repository as the results' URIs are; `help-uri` in the configuration sets a published copy.
HELP_URI = "docs/rules.md"


def repository_root(start: str) -> str:
    """The enclosing git checkout (URIs are relative to it, as code scanning expects), else start."""
    return git_top(start) or os.path.abspath(start)


def _section(doc: str, heading: str) -> str:
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", doc, re.M | re.S)
    return match.group(1).strip() if match else ""


def _rule_descriptor(module, help_uri: str = HELP_URI) -> Dict:
    doc = rules.documentation(module.CODE)
    what = " ".join(_section(doc, "What it does").split())
    short = what.split(". ")[0].rstrip(".") + "." if what else module.NAME
    return {
        "id": module.CODE,
        "name": module.NAME,
        "shortDescription": {"text": short},
        "fullDescription": {"text": what or short},
        "help": {"text": doc, "markdown": doc},
        "helpUri": f"{help_uri}#{anchor(module.CODE)}",
        "defaultConfiguration": {"level": "error" if module.CODE.startswith("KL9") else "warning"},
        "properties": {"fixable": bool(module.FIXABLE), "tags": ["gpu", "performance"]},
    }


def _uri(path: str, root: str) -> str:
    relative = os.path.relpath(path, root)
    if relative.startswith(".."):
        return "file://" + quote(os.path.abspath(path))
    return quote(relative.replace(os.sep, "/"))


def _location(path: str, line: int, column: int, root: str, message: str = "") -> Dict:
    location = {
        "physicalLocation": {
            "artifactLocation": {"uri": _uri(path, root), "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": max(line, 1), "startColumn": max(column, 1)},
        }
    }
    if message:
        location["message"] = {"text": message}
    return location


def _fix(fix, root: str) -> Dict:
    """A SARIF fix: its replacements (1-based columns, the end exclusive)."""
    changes: Dict[str, List[Dict]] = {}
    for edit in fix.edits:
        changes.setdefault(edit.path, []).append({
            "deletedRegion": {"startLine": edit.line, "startColumn": edit.column + 1,
                              "endLine": edit.end_line, "endColumn": edit.end_column + 1},
            "insertedContent": {"text": edit.text},
        })
    return {
        "description": {"text": f"{fix.description} ({fix.applicability})"},
        "artifactChanges": [{"artifactLocation": {"uri": _uri(path, root), "uriBaseId": "%SRCROOT%"},
                             "replacements": replacements} for path, replacements in changes.items()],
    }


def document(report: Report, root: str, help_uri: str = HELP_URI) -> Dict:
    index = {module.CODE: number for number, module in enumerate(rules.ALL)}
    results: List[Dict] = []
    for finding in report.findings:
        result = {
            "ruleId": finding.code,
            "ruleIndex": index[finding.code],
            "level": "error" if finding.code.startswith("KL9") else "warning",
            "message": {"text": finding.message},
            "locations": [_location(finding.path, finding.line, finding.column, root)],
            "properties": {"kernel": finding.kernel, "kernels": finding.kernels or [finding.kernel],
                           "signature": finding.signature, "signatureSource": finding.signature_source,
                           "signatureFrom": finding.signature_from,
                           "standins": list(finding.standins),
                           "fixable": finding.fixable,
                           "fix": finding.fix.applicability if finding.fix else "none"},
        }
        if finding.fix is not None:
            result["fixes"] = [_fix(finding.fix, root)]
        if finding.inlined_at:
            result["relatedLocations"] = [
                dict(_location(f.path, f.line, f.column, root, f"inlined at {f.function or 'caller'}"), id=n)
                for n, f in enumerate(finding.inlined_at)
            ]
        results.append(result)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "kernlint",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [_rule_descriptor(module, help_uri) for module in rules.ALL],
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": "file://" + quote(root.rstrip("/") + "/")}},
            "results": results,
        }],
    }


def write(report: Report, out: TextIO, stats: bool = False, help_uri: str = HELP_URI) -> None:
    json.dump(document(report, repository_root(os.getcwd()), help_uri or HELP_URI), out, indent=2)
    out.write("\n")
