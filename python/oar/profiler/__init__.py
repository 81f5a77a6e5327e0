"""oar.profiler: where each training step's time goes (Paddle's paddle.profiler).

    with oar.profiler.Profiler(on_trace_ready=oar.profiler.export_chrome_tracing("./log")) as prof:
        for x, y in loader:
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            prof.step()
    prof.summary()

docs/profiler.md describes the events, the trace format and the cost.
"""
from .profiler import (Profiler, ProfilerState, ProfilerTarget, SortedKeys,  # noqa: F401
                       SummaryView, export_chrome_tracing, make_scheduler)
from .utils import RecordEvent, TracerEventType  # noqa: F401

__all__ = ["Profiler", "ProfilerState", "ProfilerTarget", "SortedKeys", "SummaryView",
           "make_scheduler", "export_chrome_tracing", "RecordEvent", "TracerEventType"]
