"""Reporters: each writes a Report in one output format."""

from . import github, json, sarif, text

FORMATS = {"text": text, "json": json, "sarif": sarif, "github": github}
