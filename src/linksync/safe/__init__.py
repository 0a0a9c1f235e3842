"""The guards on everything linksync writes or shows, used by every layer above.

- ``safe.outputs``: every output path checked before the first request, files written
  whole (a hidden temporary sibling renamed into place) or not at all.
- ``safe.leftovers``: the temporary files of a killed run, removed by the next run on
  the same outputs.
- ``safe.secrets``: the one ``redact`` and the registry of a run's secrets.
- ``safe.terminal``: ``printable``, text from a file or the service made safe for a
  terminal (control, bidi-override and invisible characters escaped).
- ``safe.state_folder``: ``make_folder``, the ``.linksync/`` state folder made with its
  own ``.gitignore`` (``*``), so git never lists it.

Lowest layer, beside ``linksync.errors``, ``linksync.model`` and ``linksync.rules``: it
may import ``linksync.errors`` and the standard library, nothing above (sources,
validation, the client, sync, reports and the pipeline all import it).
"""
