"""The `continuity` command on the owner's machine: agent hooks, setup, uninstall, doctor.

Standard library only, so a hook process starts in a few tens of milliseconds; the server
imports `continuity_client.workspace` too, so both sides derive project keys the same way.
"""
