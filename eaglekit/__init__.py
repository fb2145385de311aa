"""eaglekit: compliant synthetic training data, training and serving for EAGLE-3 draft heads."""
import os

# OpenMP threads that spin while waiting turn every small CPU GEMM into a stall whenever another
# process holds a core (measured here: 3.2 s instead of 0.07 s per SmolLM2 decode step on a busy
# 2-core box). Passive waiting costs nothing measurable when the machine is idle. It must be set
# before torch loads its OpenMP runtime, hence here; a value the user set wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

__version__ = "0.1.0"
