"""oar.profiler: where each training step's time goes (Paddle's paddle.profiler).

    with oar.profiler.Profiler(on_trace_ready=oar.profiler.export_chrome_tracing("./log")) as prof:
        for x, y in loader:
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            prof.step()
    prof.summary()

docs/profiler.md describes the events, the trace format and the cost;
export_protobuf / load_profiler_result save a cycle and read it back as a tree.
"""

from .profiler import (
    Profiler,
    ProfilerState,
    ProfilerTarget,
    SortedKeys,  # noqa: F401
    SummaryView,
    export_chrome_tracing,
    export_protobuf,
    make_scheduler,
)
from .result import ProfilerResult, load_profiler_result  # noqa: F401
from .utils import RecordEvent, TracerEventType  # noqa: F401

__all__ = [
    "Profiler",
    "ProfilerState",
    "ProfilerTarget",
    "SortedKeys",
    "SummaryView",
    "make_scheduler",
    "export_chrome_tracing",
    "export_protobuf",
    "RecordEvent",
    "TracerEventType",
    "load_profiler_result",
]
