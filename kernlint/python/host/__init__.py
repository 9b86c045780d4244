"""The Python host reader: a file's host code reduced to the facts the host rules read
(``analysis.host``): launches and what they pass, device allocations, blocking operations,
clock reads, loops, and the calls of the project's own functions.

``reader`` walks the statements; ``modes`` reads an object's modes (attributes whose types
depend on another attribute's value). May import the rest of ``kernlint.python`` and
``analysis``; never compiles.
"""
