"""The Python host reader: a file's host code reduced to the facts the host rules read
(``analysis.host``): launches and what they pass, device allocations, blocking operations,
clock reads, loops, and the calls of the project's own functions.

``reader`` is the statement interpreter: it walks a file's statements in order, keeps the
types of local names, and finishes the file's facts (``HostReader._finish_facts``;
``read_host`` and ``file_host_facts`` are the entry points). It hands each job to its part,
passing what the part needs:

- ``variants``: loops and functions read again per variant (a loop's literal passes, each
  call of a function that launches what it is given), for their launches' signatures;
- ``loops``: a loop's facts and its kind (GPUs, sizes, parts, test cases, or a step);
- ``calls``: calls across the project (what a call runs and gives, helpers' return types,
  the types the project's calls pass to a function's parameters, what a project object's
  attribute or an imported name holds); ``functions``: a function seen from outside;
  ``classes``: a class's methods and attributes as written; ``docstrings``: the types a
  docstring gives; ``options``: the command-line options ``argparse`` parses;
- ``attributes``: where arrays live in objects (what a class stores in ``self``, where its
  arrays and its subclasses' live); ``class_modes`` and ``modes``: an object's modes
  (attributes whose types depend on another attribute's value);
- ``launches``: launch sites as written; ``sites``: a launch or compile site as a fact (the
  kernel, its arguments' types, the arguments the kernel writes); ``dispatch``: a call through a
  literal table of functions (``self.modes[mode](self, dt)``), which is no launch; ``kernels``: the kernel a launch's target refers to;
  ``signature_text``: a written signature's argument types; ``driving``: whether a file's
  calls can reach a launch in the project's code (then its objects are read across the
  project); ``arity``: calls and launches that cannot bind their arguments (they raise, so
  what follows never runs); ``operations``: allocations,
  waits, copies back and clock reads (``library``: the calls known by name);
- ``frequency/``: how often each statement runs (a loop's kind: step, search, sweep, setup,
  few; a statement's place in it), a package of its own that imports nothing of kernlint;
  ``rates``: that rate on every host event;
- ``branches``: what an ``if`` tells of names on each side, and where sides meet; ``flags``:
  what ``if``s on one flag say of each other; ``frames``: the frame being read; ``names``:
  the syntax of names.

A part that needs the reading's state takes it as an argument, or asks the reader through a
small interface (``kernels.KernelContext``, ``calls.CallContext``,
``class_modes.ModeContext``, ``variants.VariantContext``). May import the rest of
``kernlint.python`` and ``analysis``; never compiles.
"""
