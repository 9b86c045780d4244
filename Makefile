# Benchmarks (README: Benchmarks). The GPU part needs a CUDA GPU with CuPy (and numba-cuda
# for the decorator part); the rest runs anywhere `scripts/setup.sh test` has been run.
PYTHON ?= .venv/bin/python
RESULTS = benchmarks/results

.PHONY: bench bench-static bench-cost bench-gpu bench-report bench-mutation

bench: bench-static bench-cost bench-gpu bench-report

bench-static:
	$(PYTHON) benchmarks/static_resources.py $(RESULTS)/static_resources.json
	$(PYTHON) benchmarks/source_fix.py $(RESULTS)/source_fix.json

bench-cost:
	$(PYTHON) benchmarks/linter_cost.py $(RESULTS)/linter_cost.json
	$(PYTHON) benchmarks/signature_cost.py $(RESULTS)/signature_cost.json

bench-gpu:
	$(PYTHON) benchmarks/build_ptx.py .bench/ptx
	@if $(PYTHON) -c "import cupy; cupy.cuda.runtime.getDeviceCount()" 2>/dev/null; then \
		$(PYTHON) benchmarks/gpu_run.py .bench/ptx $(RESULTS)/gpu_rewrite_h200.json && \
		$(PYTHON) benchmarks/gpu_decorator.py $(RESULTS)/gpu_decorator_h200.json && \
		$(PYTHON) benchmarks/gpu_host.py $(RESULTS)/gpu_host_h100.json; \
	else echo "bench-gpu: no CUDA GPU here: PTX built in .bench/ptx; run benchmarks/gpu_run.py where one is"; fi

bench-report:
	$(PYTHON) benchmarks/report.py

# mutation testing (benchmarks/mutation.py): not part of `bench`, an hour or more on two cores
# for a seeded sample of MUTATION_SAMPLE mutants per module (MUTATION_SAMPLE= for every mutant)
MUTATION_SAMPLE ?= 10
bench-mutation:
	nice -n 19 $(PYTHON) benchmarks/mutation.py $(if $(MUTATION_SAMPLE),--sample $(MUTATION_SAMPLE))
