"""The case groups, by behaviour. Each module has NAME, ABOUT and
`cases(m, quick)`, which returns a list of harness.Case built from the
material `m`; `quick` asks for a representative subset."""

from . import (check, children, documents, flags, inputs, names, outputs, ranks, scale, selftest,
               streams, timeline)

GROUPS = {mod.NAME: mod for mod in (inputs, documents, flags, outputs, streams, names, check, ranks,
                                    children, timeline, scale)}

SELFTEST = selftest  # not a group of a normal run: `run.py --selftest`
