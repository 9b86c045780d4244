"""How long an editor waits for ``kernlint server``'s diagnostics, driven as an editor drives
it (pygls's LSP client over the server's pipes):

- first diagnostics: a cold start (no worker server running, empty caches) opening an unsaved
  buffer of kernels with checked conversions behind print guards (KL101, KL301), typed by the
  launches in another file of the workspace; beside numba alone compiling the same kernels
  with the same signatures in a fresh interpreter (what any check of the file must pay);
- after an edit: each edit changes one kernel's code (a new constant every time, so no cache
  has seen it), timed from the ``didChange`` to the new diagnostics, the debounce included;
  then edits to a comment, which change no kernel (every kernel comes from the cache).

    python benchmarks/lsp_latency.py [RESULT.json]   (default benchmarks/results/lsp_latency.json)
"""
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

from linter_cost import _statistics, _stop_servers, numba_alone  # noqa: E402

KERNELS = 8  # in the buffer: every other one a checked conversion behind a print guard
EDITS = 10
DEBOUNCE = 0.3  # the server's default
WAIT = 300.0


def kernel_source(number: int, factor: str = "2.0") -> str:
    if number % 2 == 0:
        return f'''

@cuda.jit
def convert_{number}(y, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i] * {factor}
        if v != v or v >= 9.2e18 or v < -9.2e18:
            print("bad value in convert_{number} at", i, v)
            return
        y[i] = int(v)
'''
    return f'''

@cuda.jit
def stride_{number}(y, x):
    start, step = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, x.size, step):
        y[i] = x[i] * {factor} + 1.0
'''


def buffer_text(factor: str = "2.0", comment: str = "kernels") -> str:
    """The buffer: the first kernel scaled by ``factor``, the others fixed."""
    return f"# {comment}\nfrom numba import cuda\n" + "".join(
        kernel_source(n, factor if n == 0 else "2.0") for n in range(KERNELS))


def launches() -> str:
    lines = ["import numpy as np", "from numba import cuda", "",
             "from kernels import " + ", ".join(f"convert_{n}" if n % 2 == 0 else f"stride_{n}"
                                                for n in range(KERNELS)), "",
             "x = cuda.to_device(np.arange(1 << 20, dtype=np.float32))",
             "y = cuda.device_array(1 << 20, dtype=np.int32)",
             "z = cuda.device_array(1 << 20, dtype=np.float32)"]
    for n in range(KERNELS):
        lines.append(f"convert_{n}[256, 256](y, x)" if n % 2 == 0 else f"stride_{n}[256, 256](z, x)")
    return "\n".join(lines) + "\n"


def machine() -> dict:
    """What the numbers were measured beside: the load, and the busiest other processes."""
    top = subprocess.run(["ps", "-eo", "pcpu,etimes,args", "--sort=-pcpu", "--no-headers"], capture_output=True,
                         text=True).stdout.splitlines()[:6]  # CPU % over each one's life, seconds alive, command
    return {"cpus": os.cpu_count(), "load_average": [round(v, 2) for v in os.getloadavg()],
            "busiest_processes": [" ".join(line.split())[:120] for line in top], "python": platform.python_version()}


async def session(workspace: str, env: dict) -> dict:
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("lsp-latency", "1")
    published: asyncio.Queue = asyncio.Queue()
    arrived = {}

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params):
        arrived[params.version] = time.perf_counter()
        published.put_nowait(params)

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def log(params):
        pass

    async def wait_for(version):
        while True:
            params = await asyncio.wait_for(published.get(), WAIT)
            if params.version == version:
                return list(params.diagnostics)

    uri = "file://" + os.path.join(workspace, "kernels.py")
    started = time.perf_counter()
    await client.start_io(sys.executable, "-m", "kernlint", "server", cwd=workspace, env=env)
    await client.initialize_async(types.InitializeParams(
        process_id=None, root_uri="file://" + workspace, capabilities=types.ClientCapabilities(),
        initialization_options={"debounce": DEBOUNCE}))
    client.initialized(types.InitializedParams())
    initialized = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=buffer_text())))
    first = await wait_for(1)
    result = {"server_start_s": initialized - started, "first_diagnostics_s": arrived[1] - initialized,
              "first_codes": sorted(d.code for d in first)}

    async def edit(version, text):
        sent = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        found = await wait_for(version)
        return arrived[version] - sent, sorted(d.code for d in found)

    kernel_edits, comment_edits, codes = [], [], set()
    for k in range(EDITS):
        seconds, found = await edit(2 + k, buffer_text(factor=f"2.{k + 1}"))
        kernel_edits.append(seconds)
        codes.add(tuple(found))
    for k in range(EDITS):
        seconds, found = await edit(2 + EDITS + k, buffer_text(factor=f"2.{EDITS}", comment=f"kernels {k}"))
        comment_edits.append(seconds)
        codes.add(tuple(found))
    await client.shutdown_async(None)
    client.exit(None)
    await asyncio.wait_for(client._server.wait(), 30)  # noqa: SLF001 - the server process

    def summary(values):
        return {"median_s": statistics.median(values), "max_s": max(values), "min_s": min(values),
                "each_s": [round(v, 3) for v in values]}

    result.update(kernel_edit=summary(kernel_edits), comment_edit=summary(comment_edits),
                  codes_after_edits=sorted(codes))
    return result


def main():
    output = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "results", "lsp_latency.json")
    before = machine()
    workspace = tempfile.mkdtemp(prefix="kl-lsp-")
    with open(os.path.join(workspace, "pyproject.toml"), "w") as handle:
        handle.write("[tool.kernlint]\n")
    with open(os.path.join(workspace, "main.py"), "w") as handle:
        handle.write(launches())
    servers = tempfile.mkdtemp(prefix="kl-")  # this benchmark's own worker server: started cold
    env = {**os.environ, "PYTHONPATH": ROOT, "KERNLINT_SERVER_DIR": servers, "KERNLINT_SERVER": "1",
           "XDG_CACHE_HOME": os.path.join(workspace, ".cache")}
    try:
        result = asyncio.run(session(workspace, env))
    finally:
        _stop_servers(servers)
    # numba alone: the kernels of the buffer (saved now) with the signatures they were checked with
    with open(os.path.join(workspace, "kernels.py"), "w") as handle:
        handle.write(buffer_text())
    stats = [s for s in _statistics(os.path.join(workspace, "kernels.py"), workspace) if not s.host]
    numba_s, numba = numba_alone(workspace, [(s.path, s.kernel, s.signature) for s in stats])
    result.update(kernels=KERNELS, kernels_checked=len(stats), numba_alone_s=numba_s,
                  numba_alone_compiled=numba["compiled"], debounce_s=DEBOUNCE, edits=EDITS,
                  machine_before=before, machine_after=machine())
    os.makedirs(os.path.dirname(output), exist_ok=True)
    with open(output, "w") as handle:
        json.dump(result, handle, indent=2)
    print(f"first diagnostics {result['first_diagnostics_s']:.2f} s after initialize "
          f"(server start {result['server_start_s']:.2f} s); numba alone compiling the same "
          f"{numba['compiled']} kernels {numba_s:.2f} s")
    for name in ("kernel_edit", "comment_edit"):
        row = result[name]
        print(f"{name.replace('_', ' ')}: median {row['median_s']:.2f} s, max {row['max_s']:.2f} s "
              f"(debounce {DEBOUNCE} s included; {EDITS} edits)")
    print(f"load average before {before['load_average']}, after {result['machine_after']['load_average']}")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
