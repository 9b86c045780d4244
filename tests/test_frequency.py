"""How often a statement runs (kernlint.python.host.frequency): small host programs whose
lines state what the analysis must find — ``# loop: KIND`` on a loop, ``# runs: PLACE`` on a
statement, ``# step`` on a statement that runs on every iteration of a step loop (and
``# not step`` on one that does not), ``# trips: N`` on a loop whose count the code states."""
import ast
import re
import textwrap

import pytest

from conftest import FIXTURES, ROOT, expected_findings
from kernlint.python.host.frequency import (LOOP_KINDS, PLACES, Context, Level, Rate, analyse,
                                            analyse_module, required_parameters)

CASES = {
    "periodic output, modulo gate": ("sim.py", """
        def run(d_u, steps, out_every):
            frames = []
            for step in range(steps):  # loop: step
                advance[64, 256](d_u, 0.1)  # runs: every  # step
                if step % out_every == 0:
                    frames.append(d_u.copy_to_host())  # runs: periodic  # not step
                else:
                    pass  # runs: unknown
        """),
    "a range picking items of a list the function spells out: few pieces": ("exchange.py", """
        def exchange(species, n_float, send):
            attr_list = [(species, "x"), (species, "y")]
            if species.ionizer is not None:
                attr_list.append((species.ionizer, "level"))
            for i_attr in range(n_float):  # loop: few
                array = getattr(attr_list[i_attr][0], attr_list[i_attr][1])
                split[64, 256](array, send[i_attr])
                send[i_attr] = array.get()  # not step
        """),
    "a range over a short module-level tuple: few pieces; one that grows is not": ("fields.py", """
        COMPONENTS = ("r", "t", "z")
        GROWN = ["r", "t"]
        GROWN.append("z")

        def exchange(fields):
            for k in range(len(COMPONENTS)):  # loop: few  # trips: 3
                send(fields[COMPONENTS[k]].copy_to_host())
            for k in range(len(GROWN)):  # loop: unknown
                send(fields[GROWN[k]].copy_to_host())
        """),
    "a job worked through in batches: chunks, not steps": ("mesh.py", """
        def triangulate(verts, size):
            job_size, offset = size, 0
            while job_size > 0:  # loop: sweep
                batch = min(100, job_size // 1024 + 1)
                fill[batch, 1024](verts, offset)
                offset += batch * 1024
                job_size -= batch * 1024
        """),
    "a catch-up while runs on the iterations its value crossed": ("frame.py", """
        def run(d_u, steps, limit):
            for nt in range(steps):  # loop: step
                advance[64, 256](d_u, 0.1)
                tip = tip_position(d_u)
                while tip >= limit:  # runs: event  # loop: few
                    shift[64, 256](d_u)
                    z = d_u.copy_to_host()  # not step
                    tip = tip - 1
                sweeps = 0
                while sweeps < 2:  # runs: every  # loop: few
                    relax[64, 256](d_u)
                    sweeps += 1
        """),
    "periodic output, counter gate": ("sim.py", """
        def run(d_u, steps, out_every):
            since = 0
            for _ in range(steps):  # loop: step
                advance[64, 256](d_u, 0.1)
                since += 1  # runs: every
                if since == out_every:
                    since = 0
                    save(d_u.copy_to_host())  # runs: periodic
        """),
    "output times: the branch moves its own threshold": ("sim.py", """
        def run(d_u, t_end, dt, dt_out):
            t, next_out = 0.0, dt_out
            while t < t_end:  # loop: step
                advance[64, 256](d_u, dt)
                t += dt
                if t >= next_out:
                    save(d_u.copy_to_host())  # runs: periodic
                    next_out += dt_out
        """),
    "an early exit makes the rest periodic": ("operator.py", """
        class ForceOperator:
            def compute_force(self, time_step):
                if self.write_interval is None:
                    return
                if time_step % self.write_interval != 0:
                    return
                reduce[64, 256](self.d_partial)
                force = self.d_force.copy_to_host()  # runs: periodic

        def run(d_u, steps, every):
            for step in range(steps):  # loop: step
                advance[64, 256](d_u, 0.1)  # runs: every
                if step % every:
                    continue
                save(d_u.copy_to_host())  # runs: periodic  # not step
            for step in range(steps):  # loop: step
                if not step % every:
                    save(d_u.copy_to_host())  # runs: periodic
                if step % every:
                    advance[64, 256](d_u, 0.1)  # runs: unknown
                else:
                    save(d_u.copy_to_host())  # runs: periodic
        """),
    "an early exit on a flag the rest switches off": ("once.py", """
        class Report:
            def final(self, d_u):
                if self.written:
                    return
                np.save("final.npy", d_u.copy_to_host())  # runs: event
                self.written = True  # runs: event
        """),
    "a counter the branch advances is not a threshold": ("sim.py", """
        def march(d, columns):
            k = 0
            while True:  # loop: step
                advance[64, 256](d[:, k], 0.1)
                if k < columns - 1:
                    peaks.append(d[:, k].copy_to_host().argmax())  # runs: every  # step
                    k += 1
                else:
                    i = d[:, k].copy_to_host().argmax()  # runs: leaving  # not step
                    return i  # runs: leaving
        """),
    "retry: the copied count decides": ("search.py", """
        def hits(d_u, capacity):
            while True:  # loop: search
                d_out = cuda.device_array(capacity)  # runs: every  # not step
                kernel[64, 256](d_out, d_count, d_u)
                count = d_count.copy_to_host()  # not step
                if count[0] > capacity:
                    capacity = int(count[0])
                else:
                    break
        """),
    "convergence: the copied change decides the while": ("search.py", """
        def settle(d_u, tolerance):
            change = 1.0
            while change > tolerance:  # loop: search
                advance[64, 256](d_u, 0.1)
                change = float(d_err.copy_to_host()[0])  # not step
        """),
    "convergence in a bounded for: a break on a copied value": ("search.py", """
        def converge(d_x):
            for _ in range(1000):  # loop: search  # trips: 1000
                residual[1, 1](d_err, d_x)
                value = d_err.copy_to_host()
                if value[0] < 1e-6:
                    break
        """),
    "a convergence loop exchanging two buffers builds on each iteration: solver steps": ("jacobi.py", """
        def jacobi(d_p, d_p_new, d_f, tolerance, max_iters):
            for it in range(max_iters):  # loop: step
                relax[64, 256](d_p, d_f, d_p_new)
                d_diff = cuda.device_array(1, dtype=np.float32)  # runs: every  # step
                norm[64, 256](d_p_new, d_p, d_diff)
                if math.sqrt(d_diff.copy_to_host()[0]) < tolerance:
                    break
                d_p, d_p_new = d_p_new, d_p
        """),
    "a board refilled on the device from the next one is generations; a loop launching on its own is unknown": ("life.py", """
        class Life:
            def run(self, rounds, tqdm=None):
                for _ in range(rounds) if tqdm is None else tqdm(range(rounds)):  # loop: step
                    update[self.blocks, self.threads](self.d_board, self.d_next)
                    cuda.synchronize()  # runs: every  # step
                    self.d_board.copy_to_device(self.d_next)

            def shade_all(self, count):
                for _ in range(count):  # loop: unknown
                    shade[self.blocks, self.threads](self.d_board, self.d_image)
                    cuda.synchronize()  # not step
        """),
    "a while counting up to a parameter is a range: generations, where the launches keep a population": ("ga.py", """
        def evolve(d_pop, d_scores, generations, target):
            best, count = float("inf"), 0
            while count <= generations:  # loop: step
                if best <= target:
                    break
                d_parents = cp.ones_like(d_pop)  # runs: every  # step
                select[64, 256](d_pop, d_scores, d_parents)
                breed[64, 256](d_parents, d_pop)
                best = float(d_scores.min())
                count += 1

        def probe(d_x, tries, limit):
            count, found = 0, 0.0
            while count < tries:  # loop: search
                found = float(scan(d_x, count).max())
                if found > limit:
                    break
                count += 1
        """),
    "a tree asked, then grown, each iteration: generations with a way out": ("plan.py", """
        def plan(start, goal, iterations):
            tree = Tree(start)
            for _ in range(iterations):  # loop: step
                near = tree.nearest(sample())  # runs: every  # step
                new = steer(tree.vertices[near])
                if collides(new):
                    continue
                tree.add(new)  # runs: unknown  # not step
                if reached(new, goal):
                    return tree  # runs: leaving
        """),
    "a retry that asks the same object again and gives it nothing: a search": ("plan.py", """
        def widen(tree, sample, tries):
            radius = 0.01
            for _ in range(tries):  # loop: search
                near = tree.nearest(sample)  # not step
                if free(tree.vertices[near], radius):
                    return near
                radius *= 2.0
        """),
    "an option or the last iteration: each iteration where the option holds": ("jacobi.py", """
        def solve(d_x, d_y, iterations, tolerance):
            check = tolerance > 0
            for it in range(iterations):  # loop: step
                relax[64, 256](d_y, d_x)
                copy[64, 256](d_x, d_y)
                if check or it == iterations - 1:
                    error = d_y.copy_to_host().sum()  # runs: every  # step
                if it == iterations - 1 or flag_for(it):
                    d_x.copy_to_host()  # runs: unknown
        """),
    "a call in the while's test decides": ("search.py", """
        def solve(d_x):
            while not converged(d_x):  # loop: search
                step[64, 256](d_x)
        """),
    "a clock ends the loop: steps": ("run.py", """
        def relax_for(d_u, seconds):
            deadline = time.monotonic() + seconds
            while True:  # loop: step
                advance[64, 256](d_u, 0.1)
                history.append(d_u.copy_to_host().mean())  # step
                if time.monotonic() > deadline:
                    break
        """),
    "a clock read into a name ends the loop": ("run.py", """
        def relax_for(d_u, seconds):
            start = time.perf_counter()
            now = start
            while now - start < seconds:  # loop: step
                advance[64, 256](d_u, 0.1)
                now = time.perf_counter()
        """),
    "adaptive time steps: an accumulator advances whatever it adds": ("run.py", """
        def run(d_u, t_end):
            t = 0.0
            while t < t_end:  # loop: step
                dt = cfl / float(d_speed.copy_to_host().max())  # step
                advance[64, 256](d_u, dt)
                t += dt
        """),
    "a flag the branch switches off": ("flame.py", """
        class Flame:
            def advance(self, dt):
                kernel[64, 256](self.d_u, dt)  # runs: every
                self.front += self.speed * dt
                if self.burning and self.front > self.wall:
                    self.profile = self.d_u.copy_to_host()  # runs: event
                    self.burning = False
        """),
    "a value made once (`is None`)": ("cache.py", """
        def run(steps):
            table = None
            for _ in range(steps):  # loop: step
                if table is None:
                    table = cuda.to_device(make_table())  # runs: event  # not step
                kernel[64, 256](table)
        """),
    "a test that holds on one iteration": ("run.py", """
        def run(d_u, steps):
            for step in range(steps):  # loop: step
                advance[64, 256](d_u, 0.1)
                if step == steps - 1:
                    final = d_u.copy_to_host()  # runs: event
                if step == 0:
                    first = d_u.copy_to_host()  # runs: event
        """),
    "skipping one iteration leaves the rest on every other": ("slicer.py", """
        def run(d_img, n_steps):
            for z in range(n_steps):  # loop: step
                advance[64, 256](d_img, z)
                if z == 0:
                    continue
                cuda.synchronize()  # runs: every
                if z != n_steps - 1:
                    cuda.synchronize()  # runs: every
        """),
    "iterating until nothing changes is a step loop, a retry is a search": ("attractor.py", """
        def attract(d_s, capacity):
            n, last = 1, 0
            while n != last:  # loop: step
                advance[64, 256](d_s, 0.1)
                last = n
                n = len(set(d_s.copy_to_host().tolist()))
            done = False
            while not done:  # loop: search
                advance[64, 256](d_s, 0.1)
                done = int(d_s.copy_to_host()[0]) <= capacity
        """),
    "a loop with no way out is the program's main loop": ("viewer.py", """
        def show(d_img, view):
            while True:  # loop: step
                render[64, 256](d_img, view.zoom)
                view.draw(d_img.copy_to_host())
            while True:  # loop: search
                render[64, 256](d_img, view.zoom)
                err = float(d_img.copy_to_host().max())
                if err < view.tolerance:
                    break
        """),
    "a loop left when a counter reaches a small count is a few passes": ("join.py", """
        def join(d_img, d_out, passes):
            join_count = 10
            n = 1
            while 1:  # loop: few
                join_edges[64, 256](d_img, d_out, n)
                d_img = cuda.to_device(d_out.copy_to_host())
                if n == join_count:
                    break
                n += 1
            k = 0
            while True:  # loop: step
                join_edges[64, 256](d_img, d_out, k)
                if k == passes:
                    break
                k += 1
            steps = passes
            while steps > 0:  # loop: step
                join_edges[64, 256](d_img, d_out, steps)
                steps -= 1
        """),
    "blocks of one array under a progress bar are steps, without one chunks": ("pulses.py", """
        def stream(times, block, d_out):
            for f in tqdm(range(0, len(times), block)):  # loop: step
                advance[64, 256](d_out, times[f:f + block].sum())
            for f in range(0, len(times), block):  # loop: sweep
                advance[64, 256](d_out, times[f:f + block].sum())
        """),
    "a loop whose item is its result's slot, or its stream, is pieces": ("channels.py", """
        def channels(rxs, outs, streams, d_img):
            for rx, out in zip(rxs, outs):  # loop: sweep
                d_rx = cuda.to_device(rx)
                advance[64, 256](d_rx, 0.1)
                d_rx.copy_to_host(out)
            for stream, part in zip(streams, range(4)):  # loop: sweep
                advance[64, 256, stream](d_img, part)
        """),
    "an attempt that found nothing is skipped; the rest runs on each one that did": ("planner.py", """
        def grow(tree, n_steps):
            for step in range(n_steps):  # loop: step
                q = steer(tree, sample())
                if q is None:
                    continue
                nearest[64, 256](tree, q)
                cuda.synchronize()  # runs: every
                if far(q):
                    continue
                cuda.synchronize()  # runs: unknown
        """),
    "work on what the iteration's attempt got runs on each one that got something": ("camera.py", """
        def watch(sink, capture):
            while True:  # loop: step
                sample = sink.emit("try-pull-sample", 1000)
                if sample:
                    ok, info = sample.get_buffer().map(READ)
                    if ok:
                        d_frame = cuda.to_device(frame_of(info))  # runs: every  # step
                        edges[64, 256](d_frame)
                converged = settle(capture)
                if converged:
                    cuda.synchronize()  # runs: unknown
        """),
    "the arm a flag's own branch switches off returns to is the usual path": ("recognize.py", """
        def recognize(camera, learn):
            while True:  # loop: step
                d_edges = cuda.to_device(camera.read()[1])
                edges[64, 256](d_edges)
                if learn:
                    store(d_edges.copy_to_host())  # runs: event
                    learn = False
                else:
                    match[64, 256](d_edges)
                    cuda.synchronize()  # runs: every  # step
        """),
    "an error guard, a lazy part and a question of kind": ("batch.py", """
        def run_batch(sim, d_u):
            if sim.state is None:
                raise ValueError("no state")
            cuda.synchronize()  # runs: every
            if sim.buffers is None:
                sim.buffers = cuda.device_array(64)  # runs: event
            if not cuda.is_cuda_array(sim.data):
                sim.data = cuda.to_device(sim.data)  # runs: every
            sim.state = d_u
        """),
    "a raise on the way out": ("run.py", """
        def run(d_u, steps):
            for step in range(steps):  # loop: step
                advance[64, 256](d_u, 0.1)
                if blown_up(step):
                    final = d_u.copy_to_host()  # runs: leaving
                    raise RuntimeError(final.max())  # runs: leaving
        """),
    "a test the loop does not change runs every iteration or none": ("run.py", """
        def run(d_u, steps, use_cuda, verbose):
            for _ in range(steps):  # loop: step
                if use_cuda:
                    advance[64, 256](d_u, 0.1)  # runs: every  # step
                if verbose and self.debug:
                    cuda.synchronize()  # runs: every  # step
        """),
    "a test of what the loop computes is unknown (silent)": ("run.py", """
        def run(d_u, steps):
            for _ in range(steps):  # loop: step
                peak = d_u.copy_to_host().max()
                if peak > 1.0:
                    cuda.synchronize()  # runs: unknown  # not step
                if check(d_u):
                    cuda.synchronize()  # runs: unknown
        """),
    "a guard for work to do runs whenever there is work; a selection may be empty for long": ("contacts.py", """
        def forces(self):
            pairs = np.array(self.graph.get_edgelist())
            count = len(pairs)
            if count > 0:
                d_pairs = cuda.to_device(pairs)  # runs: every
            if len(pairs):
                cuda.synchronize()  # runs: every
            if pairs.shape[0] != 0:
                cuda.synchronize()  # runs: every
            escaped = np.where(self.x > self.wall)[0]
            if len(escaped) > 0:
                cuda.synchronize()  # runs: unknown
            close = np.array([p for p in self.pairs() if p.near])
            if close.size > 0:
                cuda.synchronize()  # runs: unknown
            if count > 1:
                cuda.synchronize()  # runs: unknown
        """),
    "skipping an empty piece leaves every other iteration's work; skipping a selection does not": ("skip.py", """
        def evaluate(x, batch, limit):
            for i in range(0, x.size, batch):
                rows = np.arange(i, min(i + batch, x.size))
                n = len(rows)
                if n == 0:
                    continue
                cuda.synchronize()  # runs: every
                if not len(rows):
                    continue
                cuda.synchronize()  # runs: every
                if rows.size <= 0:
                    continue
                else:
                    cuda.synchronize()  # runs: every
                far = np.flatnonzero(x[rows] > limit)
                if len(far) == 0:
                    continue
                cuda.synchronize()  # runs: unknown
                if n == 1:
                    continue
                cuda.synchronize()  # runs: unknown
        """),
    "exception handlers and a loop's else": ("run.py", """
        def run(d_u, steps):
            for _ in range(steps):  # loop: step
                try:
                    advance[64, 256](d_u, 0.1)  # runs: every
                except RuntimeError:
                    dump(d_u.copy_to_host())  # runs: event
                finally:
                    log()  # runs: every
            else:
                done(d_u.copy_to_host())  # runs: every
        """),
    "sizes: the variable becomes an allocation's size": ("sweep.py", """
        def study(steps):
            for n in (1 << 12, 1 << 16, 1 << 20):  # loop: sweep  # trips: 3
                d_u = cuda.device_array(n, dtype=np.float32)  # runs: every  # not step
                for _ in range(steps):  # loop: step
                    advance[n // 256, 256](d_u, 0.1)  # step
            for i in range(len(table)):  # loop: sweep
                out = cuda.device_array((table[i], 3))
        """),
    "devices, by what the code does": ("devices.py", """
        def everywhere(u0, steps):
            for k in range(n):  # loop: sweep
                cuda.select_device(k)
                d_u = cuda.to_device(u0)  # not step
            for gpu in cuda.gpus:  # loop: sweep
                with gpu:
                    d_u = cuda.to_device(u0)
            for i in range(len(cuda.list_devices())):  # loop: sweep
                with cuda.gpus[i]:
                    d_u = cuda.to_device(u0)
        """),
    "a name that says gpus is not a device loop": ("frames.py", """
        def share(frames, rank, gpus, d_state):
            for i in range(rank, len(frames), gpus):  # loop: step
                d_frame = cuda.to_device(frames[i])  # step
            for n_gpus in range(gpus):  # loop: step
                d_x = cuda.device_array(1024)  # step
                fill[4, 256](d_x, d_state)
                relax[4, 256](d_state)
        """),
    "files and parameters": ("batch.py", """
        def each_file(root):
            for path in sorted(glob.glob(root + "/*.npy")):  # loop: sweep
                d_x = cuda.to_device(np.load(path))  # not step
            for dtype in (np.float32, np.float64):  # loop: sweep  # trips: 2
                d_x = cuda.device_array(16, dtype=dtype)
        """),
    "chunks of one array": ("chunks.py", """
        def in_chunks(x, chunk):
            start = 0
            while start < x.size:  # loop: sweep
                stop = min(start + chunk, x.size)
                d = cuda.to_device(x[start:stop])  # not step
                start = stop
            for i in range(0, x.size, chunk):  # loop: sweep
                d = cuda.to_device(x[i:i + chunk])
        """),
    "few pieces and a few repeats": ("net.py", """
        N_LAYERS = 3

        def forward(d_x, weights):
            for layer in range(N_LAYERS):  # loop: few  # trips: 3
                d_out = cuda.device_array(256)  # not step
                dense[1, 256](d_out, d_x, weights[layer])
            for chunk in np.array_split(x, 8):  # loop: few  # trips: 8
                d_chunk = cuda.to_device(chunk)
            for _ in range(10):  # loop: few  # trips: 10
                dense[1, 256](d_out, d_x, weights[0])
        """),
    "few inside a step still runs on every step": ("net.py", """
        def train(d_x, weights, epochs):
            for epoch in range(epochs):  # loop: step
                for layer in range(3):  # loop: few
                    d_out = cuda.device_array(256)  # step
                    dense[1, 256](d_out, d_x, weights[layer])
        """),
    "parts of a model and a stream of frames": ("model.py", """
        def run(parts, frames, steps):
            for _ in range(steps):  # loop: step
                for part in parts:  # loop: sweep
                    advance[64, 256](part.d_state, 0.1)
                    scratch = cuda.device_array_like(part.d_state)  # step
            for frame in frames:  # loop: step
                out = cuda.device_array(frame.size)  # step
                kernel[64, 256](out, cuda.to_device(frame.ravel()))
        """),
    "modes and boundaries: every launch on the piece the variable indexes": ("modes.py", """
        def gather(self, grid, Nm):
            for m in range(Nm):  # loop: sweep
                gather_one_mode[64, 256](self.x, grid[m].Er, grid[m].Et, m)
                scratch = cuda.device_array(64)  # not step
            for itr in range(len(self.kernels)):  # loop: sweep
                kernel = self.kernels[itr]
                kernel[64, 256](*self.args[itr])
        """),
    "a time loop with a per-step source term stays a step loop": ("fdtd.py", """
        def run(cfg, Ex, Hz):
            for n in range(cfg.nt):  # loop: step
                update_h[64, 256](Ex, Hz)
                source[1, 1](Ex, cfg.J_SRC[n])
                update_e[64, 256](Ex, Hz)
                probe = Ex.copy_to_host()  # step
            for i in range(steps):  # loop: step
                kernel[64, 256](buffers[i % 2], buffers[(i + 1) % 2])
        """),
    "a reduction tree: the counter is divided each time": ("reduce.py", """
        def total(d_partial, n, threads):
            size = n
            while True:  # loop: few
                blocks = int(np.ceil(size / threads))
                reduce[blocks, threads](d_partial, size)
                if blocks == 1:
                    break
                size = blocks
            while n > 1:  # loop: few
                n //= 2
                fold[n, 1](d_partial, n)
        """),
    "a list the function spells out": ("lists.py", """
        def exchange(species, new_n):
            attr_list = [(species, "x"), (species, "y"), (species, "z")]
            for i_attr in range(len(attr_list)):  # loop: sweep
                buffer = cupy.empty((new_n,), dtype=np.float64)  # not step
            for attr in attr_list:  # loop: sweep
                copy[64, 256](getattr(*attr))
        """),
    "a chunk is bounded by the loop's own variable, not any counter": ("tip.py", """
        def run(steps, window):
            tip = 0
            for kt in range(steps):  # loop: step
                advance[64, 256](d_phi)
                tip += 1
                d_phi[:, tip - window:tip] = 0
        """),
    "a scalar per iteration is not a stream of data": ("amplitudes.py", """
        def apply(self, amplitudes, d_field):
            for amplitude in amplitudes:  # loop: unknown
                scale[64, 256](d_field, amplitude)
        """),
    "what nothing says is unknown": ("loop.py", """
        def serve(self, items):
            while self.running:  # loop: unknown
                cuda.synchronize()  # not step
            for item in items:  # loop: unknown
                handle(item)
        """),
    "trips from a parameter's default and from a constant": ("timing.py", """
        STEPS = 10 ** 5

        def simulate(d_u, n_steps=100_000):
            for step in range(n_steps):  # loop: step  # trips: 100000
                advance[64, 256](d_u, 0.1)
            for step in range(2, STEPS, 2):  # loop: step  # trips: 49999
                advance[64, 256](d_u, 0.1)
        """),
    "construction and warm-up run once": ("model.py", """
        class Model:
            def __init__(self, parts):
                for part in parts:  # loop: setup
                    self.buffers.append(cuda.device_array(part.size))  # not step

            def compile(self):
                for part in self.parts:  # loop: setup
                    scratch = cuda.device_array_like(part.state)  # not step
                    advance[1, 32](scratch, 0.0)

            def run(self, steps):
                self.compile()
                for _ in range(steps):  # loop: step
                    self.step()
        """),
    "warm-up called on every step is not set-up: the code beats the name": ("model.py", """
        class Model:
            def prepare(self):
                for part in self.parts:  # loop: sweep
                    scratch = cuda.device_array_like(part.d_state)

            def run(self, steps):
                for _ in range(steps):  # loop: step
                    self.prepare()
        """),
    "pytest collects test* functions and Test* classes without __init__": ("test_solver.py", """
        def test_mass(sizes):
            for n in range(64, 1024, 64):  # loop: sweep
                cuda.synchronize()  # not step

        def tester(steps):
            for _ in range(steps):  # loop: sweep
                cuda.synchronize()

        def run_case(steps):
            for _ in range(steps):  # loop: step
                cuda.synchronize()  # step

        class TestAdvance:
            def test_stable(self):
                for _ in range(100):  # loop: sweep
                    cuda.synchronize()

            def _helper(self, steps):
                for _ in range(steps):  # loop: sweep
                    cuda.synchronize()

        class TestHarness:
            def __init__(self):
                self.n = 1

            def soak(self, steps):
                for _ in range(steps):  # loop: step
                    cuda.synchronize()  # step

        class Checks(unittest.TestCase):
            def test_it(self):
                for _ in range(10):  # loop: sweep
                    cuda.synchronize()

        class TestNotCollected:
            __test__ = False

            def test_it(self, steps):
                for _ in range(steps):  # loop: step
                    cuda.synchronize()
        """),
    "a loop checking each iteration's copy against the host's verifies; a gated check does not": ("check.py", """
        from numpy.testing import assert_array_equal

        def compare(d_u, u, steps):
            for _ in range(steps):  # loop: verify
                advance[64, 256](d_u, 0.1)  # not step
                u = reference(u)
                np.testing.assert_allclose(u, cp.asnumpy(d_u), rtol=1e-5)

        def compare_asserted(d_u, u, steps):
            t = 0
            while t < steps:  # loop: verify
                advance[64, 256](d_u, 0.1)
                got = d_u.copy_to_host()  # not step
                assert np.allclose(u, got) and t >= 0
                t += 1

        def compare_bare(d_u, u, steps, out):
            for _ in range(steps):  # loop: verify
                with timer():
                    advance[64, 256](d_u, 0.1)
                    d_u.copy_to_host(out)
                    assert_array_equal(out, u)

        def gated(d_u, u, steps):
            for step in range(steps):  # loop: step
                advance[64, 256](d_u, 0.1)  # step
                if step % 100 == 0:
                    np.testing.assert_allclose(u, d_u.copy_to_host())

        def host_only(d_u, e0, steps):
            for _ in range(steps):  # loop: step
                advance[64, 256](d_u, 0.1)  # step
                np.testing.assert_allclose(energy(e0), e0)
        """),
    "outside a test file nothing is a test": ("bench.py", """
        def tester(steps):
            for _ in range(steps):  # loop: step
                cuda.synchronize()  # step

        class Testbed:
            def run(self, steps):
                for _ in range(steps):  # loop: step
                    cuda.synchronize()  # step

        def test_scales(steps):
            for _ in range(steps):  # loop: step
                cuda.synchronize()  # step
        """),
    "a module-level script": ("script.py", """
        import matplotlib.pyplot as plt
        import numpy as np
        from numba import cuda
        from kernels import advance
        u, nsteps, ax = np.zeros(64), 100, plt.gca()
        d_u = cuda.to_device(u)  # runs: every  # not step
        for step in range(20_000):  # loop: step  # trips: 20000
            advance[64, 256](d_u, 0.1)
            if step % 2_000 == 0:
                ax.plot(d_u.copy_to_host())  # runs: periodic  # not step
        if __name__ == "__main__":
            for step in range(nsteps):  # loop: step
                ax.set_title(str(d_u.copy_to_host().max()))  # step
        """),
    "a network's layers, indexed or last first: parts of one step, not steps": ("network.py", """
        class Network:
            def learn(self, d_x):
                for i in range(len(self.layers)):  # loop: sweep
                    d_x = self.layers[i].forward(d_x)
                for i in reversed(range(len(self.layers))):  # loop: sweep
                    d_x = self.layers[i].backward(d_x)
                for i in range(len(self.buffers)):  # loop: unknown
                    d_x = self.buffers[i].copy_to_host()
        """),
    "a method named for a step, in any spelling, breaks a tie": ("emsystem.py", """
        class System:
            def Update(self, dt, n):
                for i in range(n):  # loop: step
                    self.UpdateState(dt)  # step
            def train(self, net, data):
                for d_x in data:  # loop: step
                    net.learn(d_x)  # step
            def report(self, n):
                for i in range(n):  # loop: unknown
                    self.updated_flags(i)
        """),
    "an evaluation pass every N batches does not make the training loop a run of it": ("train.py", """
        def train(net, batches, tests, lr):
            for i in range(len(batches)):  # loop: step
                net.forward(batches[i])  # step
                net.update_parameters(lr)  # step
                if (i + 1) % 100 == 0:
                    seen = 0
                    for x in tests:  # loop: step
                        net.forward(x)  # step
                        seen += 1
        def evaluate_each(net, models, tests):
            for model in models:  # loop: sweep
                seen = 0
                for x in tests:  # loop: step
                    model.forward(x)  # step
                    seen += 1
        """),
    "rows of an index array, one launch each, are parts of one pass": ("graph.py", """
        def backward(d_grad, d_state, nodes, outputs):
            for node in nodes[::-1]:  # loop: sweep
                spread[64, 256](d_grad, d_state, node)
            for output in outputs:  # loop: sweep
                gather[64, 256](d_grad, d_state, output[0], output[1])
            for row in rows[1:]:  # loop: unknown
                spread[64, 256](d_grad, d_state, row)
                scale[64, 256](d_other, 0.5)
        """),
    "a counter up to a constant counts the iterations": ("counted.py", """
        def run(d_u, sim_steps=1, limit=4):
            step = 0
            while step < sim_steps:  # loop: few  # trips: 1
                advance[64, 256](d_u, 0.1)
                step += 1
            k = 2
            while k <= 40:  # loop: step  # trips: 39
                advance[64, 256](d_u, 0.1)
                k = k + 1
            k = 0
            while k < limit:  # loop: few
                advance[64, 256](d_u, 0.1)
                if d_u is None:
                    k += 1
        """),
    "a top-level read of a name nothing binds there: the module stops, what follows never runs": ("script.py", """
        import numpy as np
        from numba import cuda

        def make_batches(x, size):
            n_batches = len(x) // size
            return x.reshape(n_batches, size)

        def relax(d_u, steps):
            for step in range(steps):  # loop: step
                advance[64, 256](d_u, 0.1)  # runs: every  # step

        def relax_late(d_u, steps):
            for step in range(steps):  # runs: never
                advance[64, 256](d_u, 0.1)  # runs: never  # not step

        d_u = cuda.to_device(np.zeros(64))
        batches = make_batches(np.zeros(4096), 64)
        relax(d_u, 10)
        for i in range(n_batches):  # runs: every
            advance[64, 256](d_u, 0.1)  # runs: never  # not step
        relax(d_u, 10)  # runs: never
        relax_late(d_u, 10)  # runs: never

        def evaluate(d_u):
            for step in range(100):  # runs: never
                advance[64, 256](d_u, 0.1)  # runs: never  # not step
        """),
    "names the module binds anywhere, in any way, or that Python gives: it runs on": ("bound.py", """
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from numpy.typing import NDArray

        def configure():
            global settings
            settings = {"steps": 10}

        try:
            steps = STEPS
        except NameError:
            steps = 100
        with open(__file__) as handle:
            header = handle.readline()
        for line in header:
            last = line
        try:
            configure()
        except ValueError as error:
            pass
        kept = [y := 3]
        print(last, error, y, settings, NDArray, later, ExceptionGroup, len(kept))
        later = 1

        def run(d_u):
            for step in range(steps):  # loop: step
                advance[64, 256](d_u, 0.1)  # runs: every  # step
        """),
    "reads that may not happen: it runs on": ("unsure.py", """
        flag = False
        if flag and missing:
            print(missing)
        value = missing if flag else 0
        later = lambda: missing
        assert missing
        doubled = [missing for _ in ()]

        def run(d_u, steps):
            for step in range(steps):  # loop: step
                advance[64, 256](d_u, 0.1)  # runs: every  # step
        """),
    "records read from a file are a sweep; a count read from one, or records carried on, are not": ("saved.py", """
        import h5py
        import numpy as np

        trajectory = "run.h5"
        saved = Reader(trajectory).open_blocks()
        positions = saved["block"][:, 0].reshape(-1, 64, 3)
        for pos in positions[::8]:  # loop: sweep
            calc.positions[:] = pos
            calc.update()
        settings = np.load("settings.npz")
        for step in range(settings["steps"]):  # loop: step
            sim.update()
        d_state = cuda.to_device(np.zeros(64))
        for frame in np.load("frames.npy"):  # loop: step
            blend[64, 256](d_state, frame)
            decay[64, 256](d_state, 0.9)
        """),
    "names bound out of sight (a star import, globals()): it runs on": ("star.py", """
        from physics import *
        globals()["n_cells"] = 64
        print(grid, n_cells)

        def run(d_u, steps):
            for step in range(steps):  # loop: step
                advance[64, 256](d_u, 0.1)  # runs: every  # step
        """),
}

_MARK = re.compile(r"#\s*(loop|runs|trips):\s*(\w+)|#\s*(not step|step)\s*(?=#|$)")


def _marks(source):
    for number, line in enumerate(source.splitlines(), start=1):
        for match in _MARK.finditer(line):
            if match.group(1):
                yield number, match.group(1), match.group(2)
            else:
                yield number, match.group(3), None


def _read(path, source):
    tree = ast.parse(source)
    bodies = analyse_module(tree, path)
    by_line = {}  # line -> (its body's Frequency, the outermost statement that starts there)
    for frequency in bodies.values():
        for statement in frequency.statements():
            by_line.setdefault(statement.node.lineno, (frequency, statement))
    return bodies, by_line


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_marked_line(name):
    path, source = CASES[name]
    source = textwrap.dedent(source)
    _, by_line = _read(path, source)
    marks = list(_marks(source))
    assert marks
    for line, what, value in marks:
        frequency, statement = by_line[line]
        where = f"line {line}: {source.splitlines()[line - 1].strip()}"
        if what == "loop":
            loop = frequency.loop(statement.node)
            assert (loop.kind, where) == (value, where), loop.reason
            assert loop.reason
        elif what == "trips":
            assert (frequency.loop(statement.node).trips, where) == (int(value), where)
        elif what == "runs":
            assert (statement.place, where) == (value, where), statement.reason
            assert statement.reason
        else:
            rate = frequency.rate(statement.node)
            assert (rate.every_step, where) == (what == "step", where), rate


def test_kinds_and_places_are_the_documented_ones():
    for path, source in CASES.values():
        bodies, _ = _read(path, textwrap.dedent(source))
        for frequency in bodies.values():
            assert {loop.kind for loop in frequency.loops} <= set(LOOP_KINDS)
            assert {s.place for s in frequency.statements()} <= set(PLACES)


def test_reasons_name_what_decided():
    _, by_line = _read("search.py", textwrap.dedent(CASES["retry: the copied count decides"][1]))
    frequency, statement = by_line[3]
    assert "`count`" in frequency.loop(statement.node).reason
    _, by_line = _read("sim.py", textwrap.dedent(CASES["periodic output, modulo gate"][1]))
    frequency, statement = by_line[7]
    assert "`step % out_every == 0`" in statement.reason


def _callee_rate(source, qualname, line):
    bodies, by_line = _read("m.py", textwrap.dedent(source))
    frequency, statement = by_line[line]
    assert frequency is bodies[qualname]
    return frequency.rate(statement.node)


CALLS = """
    class Flame:
        def advance(self, dt):
            kernel[64, 256](self.d_u, dt)
            if self.burning and self.front > self.wall:
                self.profile = self.d_u.copy_to_host()
                self.burning = False
            self.maxima.append(self.d_u.copy_to_host().max())

    def burn(flames, steps):
        for _ in range(steps):
            for flame in flames:
                flame.advance(1e-3)
        flames[0].advance(1e-3)
    """


def test_a_callee_runs_at_its_call_sites_rate():
    site_in_loop = _callee_rate(CALLS, "burn", 13)
    site_once = _callee_rate(CALLS, "burn", 14)
    every_call = _callee_rate(CALLS, "Flame.advance", 8)
    once_per_flame = _callee_rate(CALLS, "Flame.advance", 6)
    assert site_in_loop.every_step and not site_once.every_step
    assert not every_call.every_step  # no loop of its own
    assert site_in_loop.through(every_call).every_step
    assert site_in_loop.through(every_call).step_loop.line == 11
    assert not site_in_loop.through(once_per_flame).every_step  # an event stays an event
    assert not site_once.through(every_call).every_step


def test_rates_compose_in_order():
    step = Rate((Level("body", "every", 1), Level("step", "every", 3)))
    search = Rate((Level("body", "every", 10), Level("search", "every", 12)))
    pieces = Rate((Level("body", "every", 20), Level("sweep", "every", 22)))
    assert step.every_step and not search.every_step
    assert not step.through(search).every_step  # a retry inside a step: its reads are the point
    assert step.through(pieces).every_step  # pieces of each step
    assert pieces.through(step).step_loop.line == 3  # a step loop called for each piece
    assert not Rate().every_step


def test_analyse_reads_a_bare_function_or_statements():
    function = ast.parse(textwrap.dedent("""
        def f(d, steps=5000):
            for _ in range(steps):
                cuda.synchronize()
        """)).body[0]
    frequency = analyse(function, Context(path="f.py", qualname="f"))
    assert [(loop.kind, loop.trips) for loop in frequency.loops] == [("step", 5000)]
    statements = analyse(function.body)
    assert [loop.kind for loop in statements.loops] == ["step"]
    assert statements.rate(function.body[0].body[0]).every_step
    with pytest.raises(KeyError):
        statements.of(function)  # not a statement of that body


def test_every_definition_is_a_body_of_its_own():
    source = textwrap.dedent("""
        if __name__ == "__main__":
            def main(steps):
                for _ in range(steps):
                    cuda.synchronize()
            try:
                import cupy
            except ImportError:
                def fallback():
                    pass
        """)
    bodies = analyse_module(ast.parse(source), "script.py")
    assert set(bodies) == {"", "main", "fallback"}
    assert [loop.kind for loop in bodies["main"].loops] == ["step"]
    assert bodies[""].loops == []


# ------------------------------------------------------------------ the fact against the fixtures

FREQUENCY_FIXTURES = sorted((FIXTURES / "host" / "frequency").glob("*.py"))
# what the per-step rules (KL501/KL502/KL503/KL505) report when it runs on every step
_COSTLY = {"copy_to_host", "synchronize", "device_array", "device_array_like", "to_device", "argmax"}


def _rates_through_calls(bodies, qualname, statement_rate):
    """The statement's rates, each with the line of the call it is reached through (None: in
    its own body): in its own body, and at each call of its function in the module (by name,
    one level: what the fixtures need)."""
    rates = [(None, statement_rate)]
    name = qualname.rsplit(".", 1)[-1]
    for caller in bodies.values():
        for site in caller.statements():
            calls = [c for c in ast.walk(site.node) if isinstance(c, ast.Call)
                     and (getattr(c.func, "attr", None) or getattr(c.func, "id", None)) == name]
            if calls and not isinstance(site.node, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                rates.append((site.node.lineno, caller.rate(site.node).through(statement_rate)))
    return rates


def _value_needed(node, tree, line) -> bool:
    """An assignment of a name its function then tests (``shift = ...``, ``while shift > tol``)
    or slices and stores with (``d[:found] = ...``, ``d_size[0] = found``): the host needs it."""
    if not isinstance(node, ast.Assign):
        return False
    names = {t.id for target in node.targets for t in ast.walk(target) if isinstance(t, ast.Name)}
    scope = next((f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and f.lineno == line), node)
    needed = set()
    for sub in ast.walk(scope):
        if isinstance(sub, (ast.If, ast.While)):
            needed |= {n.id for n in ast.walk(sub.test) if isinstance(n, ast.Name)}
        elif isinstance(sub, ast.Subscript):
            needed |= {n.id for n in ast.walk(sub.slice) if isinstance(n, ast.Name)}
        elif isinstance(sub, ast.Assign) and any(isinstance(t, ast.Subscript) for t in sub.targets):
            needed |= {n.id for n in ast.walk(sub.value) if isinstance(n, ast.Name)}
    # (a name computed from it that is tested, however many names on: `shift = abs(moved - centres).max()`
    # where `moved = _lloyd(points, centres, labels)`)
    grown = True
    while grown:
        before = len(needed)
        for sub in ast.walk(scope):
            if isinstance(sub, ast.Assign) and needed & {t.id for t in sub.targets if isinstance(t, ast.Name)}:
                needed |= {n.id for n in ast.walk(sub.value) if isinstance(n, ast.Name)}
        grown = len(needed) > before
    return bool(names & needed)


@pytest.mark.parametrize("path", FREQUENCY_FIXTURES, ids=[p.name for p in FREQUENCY_FIXTURES])
def test_the_frequency_fixtures_agree_with_the_fact(path):
    """A line the fixture expects a per-step finding on runs on every step (in its body or
    through a call of its function); a costly call on any other line does not, unless its
    value decides the iteration's control flow (a branch's or a loop's test), or it runs on
    every step through a call where the fixture expects the finding (at the call)."""
    source = path.read_text()
    expected = {line for code, line in expected_findings(path) if code in ("KL501", "KL502", "KL503", "KL505")}
    tree = ast.parse(source)
    bodies = analyse_module(tree, str(path))
    seen = set()
    for qualname, frequency in bodies.items():
        for statement in frequency.statements():
            node, line = statement.node, statement.node.lineno
            if line in seen:
                continue
            seen.add(line)
            deciding = isinstance(node, (ast.If, ast.While)) or _value_needed(node, tree, bodies[qualname].line)
            own = [node.test] if isinstance(node, (ast.If, ast.While)) else [] if isinstance(node, (ast.For, ast.With, ast.Try)) else [node]
            called = {getattr(c.func, "attr", None) or getattr(c.func, "id", None)
                      for part in own for c in ast.walk(part) if isinstance(c, ast.Call)}
            rates = _rates_through_calls(bodies, qualname, frequency.rate(node))
            where = f"{path.name}:{line}: {source.splitlines()[line - 1].strip()}"
            if line in expected and isinstance(node, ast.While):  # its test runs on each of its iterations
                rates += _rates_through_calls(bodies, qualname, frequency.rate(node.body[0]))
            if line in expected:
                assert any(r.every_step for _, r in rates), where
            elif called & _COSTLY and not deciding:
                assert not any(r.every_step and site not in expected for site, r in rates), where


REQUIRED = {
    "indexed in the test on the way": ("""
        def action(self, config, deformation=None):
            if deformation[1] is not None:
                launch(config)  # here
        """, ("deformation",)),
    "an attribute read before": ("""
        def action(config, model=None, scale=None):
            n = model.size
            launch(config, n, scale)  # here
        """, ("model",)),
    "passed on is not a use": ("""
        def action(config, model=None):
            n = measure(model)
            launch(config, n)  # here
        """, ()),
    "tested against None first": ("""
        def action(config, model=None):
            if model is not None and model.ready:
                prepare(model)
            launch(config)  # here
        """, ()),
    "after `and`, in a branch not taken, or in a `try`": ("""
        def action(config, model=None, extra=None, table=None):
            flag = model and model[0]
            if config.ok:
                extra.prepare()
            try:
                t = table[0]
            except TypeError:
                t = 0
            launch(config, flag, t)  # here
        """, ()),
    "assigned in the function": ("""
        def action(config, model=None):
            if model is None:
                model = default()
            model.prepare()
            launch(config)  # here
        """, ()),
    "iterated, called, computed with": ("""
        def action(config, parts=None, hook=None, offset=None, *, scale=None):
            for part in parts:
                pass
            hook()
            x = offset + 1
            launch(config * scale)  # here
        """, ("hook", "offset", "parts", "scale")),
    "a default that is not None": ("""
        def action(config, steps=10):
            x = steps + 1
            launch(config, x)  # here
        """, ()),
}


@pytest.mark.parametrize("name", REQUIRED)
def test_what_a_statement_needs_its_callers_to_pass(name):
    """A parameter defaulting to None that the function surely uses as a value on the way to a
    statement: a call leaving it out raises before the statement runs."""
    source, expected = REQUIRED[name]
    source = textwrap.dedent(source)
    function = ast.parse(source).body[0]
    line = next(n for n, text in enumerate(source.splitlines(), 1) if text.endswith("# here"))
    assert required_parameters(function, line) == expected


def test_long_loop_timing_counts_the_launches_the_code_states():
    path = FIXTURES / "host" / "frequency" / "timing.py"
    bodies = analyse_module(ast.parse(path.read_text()), str(path))
    trips = {name: [loop.trips for loop in bodies[name].loops] for name in ("simulate", "Run.go", "benchmark")}
    assert trips == {"simulate": [100_000], "Run.go": [None], "benchmark": [10]}


def test_a_host_fact_finds_its_rate_by_line():
    source = textwrap.dedent("""
        def run(d_u, d_err, steps, tolerance):
            err = 1.0
            while err > float(d_err.copy_to_host()[0]):
                advance[64, 256](d_u, 0.1)
            for step in range(steps):
                print(f"step {step}",
                      d_u.copy_to_host().max())
                if sum(d_flags) > 0:
                    raise FloatingPointError(step)
        """)
    frequency = analyse_module(ast.parse(source), "run.py")["run"]
    assert frequency.at(7).node.lineno == 7 and frequency.at(8).node.lineno == 7  # a call on a statement's 2nd line
    assert isinstance(frequency.at(9).node, ast.If)
    assert frequency.at(1) is None
    assert frequency.rate_at(8).every_step and frequency.rate_at(9).every_step
    while_test = frequency.rate_at(4)
    assert [level.kind for level in while_test.levels] == ["body", "search"]  # each iteration of the search
    assert not while_test.every_step


def test_total_on_every_python_file_of_the_repository():
    """No construct stops the reading: every statement of every body gets a place, every
    loop a kind (kernlint's own sources and every fixture, kernels and odd syntax included)."""
    read = 0
    for path in sorted(ROOT.glob("kernlint/**/*.py")) + sorted(FIXTURES.rglob("*.py")):
        try:
            tree = ast.parse(path.read_text())
        except SyntaxError:
            continue  # fixtures/syntax_error.py
        for frequency in analyse_module(tree, str(path)).values():
            for statement in frequency.statements():
                assert statement.place in PLACES and statement.reason
                frequency.rate(statement.node)
            assert all(loop.kind in LOOP_KINDS and loop.reason for loop in frequency.loops)
        read += 1
    assert read > 100
