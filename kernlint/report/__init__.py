"""Reporters: each writes a Report in one output format."""

from . import json, text

FORMATS = {"text": text, "json": json}
