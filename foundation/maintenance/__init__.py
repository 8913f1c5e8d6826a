"""Background maintenance: leases, recorded periodic runs, retention, and the watchdog.

- locks.py      a database lease per periodic job (one runner at a time, on both profiles)
- runs.py       `job_run`: lease + "done recently?" + a MaintenanceRun record per attempt
- retention.py  the rule registry and the bounded purge
- watchdog.py   judges each job by its last success and plugged-in work probes
"""
