"""Shared by worker.py and the atheris targets: what counts as a clean error, a memory
cap, and the libFuzzer command line."""
import os
import re

# One of these types, with a message that is not an internal C++ message leaking
# through the bindings' catch-all (which maps any std::exception to RuntimeError).
CLEAN = (TypeError, ValueError, IndexError, OverflowError, NotImplementedError, MemoryError,
         RuntimeError)
LEAK = re.compile(r"std::|_M_|basic_string|unknown C\+\+ exception|vector::|bad_alloc|"
                  r"bad_array|stoi|stol|map::at|invalid_argument|out_of_range")


def unclear(e):
    """Why e is not a clean typed error, or None."""
    if not isinstance(e, CLEAN) or isinstance(e, RecursionError):
        return f"{type(e).__name__}: {e}"
    msg = str(e).strip()
    if not msg:
        return f"{type(e).__name__} with an empty message"
    if LEAK.search(msg.split(" [Expected ")[0]):  # the expectation names C++ code by design
        return f"{type(e).__name__}: C++ exception leaking: {msg}"
    return None


def limit_memory(extra=4 << 30):
    """Address space capped a few GiB above what the imports took: a runaway allocation
    then fails (a MemoryError, or a crash we report) instead of swapping the machine."""
    import resource
    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize"))
    resource.setrlimit(resource.RLIMIT_AS, (vm + extra, resource.RLIM_INFINITY))


def libfuzzer_argv(argv, rss_limit_mb, corpus=None, seeds=()):
    """atheris.Setup's command line from this script's: `--iterations N` becomes
    libFuzzer's -runs=N; the seeds (bytes) are written into the directory corpus, which
    is fuzzed when the command line names none; the address space is capped
    (limit_memory) under libFuzzer's RSS limit, and an input may take 10 s."""
    argv = list(argv)
    if "--iterations" in argv:  # a bounded run
        k = argv.index("--iterations")
        argv[k : k + 2] = [f"-runs={int(argv[k + 1])}"]
    if corpus is not None:
        os.makedirs(corpus, exist_ok=True)
        for i, seed in enumerate(seeds):
            with open(os.path.join(corpus, f"seed{i}"), "wb") as f:
                f.write(seed)
        if not any(not a.startswith("-") for a in argv[1:]):
            argv.append(corpus)
    limit_memory()
    return argv + [f"-rss_limit_mb={rss_limit_mb}", "-timeout=10"]
