"""Settings shared by every test process (each pytest-xdist worker loads this file too)."""

import os

# One BLAS/OpenMP thread per process, set before anything imports torch or numpy's BLAS, and
# inherited by the subprocesses tests start (the export CLI, the torch-free ONNX check). The
# test workers are the parallelism, as the training runs (`torch_threads: 1`) and evaluation
# workers already do: on a 2-core machine a second torch thread per worker only contends,
# turning a 0.5 s behaviour-cloning fit into 10 s or more. Results do not depend on it.
os.environ.setdefault("OMP_NUM_THREADS", "1")
