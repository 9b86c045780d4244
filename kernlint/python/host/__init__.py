"""The Python host reader: a file's host code reduced to the facts the host rules read
(``analysis.host``): launches and what they pass, device allocations, blocking operations,
clock reads, loops, and the calls of the project's own functions.

``reader`` walks the statements; ``modes`` reads an object's modes (attributes whose types
depend on another attribute's value); ``frequency`` says how often each statement runs (a
loop's kind, a statement's place in it), and ``rates`` puts that on every host event. May import the rest of ``kernlint.python`` and
``analysis``; never compiles.
"""
