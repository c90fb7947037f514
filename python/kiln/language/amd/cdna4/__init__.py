"""CDNA4 (gfx950) builtins, as in Gluon's ``amd.cdna4``. Nothing is implemented yet.

What will land here, in the ``async_copy`` submodule:

* ``async_copy.global_load_to_shared``: an asynchronous global -> shared (LDS) copy;
* ``async_copy.buffer_load_to_shared``: the same through a buffer resource descriptor;
* ``async_copy.commit_group`` / ``async_copy.wait_group``: group outstanding copies and wait
  until at most N groups are in flight;
* ``async_copy.load_shared_relaxed``: a shared-memory load ordered only by those waits.
"""

__all__ = []
