//! Words that say what ran: engine fallbacks in sweep and mark rows, interrupted points never best, RLIMIT_MEMLOCK named.
