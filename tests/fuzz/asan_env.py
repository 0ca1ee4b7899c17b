"""ASAN_OPTIONS for the analyzer of an ASan build reading damaged traces.

A damaged array length makes libbabeltrace2 crash (a segmentation fault)
or allocate beyond any budget (glib then aborts, SIGTRAP) in a decoding
process: the analyzer ends that stream as damaged (pread.h). An ASan build
would report the library's fault or its allocation as an error of its own;
with LIBRARY_CRASHES it dies of them as the product does, and still
reports every memory error of the analyzer's own code (a fault in the
replaying process is its death: the test sees the signal). Apart from
recording.py: that imports tap.py, which takes over stdout."""
import os

LIBRARY_CRASHES = "handle_segv=0:allocator_may_return_null=1"


def asan_options(*more):
    """ASAN_OPTIONS: the environment's, LIBRARY_CRASHES and MORE."""
    return ":".join(filter(None, [os.environ.get("ASAN_OPTIONS"), LIBRARY_CRASHES, *more]))
