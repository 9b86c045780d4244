"""The numba.cuda and CuPy calls the host reader knows by name: those that allocate,
wait for the device or read a clock. Imports nothing.
"""

# numba.cuda calls that allocate page-locked host memory (a copy into it on a stream stays asynchronous)
PAGE_LOCKED = {
    "numba.cuda.pinned_array", "numba.cuda.pinned_array_like", "numba.cuda.mapped_array",
    "numba.cuda.mapped_array_like", "numba.cuda.managed_array",
}
# numba.cuda and CuPy calls that allocate device (or pinned/mapped) memory
ALLOCATIONS = PAGE_LOCKED | {
    "numba.cuda.device_array", "numba.cuda.device_array_like", "numba.cuda.to_device",
    "cupy.zeros", "cupy.ones", "cupy.empty", "cupy.full", "cupy.zeros_like", "cupy.ones_like",
    "cupy.empty_like", "cupy.full_like", "cupy.asarray", "cupy.array", "cupy.arange", "cupy.linspace",
    "cupy.copy", "cupy.ascontiguousarray",
    # a device array of RNG states, seeded on the host and copied in
    "numba.cuda.random.create_xoroshiro128p_states",
}
SYNCS = {"numba.cuda.synchronize", "cupy.cuda.runtime.deviceSynchronize", "cupy.cuda.Device.synchronize"}
CLOCKS = {"time.perf_counter", "time.time", "time.monotonic", "time.process_time", "time.perf_counter_ns",
          "time.time_ns", "time.monotonic_ns", "timeit.default_timer"}
# the host idling on purpose (a throttle): a wait before it costs the loop nothing more
PAUSES = {"time.sleep"}
# mpi4py's buffer methods (the upper-case ones): they read or write the memory a buffer holds,
# device memory too with a CUDA-aware MPI (`__cuda_array_interface__`), on the host's side of
# the stream, so the kernels that wrote it must be done first
MPI_BUFFER_CALLS = {"Send", "Isend", "Ssend", "Issend", "Rsend", "Irsend", "Bsend", "Ibsend", "Recv", "Irecv",
                    "Sendrecv", "Isendrecv", "Sendrecv_replace", "Bcast", "Ibcast", "Reduce", "Ireduce", "Allreduce",
                    "Iallreduce", "Gather", "Gatherv", "Igather", "Allgather", "Allgatherv", "Iallgather",
                    "Scatter", "Scatterv", "Iscatter", "Alltoall", "Alltoallv", "Ialltoall"}
