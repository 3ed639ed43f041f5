"""roofline from Python: the binary's documents as objects, its commands as functions.

The numbers come from the Rust binary (installed with this package as the
`roofline` command); this package reads the JSON documents it writes and
runs it. Nothing is recomputed here.

    import roofline
    a = roofline.load("roofline-tour/analysis.json")     # an Analysis
    a.kernels[0].pct_of_roof, a.machine.roofs[0].rate
    a.to_pandas()                                       # needs pandas
    a                                                   # in Jupyter: the interactive chart
    a = roofline.profile(["python", "train.py"], nvtx_include="step 3/")
    roofline.check(a, min_pct_of_roof=60).passed

docs/python.md has the whole API.
"""

from ._binary import (
    BIN_ENV,
    INJECT_ENV,
    BinaryNotFoundError,
    DocumentError,
    RooflineError,
    RooflineFailure,
    RooflineUsageError,
    binary,
    inject_library,
)
from .commands import (
    bench,
    check,
    diff,
    import_,
    import_capture,
    merge,
    model,
    peaks,
    profile,
    report,
    run,
    sol,
    timeline,
    tour,
    version,
)
from .documents import (
    Analysis,
    CheckResult,
    Diff,
    Document,
    Kernel,
    Machine,
    MachineDocument,
    Merged,
    Point,
    Record,
    Roof,
    Timeline,
    from_dict,
    load,
    loads,
)

from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("roofline")
except _metadata.PackageNotFoundError:  # running from a source checkout
    __version__ = "0.0.0+source"

__all__ = [
    "load", "loads", "from_dict",
    "run", "profile", "import_", "import_capture", "model", "report", "check", "diff", "bench", "peaks",
    "sol", "tour", "timeline", "merge", "version", "binary", "inject_library",
    "Document", "Analysis", "MachineDocument", "Machine", "Roof", "Kernel", "Point", "Diff", "CheckResult",
    "Timeline", "Merged", "Record",
    "RooflineError", "RooflineUsageError", "RooflineFailure", "BinaryNotFoundError", "DocumentError",
    "BIN_ENV", "INJECT_ENV",
]
