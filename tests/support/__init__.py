"""Helpers shared by several test folders, imported as ``support.<module>`` (``tests/``
is on ``sys.path`` through its ``conftest.py``):

- ``cli_runs``: run the CLI in-process, read the built-in sandbox's links back, and a
  source file's bytes and inode to prove a run left it alone;
- ``journals``: a run journal's records, read back;
- ``reliability``: an in-process sandbox and a fake clock shared with the client;
- ``sandbox_helpers``: a sandbox clock you move, and the sandbox served in a thread;
- ``two_workspaces``: two built-in sandboxes as the two targets of one config file.

A helper used by one folder only lives in that folder (``api/api_fakes.py``,
``cli/ws_helpers.py``, ``sources/hostile_inputs.py``, ``sync/sync_helpers.py``...)."""
