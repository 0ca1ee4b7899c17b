"""Special files made at test time (a FIFO cannot be committed), for the
hostile-input tests that put one where a trace file should be."""
import os


def replace_with_special(path, kind, device="/dev/zero"):
    """Replaces the file PATH by a FIFO ("fifo"), a link to DEVICE ("device")
    or an empty folder ("folder")."""
    os.unlink(path)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        os.symlink(device, path)
    elif kind == "folder":
        os.mkdir(path)
    else:
        raise ValueError(f"no special file of kind {kind!r}")
