"""The Python host reader's parts: what the code around the kernels does."""
