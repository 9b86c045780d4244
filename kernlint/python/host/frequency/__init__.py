"""How often a statement runs: the fact the host rules stand on.

A host finding says "on every iteration of the loop"; it is true only where the loop
repeats the same work and the statement runs on each of its iterations. This module reads
a function's (or a module's) syntax tree and gives

- every loop its **kind**: ``step`` (time steps, frames, batches, solver iterations: the
  same work again, on evidence only: state carried from one iteration to the next, launches
  sharing arrays the loop keeps, a counter or a clock ending a ``while``; a name like
  ``n_steps`` breaks a tie, no more), ``benchmark`` (timed, carrying nothing, transferring:
  the transfer is what it measures), ``search`` (retry, search: a value computed in the loop, or
  an element of an array a launch in it writes, ``while err[0] > tol:``, decides whether to go on, so the loop normally runs once or a few times and its host reads are
  the point; a convergence loop whose launches share device arrays it keeps, or read an array it
  stores into, and whose test reads what the device computed, builds on each iteration: a ``step``), ``sweep`` (sizes, parameters, devices, files, parts, chunks, test cases:
  pieces of the work), ``setup`` (construction, warm-up: once before the work), ``few`` (a
  small literal count, a reduction tree), ``verify`` (each iteration checks a result it copied
  back against the host's own, ``np.testing.assert_allclose(cpu, gpu)``: a check, not the work)
  or ``unknown`` (no evidence either way);
- every statement its **place** in its innermost loop: ``every`` iteration (a phase of a time
  loop too: ``if t < t_stim:`` holds on a run of steps, each of them), ``periodic``
  (a modulo or counter gate), ``event`` (a flag or state test the branch itself flips, a
  test that holds on one iteration, an exception handler), ``leaving`` (followed by
  ``return``/``break``/``raise``), ``never`` (after the statement where the module's top level
  stops with a ``NameError``, or in a function only such code calls: ``stops``) or ``unknown``;
- through calls, a :class:`Rate` that composes: a callee's statement runs at its call
  site's rate followed by its own (``site.through(inner)``).

What the code does decides: a test is what pytest collects (functions named ``test*``,
methods of ``Test*`` classes without ``__init__`` or of ``unittest.TestCase`` subclasses,
in ``test_*.py``/``*_test.py`` files), a loop over devices is one that selects the device
its variable names (``cuda.select_device(k)``, ``cuda.gpus[k]``) or iterates ``cuda.gpus``;
a variable's name (``gpus``, ``n_layers``) never counts. The one name read is a warm-up
method's (``compile``, ``warmup``), and only where no loop of the module calls it. Unknown
is silent: a rule reports only :attr:`Rate.every_step`.

The parts: ``reading`` walks a body in statement order (``analyse``) or every body of a
module (``analyse_module``); ``kinds`` decides a loop's kind; ``places`` a statement's place
from the branches on the way to it; ``changes`` what a loop's body assigns (counters, clocks);
``stops`` where a module's top level stops (``NameError``); ``required`` what a statement needs its
callers to pass (a parameter defaulting to None that the way to it indexes: a call leaving it out
raises first); ``facts`` holds what the reading
gives (:class:`Frequency`, :class:`Rate`); ``syntax`` the syntax they share. Nothing here imports kernlint: it is a pure reading of Python's ``ast``.
"""

from .facts import LOOP_KINDS, PLACES, Context, Frequency, Level, Loop, Rate, Statement
from .reading import analyse, analyse_module, constant_int, frame_callbacks
from .required import required_parameters

__all__ = ["LOOP_KINDS", "PLACES", "Context", "Frequency", "Level", "Loop", "Rate", "Statement", "analyse",
           "analyse_module", "constant_int", "frame_callbacks", "required_parameters"]
