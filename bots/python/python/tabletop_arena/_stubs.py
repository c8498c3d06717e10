"""The Python stubs of the arena's gRPC contract, generated from the contract itself.

The contract's text (`proto/proto/tabletop/arena/v1/arena.proto`) is compiled into the
extension when the package is built; at the first use of a client it is compiled here with
grpcio-tools into a temporary folder, removed as soon as the modules are imported (a process
killed later leaves nothing behind). No stub is written by hand or kept.
"""

import os
import shutil
import sys
import tempfile

from . import _native

_PATH = "tabletop/arena/v1/arena.proto"
_stubs = None


def stubs():
    """The generated modules `(arena_pb2, arena_pb2_grpc)`, generated once per process."""
    global _stubs
    if _stubs is None:
        from grpc_tools import protoc

        out = tempfile.mkdtemp(prefix="tabletop-arena-stubs-")
        try:
            source = os.path.join(out, "proto")
            os.makedirs(os.path.join(source, os.path.dirname(_PATH)))
            with open(os.path.join(source, _PATH), "w", encoding="utf-8") as f:
                f.write(_native.CONTRACT)
            code = protoc.main(["protoc", f"-I{source}", f"--python_out={out}", f"--grpc_python_out={out}", _PATH])
            if code != 0:
                raise RuntimeError(f"grpcio-tools could not compile the contract ({_PATH})")
            sys.path.insert(0, out)
            try:
                from tabletop.arena.v1 import arena_pb2, arena_pb2_grpc
            finally:
                sys.path.remove(out)
        finally:
            shutil.rmtree(out, True)
        _stubs = (arena_pb2, arena_pb2_grpc)
    return _stubs
