"""NumPy 1 names that NumPy 2 removed, for recording a corpus project whose own code still
uses them (fbpic's openPMD writer calls `np.string_`): the record machine's CuPy needs NumPy 2.
Put on the recorded command's PYTHONPATH by benchmarks/record_corpus.py (`numpy1_names`);
kernlint's own sitecustomize runs first and then this one."""
import numpy

for _old, _new in (("string_", "bytes_"), ("unicode_", "str_"), ("float_", "float64"),
                   ("complex_", "complex128"), ("product", "prod"), ("cumproduct", "cumprod")):
    if _old not in vars(numpy):
        setattr(numpy, _old, getattr(numpy, _new))
