//! Memory, thread and plan-size limits: refused before anything runs, with the estimate; failures under resource limits leave a record and no scratch file.
